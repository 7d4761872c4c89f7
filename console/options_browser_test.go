package console

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/internal/artifacts"
	"github.com/tablectl/tablectl/internal/chromiumtest"
)

// TestOptionsFromThePageInBrowser: at 1920x1080 and on a 1024x768 tablet, the table page
// shows the open options window of RWS Baccarat 5.12 (NC Insurance 5.12 at this table)
// with each box and its choice; the dealer records box 1's bet returned from it and a
// supervisor closes the window from it. A pit manager records NC Insurance 5.13's
// intended Insurance for a box from the page. The table's settlement, shown on the page,
// returns both bets with the option. At a table without NC Insurance the page offers no
// 5.13 record. Each option reads in words, and each record asks once more, naming the box
// and its choice, before anything is sent.
func TestOptionsFromThePageInBrowser(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{1920, 1080}, {1024, 768}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			optionsFromThePage(t, size[0], size[1])
		})
	}
}

func optionsFromThePage(t *testing.T, width, height int) {
	l, tc := startLiveTable(t)
	ctx := chromiumtest.New(t, width, height)
	l.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	l.idle(t)
	dealer := tc.login(t, "D4", "dealer-password-4")
	give := func(body string) {
		t.Helper()
		if code, resp := dealer.post(t, "/api/tables/t1/commands", body); code != 200 || !strings.Contains(resp, `"ok":true`) {
			t.Fatalf("%s: %d %s", body, code, resp)
		}
		l.idle(t)
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		artifacts.Write(t, fmt.Sprintf("%s-%dx%d.png", name, width, height), png)
	}
	open := func(user, password, table string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Navigate(tc.http.URL+"/login.html")); err != nil {
			t.Fatal(err)
		}
		until(t, ctx, "the login form", `!!document.getElementById("user") && location.pathname === "/login.html"`)
		if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("user"), user),
			chromedp.SendKeys(chromedp.ID("password"), password), chromedp.Click(chromedp.ID("submit"))); err != nil {
			t.Fatal(err)
		}
		until(t, ctx, "the floor", `location.pathname === "/" && document.body.dataset.ready === "1"`)
		if _, err := chromedp.Run(ctx, chromedp.Navigate(tc.http.URL+"/table.html?table="+table)); err != nil {
			t.Fatal(err)
		}
		until(t, ctx, "table "+table, `document.body.dataset.ready === "1"`)
	}
	// click taps sel, which asks once more, saying ask, before it sends anything; then
	// confirms. It returns the reply in words and the table's effects.
	click := func(what, sel, ask string) (words, effects string) {
		t.Helper()
		evaluate[bool](t, ctx, `(() => { const r = document.getElementById("reply"); r.className = "reply"; r.textContent = ""; return true; })()`)
		if err := chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		until(t, ctx, what+"'s question", `!!document.getElementById("confirm-yes")`)
		if got := evaluate[string](t, ctx, `document.querySelector("#confirm .confirm-text").textContent`); !strings.Contains(got, ask) {
			t.Errorf("%s asks %q, want it to say %q", what, got, ask)
		}
		if got := evaluate[string](t, ctx, `document.getElementById("reply").textContent`); got != "" {
			t.Errorf("%s sent before it was confirmed: %q", what, got)
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("confirm-yes"))); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		until(t, ctx, what+"'s reply", `(() => { const r = document.getElementById("reply"); return r.classList.contains("ok") || r.classList.contains("refused"); })()`)
		words = evaluate[string](t, ctx, `document.getElementById("reply").textContent`)
		if !evaluate[bool](t, ctx, `document.getElementById("reply").classList.contains("ok")`) {
			t.Fatalf("%s: %s", what, words)
		}
		l.idle(t)
		return words, evaluate[string](t, ctx, `document.getElementById("reply").dataset.effects || ""`)
	}

	// Round 1: a card exposed; the players' options open, the table held for them.
	give(`{"cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":100},{"box":"2","bet":"player","stake":100}]}`)
	give(`{"cmd":"report","kind":"exposed_card"}`)
	open("D4", "dealer-password-4", "t1")
	until(t, ctx, "the options window", `document.querySelectorAll("#decisions .option-box").length === 2`)
	if got := evaluate[string](t, ctx, `document.querySelector("#decisions .options-head").textContent`); !strings.Contains(got, "NC Insurance 5.12: the players' options are open") {
		t.Errorf("the window's head: %q", got)
	}
	if got := evaluate[string](t, ctx, `[...document.querySelectorAll("#decisions .option-box button")].map((b) => b.dataset.box + ":" + b.dataset.option).join(" ")`); got != "1:continue 1:continue-reconstructed 1:bet-returned 2:continue 2:continue-reconstructed 2:bet-returned" {
		t.Errorf("the dealer's choices: %q", got)
	}
	if n := evaluate[int](t, ctx, `document.querySelectorAll('#decisions button[data-cmd="options_closed"]').length`); n != 0 {
		t.Errorf("a dealer is offered to close the window")
	}
	if evaluate[bool](t, ctx, `!!document.getElementById("nc513")`) {
		t.Errorf("a dealer is offered NC Insurance 5.13's record, a pit manager's")
	}
	if got := evaluate[string](t, ctx, `[...document.querySelectorAll('#decisions .option-box[data-box="1"] button')].map((b) => b.textContent).join(" | ")`); got != "Continue as dealt | Continue reconstructed | Bet returned" {
		t.Errorf("the choices in words: %q", got)
	}
	shot("options-open")
	// The raised message names the dealer who reported it; the table did not raise it.
	if got := text(t, ctx, "#held-who"); got != "Reported by dealer D4. No note given." {
		t.Errorf("who reported the hold: %q", got)
	}
	words, effects := click("box 1's option", `#decisions button[data-box="1"][data-option="bet-returned"]`, "Box 1: Bet returned. The box's bets are returned; it takes no further part in the round (NC Insurance 5.12.3).")
	if !strings.Contains(effects, "option-recorded box=1 bet-returned by dealer D4") || !strings.Contains(words, "Box 1: Bet returned recorded, by dealer D4") {
		t.Errorf("box 1's option: %s (%s)", words, effects)
	}
	until(t, ctx, "box 1's choice shown", `document.querySelector('#decisions .option-box[data-box="1"]').textContent.startsWith("Box 1: Bet returned")`)
	shot("options-chosen")

	open("S17", "supervisor-pass-17", "t1")
	until(t, ctx, "the supervisor's close", `!!document.querySelector('#decisions button[data-cmd="options_closed"]')`)
	if _, r := click("closing the options", `#decisions button[data-cmd="options_closed"]`, "box 2 chose nothing and continue"); !strings.Contains(r, "box 2 continue (chose nothing)") {
		t.Errorf("closing the window: %s", r)
	}
	until(t, ctx, "the table goes on", `document.getElementById("held").hidden`)
	l.cards(t, "9H 5C KS KD")
	give(`{"cmd":"confirm"}`)
	until(t, ctx, "round 1's settlement", `!!document.querySelector('#settlements tr[data-box="1"][data-bet="banker"]')`)
	if got := evaluate[string](t, ctx, `[...document.querySelectorAll('#settlements tr[data-box="1"][data-bet="banker"] td')].map((td) => td.textContent).join("|")`); !strings.HasPrefix(got, "1|banker|100|push|100|Bet returned|") {
		t.Errorf("box 1's Banker bet settled as %q, want returned with its option", got)
	}

	// Round 2: the dealer draws over the Banker Insurance offered after four cards; a pit
	// manager records box 1's intended Banker Insurance (NC Insurance 5.13).
	give(`{"cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":100},{"box":"2","bet":"player","stake":100}]}`)
	l.cards(t, "2H 5D KD KS 4C KH")
	open("M1", "pit-manager-pass-1", "t1")
	until(t, ctx, "the 5.13 record", `!document.getElementById("nc513").hidden`)
	if got := evaluate[string](t, ctx, `document.querySelector("#nc513 .why").textContent`); !strings.HasPrefix(got, "NC Insurance 5.13: ") {
		t.Errorf("the rule beside the 5.13 record: %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("nc513-box"), "1"), chromedp.SetValue(chromedp.ID("nc513-bet"), "banker_insurance")); err != nil {
		t.Fatal(err)
	}
	shot("nc513")
	if _, r := click("the 5.13 record", `#nc513 button[data-cmd="box_option"]`, "Box 1: Insurance intended (banker insurance). The Original Bet"); !strings.Contains(r, "option-recorded box=1 insurance-intended banker_insurance by pit_manager M1") {
		t.Errorf("the 5.13 record: %s", r)
	}
	give(`{"cmd":"confirm"}`)
	until(t, ctx, "round 2's settlement", `(() => { const r = document.querySelector('#settlements tr[data-box="1"][data-bet="banker"]'); return !!r && r.dataset.option === "insurance-intended"; })()`)
	if got := evaluate[string](t, ctx, `[...document.querySelectorAll('#settlements tr[data-box="1"][data-bet="banker"] td')].map((td) => td.textContent).join("|")`); !strings.HasPrefix(got, "1|banker|100|push|100|Insurance intended|") {
		t.Errorf("box 1's Banker bet settled as %q, want returned under 5.13", got)
	}
	shot("settled")

	// At a table without NC Insurance, no 5.13 record is offered.
	tc.srv.Ingest("tablectl/v1/t9/status", []byte(`{"schema":2,"table":"t9","state":"online","rules":"rws"}`))
	tc.srv.Ingest("tablectl/v1/t9/state", []byte(`{"schema":2,"table":"t9","shoe":1,"round":3,"seq":9,"phase":"dealing","rules":"rws"}`))
	if _, err := chromedp.Run(ctx, chromedp.Navigate(tc.http.URL+"/table.html?table=t9")); err != nil {
		t.Fatal(err)
	}
	until(t, ctx, "table t9", `document.body.dataset.ready === "1" && !!document.getElementById("nc513")`)
	if !evaluate[bool](t, ctx, `document.getElementById("nc513").hidden`) {
		t.Errorf("an RWS table's page offers NC Insurance 5.13's record")
	}
}
