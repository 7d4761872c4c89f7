package floorcmd

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tablectl/tablectl/internal/chromiumtest"
)

// newConsoleBrowser starts headless Chromium at 1600x1000 for the test (chromiumtest.New).
func newConsoleBrowser(t *testing.T) context.Context {
	t.Helper()
	return chromiumtest.New(t, 1600, 1000)
}

func pageLogin(t *testing.T, ctx context.Context, base, user, password string) {
	t.Helper()
	browse(t, ctx, "log in as "+user,
		chromedp.Navigate(base+"/login.html?next=%2F"),
		chromedp.WaitVisible(chromedp.ID("user")),
		chromedp.SendKeys(chromedp.ID("user"), user),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.ID("submit")),
		waitJS(`location.pathname === "/" && document.body.dataset.ready === "1"`),
	)
}

// reportThroughPage clicks the table page's Report until the table takes it: between
// rounds a table refuses a report ("no round is being dealt"), and the page says so, so
// the dealer clicks again once cards are out. Each click asks once more, and is
// confirmed. It fails on any other answer.
func reportThroughPage(t *testing.T, ctx context.Context) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		browse(t, ctx, "report",
			chromedp.Click(chromedp.CSS(`button[data-cmd="report"]`)),
			waitJS(`!!document.getElementById("confirm-yes")`))
		if q := evalJS[string](t, ctx, `document.querySelector("#confirm .confirm-text").textContent`); !strings.Contains(q, "Report wrong hand") || !strings.Contains(q, "RWS Baccarat 5.8") {
			t.Fatalf("Report asks %q", q)
		}
		browse(t, ctx, "confirm the report",
			chromedp.Click(chromedp.ID("confirm-yes")),
			waitJS(`(() => { const r = document.getElementById("reply"); return r.classList.contains("ok") || r.classList.contains("refused"); })()`))
		reply := evalJS[string](t, ctx, `document.getElementById("reply").textContent`)
		if evalJS[bool](t, ctx, `document.getElementById("reply").classList.contains("ok")`) {
			if !strings.Contains(reply, "Irregularity #") || !strings.Contains(reply, "raised: wrong hand") {
				t.Fatalf("the report was taken without the irregularity: %q", reply)
			}
			return
		}
		// Between rounds the table refuses a report; sent again too often, it is busy.
		retry := strings.Contains(reply, "no round is being dealt") || strings.Contains(reply, "busy: ")
		if !retry || time.Now().After(deadline) {
			t.Fatalf("report refused: %q", reply)
		}
		// The dealer clicks again once the page shows the table between rounds, then
		// dealing the next.
		browse(t, ctx, "wait for the next round's cards",
			waitJS(`!["dealing", "complete"].includes(document.getElementById("phase").dataset.phase)`),
			waitJS(`["dealing", "complete"].includes(document.getElementById("phase").dataset.phase)`))
	}
}

