package console

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tablectl/tablectl/internal/chromiumtest"
)

// TestHistoryPageInBrowser: on the podium's screen and the tablet, a supervisor opens
// History from the floor, searches pit3's rounds with an irregularity decided
// "continue", opens the round with its cards, settlements, irregularity and commands,
// and the CSV link gives the same search as an attachment; a search of every round of
// pit3 lists t1's 42 in order. Without an archive the floor has no History link and the
// page says the console has none.
func TestHistoryPageInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := historyConsole(t)
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		until(t, ctx, "the History link", visible("#history-link"))
		click(t, ctx, "#history-link")
		until(t, ctx, "the History page", `location.pathname === "/history.html" && document.body.dataset.ready === "1" && !document.getElementById("search-form").hidden`)
		if !shown(t, ctx, "#search") || !shown(t, ctx, "#csv") {
			t.Errorf("the search button or the CSV link is not on screen")
		}
		// Every round of pit3: t1's 42, in order. The page opened on the last hour
		// (TestHistoryOpensOnTheLastHourInBrowser): its range is cleared first.
		until(t, ctx, "the last hour searched", `document.body.dataset.searched === "1" && document.getElementById("f-from").value !== ""`)
		evaluate[bool](t, ctx, `(() => { for (const id of ["f-from", "f-to"]) { const f = document.getElementById(id); f.value = ""; f.dispatchEvent(new Event("input", {bubbles: true})); }
			const s = document.getElementById("f-pit"); s.value = "pit3"; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`)
		click(t, ctx, "#search")
		until(t, ctx, "pit3's rounds", `document.querySelectorAll(".round-row").length === 42`)
		if got := text(t, ctx, "#count"); got != "42 rounds" {
			t.Errorf("count %q", got)
		}
		if got := text(t, ctx, "#range"); got != "Searched: rounds ended at any time, at the tables of pit pit3." {
			t.Errorf("range %q", got)
		}
		rows := evaluate[[]string](t, ctx, `[...document.querySelectorAll(".round-row")].map((r) => r.cells[1].textContent + " " + r.cells[2].textContent)`)
		if rows[0] != "t1 pit3 1/1" || rows[41] != "t1 pit3 1/42" {
			t.Errorf("rows %q … %q", rows[0], rows[41])
		}
		click(t, ctx, `.round-row[data-round="t1/12"]`)
		until(t, ctx, "round 1 open", `document.body.dataset.opened === "t1/12" && !document.getElementById("round").hidden`)
		shot(t, ctx, sc, "history-rounds")
		// Rounds with an irregularity decided "continue" by S17, from a time on.
		evaluate[bool](t, ctx, `(() => { const d = document.getElementById("f-decision"); d.value = "continue"; d.dispatchEvent(new Event("change", {bubbles: true}));
			const p = document.getElementById("f-person"); p.value = "S17"; p.dispatchEvent(new Event("input", {bubbles: true}));
			const f = document.getElementById("f-from"); f.value = "2026-11-27T00:00"; f.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
		click(t, ctx, "#search")
		until(t, ctx, "one round", `document.querySelectorAll(".round-row").length === 1 && document.getElementById("count").textContent === "1 round"`)
		if got := text(t, ctx, ".round-row .kinds"); got != "cards not accounted for" {
			t.Errorf("the round's irregularities: %q", got)
		}
		href := evaluate[string](t, ctx, `document.getElementById("csv").getAttribute("href")`)
		if !strings.HasPrefix(href, "/api/history/rounds.csv?") || !strings.Contains(href, "pit=pit3") || !strings.Contains(href, "decision=continue") ||
			!strings.Contains(href, "person=S17") ||
			!strings.Contains(href, "from=2026-11-2") {
			t.Errorf("CSV link %q", href)
		}
		if got := evaluate[string](t, ctx, `location.search`); !strings.Contains(got, "decision=continue") {
			t.Errorf("the page's address does not keep the search: %q", got)
		}
		evaluate[bool](t, ctx, `(() => { document.getElementById("round-close").click(); return true; })()`)
		until(t, ctx, "the round closed", `document.getElementById("round").hidden`)
		click(t, ctx, ".round-row")
		until(t, ctx, "the round open", `document.body.dataset.opened === "t1/12" && !document.getElementById("round").hidden`)
		until(t, ctx, "the round on screen", visible("#round-title"))
		if got := text(t, ctx, "#round-title"); got != "Table t1 (pit3) · Shoe 1 · Round 1" {
			t.Errorf("round title %q", got)
		}
		cards := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#r-player-cards .card, #r-banker-cards .card")].map((c) => c.dataset.card)`)
		if strings.Join(cards, " ") != "4S 5S 3S 6S" {
			t.Errorf("cards %v", cards)
		}
		if got := text(t, ctx, "#r-result"); got != "TIE 9–9" {
			t.Errorf("result %q", got)
		}
		if got := text(t, ctx, "#r-settlements tbody"); got != "1player100push0100accepted" {
			t.Errorf("settlements %q", got)
		}
		irr := text(t, ctx, "#r-irregs tbody")
		if !strings.Contains(irr, "cards not accounted for") || !strings.Contains(irr, "RWS Baccarat 5.5.3") || !strings.Contains(irr, "continue") ||
			!strings.Contains(irr, "supervisor S17") {
			t.Errorf("irregularities %q", irr)
		}
		cmds := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#r-commands tbody tr")].map((r) => r.cells[2].textContent + "/" + r.cells[3].textContent + "/" + r.cells[4].textContent)`)
		if strings.Join(cmds, " ") != "bets-closed/dealer/D4 decide/supervisor/S17 confirm//auto" {
			t.Errorf("commands %v", cmds)
		}
		// The CSV link: an attachment of the same search, with its header.
		csv, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => { const r = await fetch(document.getElementById("csv").href);
			return r.status + "|" + r.headers.get("Content-Disposition") + "|" + (await r.text()); })()`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.SplitN(csv, "|", 3)
		if len(parts) != 3 || parts[0] != "200" || !strings.HasPrefix(parts[1], `attachment; filename="tablectl-history-`) ||
			!strings.HasPrefix(parts[2], strings.Join(csvHeader, ",")+"\n") || strings.Count(parts[2], "\n") != 2 || !strings.Contains(parts[2], "\nt1,pit3,1,1,") {
			t.Errorf("CSV: %q", csv)
		}
		shot(t, ctx, sc, "history")
	})
	t.Run("no archive", func(t *testing.T) {
		t.Parallel()
		ctx := chromiumtest.New(t, 1920, 1080)
		tc := newTestConsole(t)
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		if evaluate[bool](t, ctx, `!document.getElementById("history-link").hidden`) {
			t.Error("the floor links to History without an archive")
		}
		if _, err := chromedp.Run(ctx, chromedp.Navigate(tc.http.URL+"/history.html")); err != nil {
			t.Fatal(err)
		}
		until(t, ctx, "the page", `document.body.dataset.ready === "1"`)
		if got := text(t, ctx, "#none"); got != "This console has no archive (console.archive is not set): there is no history to search." ||
			!evaluate[bool](t, ctx, `document.getElementById("search-form").hidden`) {
			t.Errorf("the page says %q", got)
		}
	})
}

