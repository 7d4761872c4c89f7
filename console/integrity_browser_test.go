package console

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestIntegrityPageInBrowser: surveillance opens the Integrity page from the floor and
// sees each alarm with its evidence: the two shoes' shared run side by side at their
// own positions, the weak shuffle's p-values, the set's cards, the drift's counts; an
// acknowledgement needs a note, shows as given and not yet kept, then as kept once the
// archive has it; a dealer has no link to the page, and the page tells them why it is
// empty.
func TestIntegrityPageInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc, d := integrityConsole(t)
		loginPage(t, ctx, tc.http.URL, "D4", "dealer-password-4")
		until(t, ctx, "the floor", `document.body.dataset.ready === "1"`)
		if !evaluate[bool](t, ctx, `document.getElementById("integrity-link").hidden`) {
			t.Error("a dealer is shown the Integrity page's link")
		}
		if _, err := chromedp.Run(ctx, chromedp.Navigate(tc.http.URL+"/integrity.html")); err != nil {
			t.Fatal(err)
		}
		until(t, ctx, "the dealer refused", `document.body.dataset.ready === "1" && !document.getElementById("refused").hidden`)
		if got := text(t, ctx, "#refused"); !strings.Contains(got, "may not read the integrity alarms") {
			t.Errorf("the dealer's page says %q", got)
		}
		click(t, ctx, "#logout")
		until(t, ctx, "logged out", `location.pathname === "/login.html" && document.readyState === "complete"`)

		loginPage(t, ctx, tc.http.URL, "V9", "surveillance-pass-9")
		until(t, ctx, "the Integrity link", `document.body.dataset.ready === "1" && !document.getElementById("integrity-link").hidden`)
		click(t, ctx, "#integrity-link")
		until(t, ctx, "the alarms", `location.pathname === "/integrity.html" && document.body.dataset.ready === "1" && document.querySelectorAll('.integrity-card').length === 4`)
		rep := `.integrity-card[data-kind="integrity-repeated-order"] `
		sides := evaluate[[]string](t, ctx, `[...document.querySelectorAll('`+rep+`.shoe-side')].map((s) => s.innerText.replace(/\s+/g, ' ').trim())`)
		run := "9S KD 4H 4C AD 7S TC 2H QS 5D 8C 3H JD 6S KH 9D 2C AS TD 7H"
		if len(sides) != 2 || !strings.Contains(sides[0], "t1 · shoe 12 · set S-1112") || !strings.Contains(sides[0], "cards 301 to 320 "+run) ||
			!strings.Contains(sides[1], "t2 · shoe 7 · set S-0907") || !strings.Contains(sides[1], "cards 81 to 100 "+run) {
			t.Errorf("the two shoes side by side: %q", sides)
		}
		for sel, want := range map[string]string{
			`.integrity-card[data-kind="integrity-weak-shuffle"] .evidence`: "p-value of this set 3.10e-21",
			`.integrity-card[data-kind="integrity-set"] .evidence`:          "Dealt too often KD: 9 times, the decks hold 8",
			`.integrity-card[data-kind="integrity-drift"] .evidence`:        "Banker wins 233 of 369 rounds (expected 169.2)",
		} {
			got := evaluate[string](t, ctx, `document.querySelector('`+sel+`').innerText.replace(/\s+/g, ' ')`)
			if !strings.Contains(got, want) {
				t.Errorf("%s reads %q, want %q in it", sel, got, want)
			}
		}
		shot(t, ctx, sc, "integrity")

		click(t, ctx, rep+"button.ack")
		until(t, ctx, "the prompt for a note", `document.querySelector('`+rep+`.reply').textContent.includes("needs a note")`)
		evaluate[bool](t, ctx, `(() => { const n = document.querySelector('`+rep+`.alert-note'); n.value = "Both shoes pulled; decks to the cage."; n.dispatchEvent(new Event('input')); return true; })()`)
		click(t, ctx, rep+"button.ack")
		until(t, ctx, "the acknowledgement shown", `!!document.querySelector('.integrity-card.acked[data-kind="integrity-repeated-order"] .alert-ack')`)
		if got := text(t, ctx, rep+".alert-ack"); !strings.HasPrefix(got, "Acknowledged by V9 (surveillance) at 2026-11-23 08:00:00 UTC") ||
			!strings.Contains(got, "Both shoes pulled; decks to the cage.") {
			t.Errorf("the acknowledgement reads %q", got)
		}
		if got := text(t, ctx, rep+".alert-kept"); got != "Given to the archive: not yet shown by it." {
			t.Errorf("before the archive has it: %q", got)
		}
		_, recs := alertRecords(t, tc)
		if len(recs) != 1 {
			t.Fatalf("records given the archive: %+v", recs)
		}
		d.ack(recs[0])
		click(t, ctx, "#refresh")
		until(t, ctx, "kept in the archive", `document.body.dataset.ready === "1" && document.querySelector('`+rep+`.alert-kept')?.textContent === "Kept in the archive."`)
		if got := text(t, ctx, "#count"); got != "3 open · 4 listed" {
			t.Errorf("the count reads %q", got)
		}
		evaluate[bool](t, ctx, `(document.querySelector('`+rep+`').scrollIntoView(), true)`)
		shot(t, ctx, sc, "integrity-acknowledged")
	})
}