// TestConsolePagesInBrowser drives the console's pages in headless Chromium against
// Mosquitto and two simulated tables: the dealer reports a wrong hand with the table
// page's Report and the table is held; the dealer's page has the dealer's commands and
// no decision buttons; the floor shows the held table first; the supervisor's page has
// the decisions with their rule, and deciding through it lets the table go on.
func TestConsolePagesInBrowser(t *testing.T) {
	t.Parallel()
	ctx := newConsoleBrowser(t)
	f := startFloor(t)
	base := f.url

	// Not logged in: the floor sends the browser to the login page.
	browse(t, ctx, "open the floor", chromedp.Navigate(base+"/"), waitJS(`location.pathname === "/login.html"`))
	if path := evalJS[string](t, ctx, `location.pathname + location.search`); path != "/login.html?next=%2F" {
		t.Errorf("redirected to %s", path)
	}
	browse(t, ctx, "wrong password",
		chromedp.WaitVisible(chromedp.ID("user")),
		chromedp.SendKeys(chromedp.ID("user"), "D4"),
		chromedp.SendKeys(chromedp.ID("password"), "not-the-password"),
		chromedp.Click(chromedp.ID("submit")),
		waitJS(`document.getElementById("error").textContent !== ""`))
	if msg := evalJS[string](t, ctx, `document.getElementById("error").textContent`); !strings.Contains(msg, "wrong user name or password") {
		t.Errorf("login error shown: %q", msg)
	}

	pageLogin(t, ctx, base, "D4", "dealer-password-4")
	browse(t, ctx, "both tables on the floor", waitJS(`document.querySelectorAll(".tile").length === 2 &&
		[...document.querySelectorAll(".tile")].every((t) => !t.classList.contains("offline"))`))
	if held := evalJS[int](t, ctx, `document.querySelectorAll(".tile.held").length`); held != 0 {
		t.Fatalf("%d tables held before anything was reported", held)
	}

	// The dealer opens t2's page from the floor and reports a wrong hand with the page's
	// Report: the dealer's commands are there, no decisions.
	browse(t, ctx, "open t2 from the floor",
		chromedp.Click(chromedp.CSS(`.tile[data-table="t2"]`)),
		waitJS(`location.pathname === "/table.html" && document.body.dataset.ready === "1"`),
		chromedp.WaitVisible(chromedp.CSS(`button[data-cmd="report"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-cmd="confirm"]`)))
	if held := evalJS[bool](t, ctx, `!document.getElementById("held").hidden`); held {
		t.Fatal("t2's page shows the table held before the report")
	}
	browse(t, ctx, "fill in the report",
		chromedp.SetValue(chromedp.ID("report-kind"), "wrong_hand"),
		chromedp.SendKeys(chromedp.ID("report-detail"), "P2 dealt to banker"))
	reportThroughPage(t, ctx)
	browse(t, ctx, "t2's page shows the table held",
		waitJS(`!document.getElementById("held").hidden && document.getElementById("held-rule").textContent === "RWS Baccarat 5.8"`),
		waitJS(`[...document.querySelectorAll("#irregs tr.raised")].some((r) => r.textContent.includes("wrong hand"))`))
	decisions := evalJS[int](t, ctx, `document.querySelectorAll("#decisions button").length`)
	noDecision := evalJS[string](t, ctx, `document.getElementById("no-decision").textContent`)
	if decisions != 0 || !strings.Contains(noDecision, "A supervisor or above decides") {
		t.Errorf("dealer's page: %d decision buttons, %q", decisions, noDecision)
	}
	screenshot(t, ctx, "console-table-dealer.png")

	// Back on the floor, the held table comes first.
	browse(t, ctx, "back to the floor",
		chromedp.Click(chromedp.ID("back")),
		waitJS(`location.pathname === "/" && document.body.dataset.ready === "1"`),
		waitJS(`(() => { const t = document.querySelector(".tile"); return t && t.dataset.table === "t2" && t.classList.contains("held"); })()`))
	heldText := evalJS[string](t, ctx, `document.querySelector(".tile .alert.held").textContent`)
	if !strings.Contains(heldText, "HELD") || !strings.Contains(heldText, "wrong hand") || !strings.Contains(heldText, "RWS Baccarat 5.8") {
		t.Errorf("held line %q", heldText)
	}
	// Searching by table id leaves t1 only.
	browse(t, ctx, "search",
		chromedp.SendKeys(chromedp.ID("search"), "t1"),
		waitJS(`document.querySelector('.tile[data-table="t2"]').hidden`))
	if shown := evalJS[int](t, ctx, `[...document.querySelectorAll(".tile")].filter((t) => !t.hidden).length`); shown != 1 {
		t.Errorf("%d tiles shown for the search t1", shown)
	}
	browse(t, ctx, "clear the search",
		waitJS(`(() => { const s = document.getElementById("search"); s.value = ""; s.dispatchEvent(new Event("input")); s.blur(); return true; })()`),
		waitJS(`!document.querySelector('.tile[data-table="t2"]').hidden`))
	screenshot(t, ctx, "console-floor-held.png")

	// The supervisor's page: the decisions of the wrong hand with its rule.
	browse(t, ctx, "log out", chromedp.Click(chromedp.ID("logout")), waitJS(`location.pathname === "/login.html"`))
	pageLogin(t, ctx, base, "S17", "supervisor-pass-17")
	browse(t, ctx, "the supervisor's table page",
		chromedp.Navigate(base+"/table.html?table=t2"),
		waitJS(`document.querySelectorAll("#decisions button").length > 0`))
	choices := evalJS[[]string](t, ctx, `[...document.querySelectorAll("#decisions button")].map((b) => b.dataset.choice)`)
	why := evalJS[string](t, ctx, `document.querySelector(".decision .why").textContent`)
	if strings.Join(choices, ",") != "reconstructed,continue" || !strings.Contains(why, "RWS Baccarat 5.8") {
		t.Errorf("supervisor's decisions %v, beside them %q", choices, why)
	}
	screenshot(t, ctx, "console-table-supervisor.png")

	heldRound := evalJS[string](t, ctx, `document.getElementById("round").textContent`)
	browse(t, ctx, "decide reconstructed",
		chromedp.Click(chromedp.CSS(`#decisions button[data-choice="reconstructed"]`)),
		waitJS(`!!document.getElementById("confirm-yes")`),
		chromedp.Click(chromedp.ID("confirm-yes")),
		waitJS(`document.getElementById("reply").classList.contains("ok")`),
		waitJS(`document.getElementById("held").hidden`),
		waitJS(`[...document.querySelectorAll("#irregs tr.resolved")].some((r) => r.textContent.includes("S17"))`))
	if reply := evalJS[string](t, ctx, `document.getElementById("reply").textContent`); !strings.Contains(reply, "wrong hand decided: reconstructed, by supervisor S17") {
		t.Errorf("reply shown: %q", reply)
	}
	row := evalJS[string](t, ctx, `document.querySelector("#irregs tr.resolved").textContent`)
	if !strings.Contains(row, "reconstructed") || !strings.Contains(row, "supervisor S17") {
		t.Errorf("irregularities row: %q", row)
	}
	screenshot(t, ctx, "console-table-decided.png")
	// The table goes on: the held round is settled and the next one dealt.
	browse(t, ctx, "the table deals on",
		waitJS(`document.getElementById("round").textContent !== `+strconv.Quote(heldRound)+` && document.getElementById("last").textContent !== "–"`))
}