// TestArchiveAlarmsInBrowser: the archive's alarm of a table and a table not archived
// for 25 minutes (by the console's clock) show on the floor's tile and in the banner of
// every page, and on the table's page; nothing dismisses them.
func TestArchiveAlarmsInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsole(t)
		now := tc.clock.now()
		for _, id := range []string{"t1", "t2", "t3", "t4", "t5", "t6"} {
			tc.srv.Ingest("casino/lv1/pit3/tablectl/v1/"+id+"/status", []byte(shipping(id, 0, time.Time{})))
			tc.srv.Ingest("casino/lv1/pit3/tablectl/v1/"+id+"/state", []byte(dealing(id, "rws")))
		}
		tc.srv.Ingest("casino/lv1/pit3/tablectl/v1/t5/status", []byte(shipping("t5", 40, now.Add(-25*time.Minute-30*time.Second))))
		tc.srv.Ingest(heldTopic("casino/lv1/pit3/", "t4", "floor"), []byte(heldAlarm("t4", 2)))
		tc.srv.Ingest(heldTopic("casino/lv1/pit3/", "t4", "standby"), []byte(heldOf("t4", "standby", 90, 1, "2026-11-23T08:00:00Z")))
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		until(t, ctx, "six tiles", `document.querySelectorAll(".tile").length === 6`)
		order := evaluate[[]string](t, ctx, `[...document.querySelectorAll(".tile")].map((e) => e.dataset.table)`)
		if strings.Join(order[:2], " ") != "t4 t5" {
			t.Errorf("the floor's order %v: want t4 and t5 first", order)
		}
		alarm := text(t, ctx, `.tile[data-table="t4"] .alert.archive-alarm`)
		if !strings.Contains(alarm, "ARCHIVE ALARM (archive standby): record 91 refused (rollback): the archive holds record 91") || !strings.Contains(alarm, "3 items kept apart") ||
			!shown(t, ctx, `.tile[data-table="t4"] .alert.archive-alarm`) {
			t.Errorf("t4's tile: %q", alarm)
		}
		if got := text(t, ctx, `.tile[data-table="t5"] .alert.archive-late`); got != "NOT ARCHIVED FOR 25 MIN (40 RECORDS BEHIND)" ||
			!shown(t, ctx, `.tile[data-table="t5"] .alert.archive-late`) {
			t.Errorf("t5's tile: %q", got)
		}
		banner := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#attention .att")].map((a) => a.textContent)`)
		if len(banner) != 2 || !strings.HasPrefix(banner[0], "t4 ARCHIVE ALARM (archive standby): record 91 refused (rollback)") || banner[1] != "t5 not archived for 25 min (40 records behind)" {
			t.Errorf("banner %q", banner)
		}
		if got := evaluate[string](t, ctx, `document.title`); !strings.HasPrefix(got, "(1 ARCHIVE ALARM)") {
			t.Errorf("title %q", got)
		}
		if n := evaluate[int](t, ctx, `document.querySelectorAll("#attention button, .tile button").length`); n != 0 {
			t.Errorf("%d buttons in the banner and tiles: nothing dismisses an alarm", n)
		}
		shot(t, ctx, sc, "floor-archive")
		openTable(t, ctx, tc.http.URL, "t4")
		until(t, ctx, "t4's archive banner", visible("#archive .archive-alarm"))
		if got := text(t, ctx, "#archive .archive-alarm"); !strings.HasPrefix(got, "t4 ARCHIVE ALARM (archive standby): record 91 refused (rollback): the archive holds record 91") {
			t.Errorf("t4's page: %q", got)
		}
		// The archive holds it again: the alarm goes, live.
		tc.srv.Ingest(heldTopic("casino/lv1/pit3/", "t4", "floor"), []byte(`{"schema":1,"table":"t4","seq":400,"alarms":0}`))
		until(t, ctx, "standby's alarm alone", `(() => { const e = document.querySelector("#archive .archive-alarm"); return !!e &&
			e.textContent.startsWith("t4 ARCHIVE ALARM (archive standby): record 91 refused (rollback)") && !e.textContent.includes("kept apart"); })()`)
		tc.srv.Ingest(heldTopic("casino/lv1/pit3/", "t4", "standby"), []byte(`{"schema":1,"table":"t4","seq":400,"alarms":0}`))
		until(t, ctx, "t4's alarm gone", `document.getElementById("archive").hidden`)
		openTable(t, ctx, tc.http.URL, "t5")
		until(t, ctx, "t5's lateness", visible("#archive .archive-late"))
		if got := text(t, ctx, "#archive .archive-late"); !strings.HasPrefix(got, "t5 not archived for 25 min (40 records behind)") {
			t.Errorf("t5's page: %q", got)
		}
		shot(t, ctx, sc, "table-archive-late")
	})
}
