package console

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tablectl/tablectl/internal/artifacts"
	"github.com/tablectl/tablectl/internal/chromiumtest"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// screen is a screen the pit works from: a podium's 1920x1080 and a dealer's tablet.
type screen struct {
	name string
	w, h int
}

var screens = []screen{{"1920", 1920, 1080}, {"tablet", 1024, 768}}

// eachScreen runs f in a fresh browser of each screen's size, the screens side by side:
// for the tests of the layout itself, whose pages load at each size.
func eachScreen(t *testing.T, f func(t *testing.T, sc screen, ctx context.Context)) {
	for _, sc := range screens {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			f(t, sc, chromiumtest.New(t, sc.w, sc.h))
		})
	}
}

// screensKey is the context key of the screens onScreens checks on.
type screensKey struct{}

// onScreens runs f once, in a tab the tablet's size, for a test whose steps are the same
// on each screen. What a person must see without scrolling is checked on each screen:
// until waits for a visible(...) on each in turn, shown looks on each, and shot keeps
// each screen's picture. The tab's viewport is set to each screen and back. A run at
// each size would check the rest twice, and cost as much again in Chromium.
func onScreens(t *testing.T, f func(t *testing.T, sc screen, ctx context.Context)) {
	home := screens[len(screens)-1]
	f(t, home, context.WithValue(chromiumtest.New(t, home.w, home.h), screensKey{}, screens))
}

// otherScreens returns the screens onScreens checks on besides home, the tab's own;
// none outside onScreens.
func otherScreens(ctx context.Context) (others []screen, home screen) {
	ss, _ := ctx.Value(screensKey{}).([]screen)
	if len(ss) < 2 {
		return nil, screen{}
	}
	return ss[:len(ss)-1], ss[len(ss)-1]
}

// resize sets the tab's viewport to sc's size and waits until the page has drawn two
// frames at it: its resize handlers have run and its layout is sc's.
func resize(t *testing.T, ctx context.Context, sc screen) {
	t.Helper()
	do(t, ctx, chromedp.EmulateViewport(int64(sc.w), int64(sc.h)))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`,
		chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("the page at %s: %v", sc.name, err)
	}
}

// elsewhere runs f on each screen onScreens checks on besides the tab's own, in turn,
// until one returns false, and reports whether none did. f's screen takes the page's
// scroll as it comes, as a window resized does. The tab is then back on its own screen,
// scrolled where it was.
func elsewhere(t *testing.T, ctx context.Context, f func(sc screen) bool) bool {
	t.Helper()
	others, home := otherScreens(ctx)
	if others == nil {
		return true
	}
	at := evaluate[[]float64](t, ctx, `[scrollX, scrollY]`)
	ok := true
	for _, sc := range others {
		resize(t, ctx, sc)
		if ok = f(sc); !ok {
			break
		}
	}
	resize(t, ctx, home)
	evaluate[bool](t, ctx, fmt.Sprintf(`(scrollTo(%v, %v), true)`, at[0], at[1]))
	return ok
}

// shown reports whether the element selector names is shown wholly inside the viewport
// (visible), on each screen onScreens checks on.
func shown(t *testing.T, ctx context.Context, selector string) bool {
	t.Helper()
	if !evaluate[bool](t, ctx, visible(selector)) {
		return false
	}
	return elsewhere(t, ctx, func(sc screen) bool {
		t.Helper()
		if !evaluate[bool](t, ctx, visible(selector)) {
			t.Logf("%s is not wholly on the %s screen", selector, sc.name)
			return false
		}
		return true
	})
}

// shot keeps what the screen shows (the viewport: what is above the fold) as
// test-artifacts/console/name-<screen>.png (internal/artifacts), under onScreens for
// each screen.
func shot(t *testing.T, ctx context.Context, sc screen, name string) {
	t.Helper()
	elsewhere(t, ctx, func(s screen) bool {
		t.Helper()
		capture(t, ctx, s, name)
		return true
	})
	capture(t, ctx, sc, name)
}

// capture keeps the viewport as it is as name-<sc>.png.
func capture(t *testing.T, ctx context.Context, sc screen, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	artifacts.Write(t, name+"-"+sc.name+".png", png)
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText.slice(0, 2000)`))
		t.Fatalf("%v\npage:\n%s", err, body)
	}
}

// click clicks the element selector names, with a script: a tap on what a person sees.
func click(t *testing.T, ctx context.Context, selector string) {
	t.Helper()
	ok := evaluate[bool](t, ctx, `(() => { const e = document.querySelector(`+jsString(selector)+`); if (!e) return false; e.click(); return true; })()`)
	if !ok {
		body := evaluate[string](t, ctx, `document.body.innerText.slice(0, 2000)`)
		t.Fatalf("no %s to click\npage:\n%s", selector, body)
	}
}

func jsString(s string) string { return fmt.Sprintf("%q", s) }

// visible is a script that is true when the element is shown wholly inside the
// viewport: a person sees it without scrolling. It carries onScreenMark: under
// onScreens, until waits for it on each screen.
func visible(selector string) string {
	return `(() => { ` + onScreenMark + ` const e = document.querySelector(` + jsString(selector) + `); if (!e || e.offsetParent === null) return false;
		const r = e.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth; })()`
}

// onScreenMark marks a script that looks at where an element is on the screen.
const onScreenMark = "/* on screen */"

func text(t *testing.T, ctx context.Context, selector string) string {
	t.Helper()
	return evaluate[string](t, ctx, `(() => { const e = document.querySelector(`+jsString(selector)+`); return e ? e.textContent : ""; })()`)
}

func loginPage(t *testing.T, ctx context.Context, base, user, password string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(base+"/login.html")); err != nil {
		t.Fatal(err)
	}
	until(t, ctx, "the login form", `!!document.getElementById("user") && location.pathname === "/login.html" && document.readyState === "complete"`)
	do(t, ctx, chromedp.SendKeys(chromedp.ID("user"), user), chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.ID("submit")))
	until(t, ctx, "the floor", `location.pathname === "/" && document.body.dataset.ready === "1"`)
}

func openTable(t *testing.T, ctx context.Context, base, table string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(base+"/table.html?table="+table)); err != nil {
		t.Fatal(err)
	}
	until(t, ctx, "table "+table, `document.body.dataset.ready === "1"`)
}

// dealing is table id's state: dealing round 81 of shoe 3, under rules.
func dealing(id, rules string) string {
	return fmt.Sprintf(`{"schema":2,"table":%q,"shoe":3,"round":81,"seq":500,"at":"2026-11-23T08:00:00Z","phase":"dealing","rules":%q,"decks":8,
"cards":[{"slot":"P1","card":"4H"},{"slot":"B1","card":"KS"}],"player_points":4,"banker_points":0}`, id, rules)
}

func online(tc *testConsole, id, rules string) {
	tc.srv.Ingest("tablectl/v1/"+id+"/status", []byte(fmt.Sprintf(`{"schema":2,"table":%q,"state":"online","rules":%q,"decks":8,"devices":{"shoe":"connected","shuffler":"connected"}}`, id, rules)))
}

// TestConsequentialActionsAskFirstInBrowser: End shoe, New shoe, Report and each
// decision send nothing on a tap: each asks once more where the button was, on screen,
// saying what will happen (End shoe: round 81 void and every bet returned); Cancel sends
// nothing; a report needs its kind chosen; only the confirmation sends the command, and
// its answer shows where the button was, in words.
func TestConsequentialActionsAskFirstInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsole(t)
		replyAsTable(tc)
		online(tc, "t1", "rws")
		tc.srv.Ingest("tablectl/v1/t1/state", []byte(dealing("t1", "rws")))
		loginPage(t, ctx, tc.http.URL, "D4", "dealer-password-4")
		openTable(t, ctx, tc.http.URL, "t1")
		until(t, ctx, "the dealer's buttons", `!!document.querySelector('button[data-cmd="end_shoe"]')`)
		sent := func() int { return len(tc.table.sent()) }

		// End shoe: asked, cancelled, asked, confirmed.
		click(t, ctx, `button[data-cmd="end_shoe"]`)
		until(t, ctx, "End shoe's question", visible("#confirm"))
		if got := text(t, ctx, "#confirm .confirm-text"); !strings.Contains(got, "Shoe 3 ends now: round 81 will be void and every bet returned (RWS Baccarat 5.5.4; RWS Baccarat 5.15)") {
			t.Errorf("End shoe asks %q", got)
		}
		if got := text(t, ctx, "#confirm-yes"); got != "Yes, end shoe 3" {
			t.Errorf("End shoe's yes: %q", got)
		}
		shot(t, ctx, sc, "confirm-end-shoe")
		if n := sent(); n != 0 {
			t.Fatalf("a tap on End shoe sent %d commands", n)
		}
		click(t, ctx, "#confirm-cancel")
		until(t, ctx, "the question gone", `!document.getElementById("confirm")`)
		if n := sent(); n != 0 {
			t.Fatalf("Cancel sent %d commands", n)
		}
		click(t, ctx, `button[data-cmd="end_shoe"]`)
		until(t, ctx, "End shoe's question again", visible("#confirm-yes"))
		click(t, ctx, "#confirm-yes")
		until(t, ctx, "the answer, on screen", `document.getElementById("reply").classList.contains("ok") && `+visible("#reply"))
		if got := text(t, ctx, "#reply"); got != "End shoe: done. Did end_shoe by D4" {
			t.Errorf("End shoe's answer: %q", got)
		}
		if s := tc.table.sent(); len(s) != 1 || !strings.Contains(s[0].payload, `"cmd":"end_shoe"`) {
			t.Fatalf("after the confirmation: %v", s)
		}
		shot(t, ctx, sc, "answer-end-shoe")

		// New shoe.
		click(t, ctx, `button[data-cmd="new_shoe"]`)
		until(t, ctx, "New shoe's question", visible("#confirm"))
		if got := text(t, ctx, "#confirm .confirm-text"); !strings.Contains(got, "Start a new shoe now. Shoe 3 ends now: round 81 will be void") {
			t.Errorf("New shoe asks %q", got)
		}
		if n := sent(); n != 1 {
			t.Fatalf("a tap on New shoe sent a command: %d in all", n)
		}
		click(t, ctx, "#confirm-cancel")

		// Report: no kind chosen, nothing asked or sent; the RWS table's list has no
		// "insurance not offered".
		kinds := evaluate[[]string](t, ctx, `[...document.getElementById("report-kind").options].map((o) => o.value)`)
		if kinds[0] != "" || strings.Contains(strings.Join(kinds, ","), "insurance_not_offered") || !strings.Contains(strings.Join(kinds, ","), "wrong_hand") {
			t.Errorf("report kinds at an RWS table: %v", kinds)
		}
		click(t, ctx, `button[data-cmd="report"]`)
		until(t, ctx, "the prompt to choose", `document.getElementById("reply").textContent.includes("choose what happened first") && `+visible("#reply"))
		if evaluate[bool](t, ctx, `!!document.getElementById("confirm")`) || sent() != 1 {
			t.Fatalf("a report with no kind asked or sent: %d", sent())
		}
		do(t, ctx, chromedp.SetValue(chromedp.ID("report-kind"), "wrong_hand"), chromedp.SendKeys(chromedp.ID("report-detail"), "P2 dealt to banker"))
		click(t, ctx, `button[data-cmd="report"]`)
		until(t, ctx, "Report's question", visible("#confirm"))
		if got := text(t, ctx, "#confirm .confirm-text"); got != "Report wrong hand at round 81 now: the table is held until a supervisor decides (RWS Baccarat 5.8); the players may get the options of RWS Baccarat 5.12." {
			t.Errorf("Report asks %q", got)
		}
		shot(t, ctx, sc, "confirm-report")
		if n := sent(); n != 1 {
			t.Fatalf("a tap on Report sent a command: %d in all", n)
		}
		click(t, ctx, "#confirm-yes")
		until(t, ctx, "the report's answer", `document.getElementById("reply").classList.contains("ok")`)
		if s := tc.table.sent(); len(s) != 2 || !strings.Contains(s[1].payload, `"kind":"wrong_hand"`) || !strings.Contains(s[1].payload, `"detail":"P2 dealt to banker"`) {
			t.Fatalf("the report sent: %v", s)
		}

		// The supervisor's decisions, each asked once more.
		tc.srv.Ingest("tablectl/v1/t1/state", []byte(heldState))
		if _, err := chromedp.Run(ctx, chromedp.Click(chromedp.ID("logout"))); err != nil {
			t.Fatal(err)
		}
		until(t, ctx, "logged out", `location.pathname === "/login.html" && document.readyState === "complete"`)
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		openTable(t, ctx, tc.http.URL, "t1")
		until(t, ctx, "the decisions", `document.querySelectorAll("#decisions button").length === 2`)
		labels := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#decisions button")].map((b) => b.textContent)`)
		if strings.Join(labels, ",") != "Reconstructed,Void the round" {
			t.Errorf("decision buttons: %v", labels)
		}
		for _, choice := range []string{"reconstructed", "void"} {
			click(t, ctx, `#decisions button[data-choice="`+choice+`"]`)
			until(t, ctx, choice+"'s question", visible("#confirm"))
			if n := sent(); n != 2 {
				t.Fatalf("a tap on %s sent a command: %d in all", choice, n)
			}
			if choice == "void" {
				if got := text(t, ctx, "#confirm .confirm-text"); !strings.Contains(got, "every bet is returned (RWS Baccarat 5.15)") {
					t.Errorf("void asks %q", got)
				}
				shot(t, ctx, sc, "confirm-decision")
				click(t, ctx, "#confirm-yes")
			} else {
				click(t, ctx, "#confirm-cancel")
			}
		}
		until(t, ctx, "the decision's answer, on screen", `document.getElementById("reply").classList.contains("ok") && `+visible("#reply"))
		if s := tc.table.sent(); len(s) != 3 || !strings.Contains(s[2].payload, `"choice":"void"`) || !strings.Contains(s[2].payload, `"cmd":"decide"`) {
			t.Fatalf("the decision sent: %v", s)
		}
		// The hold ends: the banner goes, the answer stays on screen.
		tc.srv.Ingest("tablectl/v1/t1/state", []byte(dealing("t1", "rws")))
		until(t, ctx, "the answer after the hold", `document.getElementById("held").hidden && document.getElementById("reply").textContent.startsWith("Void the round: done") && `+visible("#reply"))
		shot(t, ctx, sc, "answer-decision")
	})
}

// raisedBy is table id's message raising hold #3 (a wrong hand) as reported by dealer D4
// with a note, at.
func raisedBy(id string, at time.Time) string {
	return fmt.Sprintf(`{"schema":2,"table":%q,"shoe":3,"round":81,"seq":39,"at":%q,"event":"raised","id":3,"kind":"wrong_hand",
"rule":"RWS Baccarat 5.8","reason":"P2 went to the banker's box, the player saw it (RWS Baccarat 5.8)","role":"dealer","actor":"D4"}`, id, at.UTC().Format(time.RFC3339Nano))
}

// heldBy is table id's state held for that wrong hand.
func heldBy(id, rules, rule string) string {
	return fmt.Sprintf(`{"schema":2,"table":%q,"shoe":3,"round":81,"seq":501,"at":"2026-11-23T08:00:00Z","phase":"dealing","rules":%q,"decks":8,
"held":{"id":3,"kind":"wrong_hand","rule":%q,"display":"A card was dealt to the wrong hand",
"reason":"P2 went to the banker's box, the player saw it (%s)","choices":["reconstructed","continue"],"decided_by":"supervisor"}}`, id, rules, rule, rule)
}

// TestHoldDrawsAttentionInBrowser: a hold and a supervisor call change the tab's title
// and show a banner on the floor and on another table's page; the sound is off until
// the person turns it on, then plays for each new hold or call; the held table's page
// shows who reported it, the dealer's note in full and how long it has been held; the
// dealer calls a supervisor from the console.
func TestHoldDrawsAttentionInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsole(t)
		replyAsTable(tc)
		for _, id := range []string{"t1", "t2", "t3"} {
			online(tc, id, "rws")
			tc.srv.Ingest("tablectl/v1/"+id+"/state", []byte(dealing(id, "rws")))
		}
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		if evaluate[bool](t, ctx, `document.getElementById("sound").checked`) {
			t.Error("the sound is on before anyone turned it on")
		}
		if title := evaluate[string](t, ctx, `document.title`); title != "tablectl console: the floor" {
			t.Errorf("title with nothing held: %q", title)
		}
		tc.srv.Ingest("tablectl/v1/t1/irregularity", []byte(raisedBy("t1", time.Now().Add(-2*time.Minute))))
		tc.srv.Ingest("tablectl/v1/t1/state", []byte(heldBy("t1", "rws", "RWS Baccarat 5.8")))
		until(t, ctx, "the title", `document.title === "(1 HELD) tablectl console: the floor"`)
		until(t, ctx, "the banner", `document.querySelector("#attention .att.held") !== null && `+visible("#attention"))
		if got := text(t, ctx, "#attention"); !strings.Contains(got, "t1 HELD: wrong hand · 2 min") {
			t.Errorf("banner: %q", got)
		}
		if n := evaluate[string](t, ctx, `document.body.dataset.beeps || "0"`); n != "0" {
			t.Errorf("%s beeps with the sound off", n)
		}
		click(t, ctx, "#sound")
		until(t, ctx, "the sound on", `document.getElementById("sound").checked && document.body.dataset.beeps === "1"`)
		tc.srv.Ingest("tablectl/v1/t2/status", []byte(`{"schema":2,"table":"t2","state":"online","rules":"rws","call":"supervisor"}`))
		until(t, ctx, "the call", `document.title === "(1 HELD, 1 CALL) tablectl console: the floor" && document.body.dataset.beeps === "2"`)
		shot(t, ctx, sc, "floor-held-call")

		// Another table's page shows the banner too; the held table's page shows the hold
		// in full.
		openTable(t, ctx, tc.http.URL, "t3")
		until(t, ctx, "the banner on t3's page", `document.querySelectorAll("#attention .att").length === 2 && `+visible("#attention")+
			` && document.title === "(1 HELD, 1 CALL) tablectl console: table t3"`)
		openTable(t, ctx, tc.http.URL, "t1")
		until(t, ctx, "the hold in full", `document.getElementById("held-who").textContent !== "" && document.getElementById("held-since").textContent !== ""`)
		if got := text(t, ctx, "#held-who"); got != "Reported by dealer D4. Note: P2 went to the banker's box, the player saw it" {
			t.Errorf("who reported: %q", got)
		}
		if got := text(t, ctx, "#held-since"); !strings.HasPrefix(got, "Held for 2 min") {
			t.Errorf("held since: %q", got)
		}
		if !shown(t, ctx, "#held-who") {
			t.Error("the dealer's note is not on screen")
		}
		shot(t, ctx, sc, "table-held")

		// A dealer calls a supervisor from the console.
		if _, err := chromedp.Run(ctx, chromedp.Click(chromedp.ID("logout"))); err != nil {
			t.Fatal(err)
		}
		until(t, ctx, "logged out", `location.pathname === "/login.html" && document.readyState === "complete"`)
		loginPage(t, ctx, tc.http.URL, "D4", "dealer-password-4")
		openTable(t, ctx, tc.http.URL, "t1")
		until(t, ctx, "the call button", `!!document.getElementById("call-button")`)
		n := len(tc.table.sent())
		click(t, ctx, "#call-button")
		until(t, ctx, "the call's answer", `document.getElementById("reply").classList.contains("ok")`)
		if s := tc.table.sent(); len(s) != n+1 || !strings.Contains(s[n].payload, `"cmd":"call_supervisor"`) || s[n].topic != "tablectl/v1/t1/cmd/dealer" {
			t.Fatalf("the call sent: %v", s[n:])
		}
		tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":2,"table":"t1","state":"online","rules":"rws","call":"supervisor"}`))
		until(t, ctx, "the call shown", `document.getElementById("call-button").textContent === "End the call" && !document.getElementById("call").hidden`)
	})
}

// TestExpiredSessionSaysSoInBrowser: a floor screen left watching past the idle time
// goes to the login page, which says the session ended.
func TestExpiredSessionSaysSoInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsoleWith(t, nil, func(o *Options) { o.Heartbeat = 200 * time.Millisecond })
		online(tc, "t1", "rws")
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		tc.clock.add(11 * time.Minute)
		until(t, ctx, "the login page", `location.pathname === "/login.html" && !document.getElementById("why").hidden`)
		if got := text(t, ctx, "#why"); !strings.Contains(got, "Your session has ended") {
			t.Errorf("the login page says %q", got)
		}
		shot(t, ctx, sc, "login-expired")
		// A person who logs out is not told the session expired.
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		if _, err := chromedp.Run(ctx, chromedp.Click(chromedp.ID("logout"))); err != nil {
			t.Fatal(err)
		}
		until(t, ctx, "logged out", `location.pathname === "/login.html" && document.readyState === "complete"`)
		if !evaluate[bool](t, ctx, `document.getElementById("why").hidden`) {
			t.Error("the login page after logging out says the session expired")
		}
	})
}

// TestNCInsuranceHoldCitesItsRulesInBrowser: at an NC Insurance table a hold's choices
// cite NC Insurance (its 5.16 for a void, its 5.12 for the players' options), never RWS
// Baccarat; the rule set shows by name; the report list offers "Insurance not offered".
func TestNCInsuranceHoldCitesItsRulesInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsole(t)
		online(tc, "t1", "nc-insurance")
		tc.srv.Ingest("tablectl/v1/t1/state", []byte(`{"schema":2,"table":"t1","shoe":2,"round":7,"seq":40,"phase":"dealing","rules":"nc-insurance","decks":8,
"held":{"id":5,"kind":"incorrect_cards","rule":"NC Insurance 5.5.3","display":"A card the table cannot account for",
"reason":"card numbers 41 to 42 passed unread (NC Insurance 5.5.3)","choices":["continue","void"],"decided_by":"supervisor"}}`))
		online(tc, "t2", "nc-insurance")
		tc.srv.Ingest("tablectl/v1/t2/state", []byte(heldBy("t2", "nc-insurance", "NC Insurance 5.8")))
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		openTable(t, ctx, tc.http.URL, "t1")
		until(t, ctx, "the decisions", `document.querySelectorAll("#decisions .why").length === 2`)
		whys := evaluate[[]string](t, ctx, `[...document.querySelectorAll("#decisions .why")].map((e) => e.textContent)`)
		if len(whys) != 2 || !strings.Contains(whys[1], "The round is void (NC Insurance 5.5.3)") || !strings.Contains(whys[1], "every bet is returned (NC Insurance 5.16)") ||
			!strings.Contains(whys[0], "set aside") || strings.Contains(strings.Join(whys, " "), "RWS") {
			t.Errorf("NC Insurance choices say %q", whys)
		}
		if got := text(t, ctx, "#rules"); got != "NC Insurance" {
			t.Errorf("rule set shown as %q", got)
		}
		kinds := evaluate[string](t, ctx, `[...document.getElementById("report-kind").options].map((o) => o.value).join()`)
		if !strings.Contains(kinds, "insurance_not_offered") {
			t.Errorf("NC Insurance report kinds: %s", kinds)
		}
		shot(t, ctx, sc, "table-nc-insurance-held")
		openTable(t, ctx, tc.http.URL, "t2")
		until(t, ctx, "the decisions", `document.querySelectorAll("#decisions .why").length === 2`)
		whys = evaluate[[]string](t, ctx, `[...document.querySelectorAll("#decisions .why")].map((e) => e.textContent)`)
		if !strings.Contains(whys[1], "play goes on as dealt (NC Insurance 5.8)") || !strings.Contains(whys[1], "have the bet returned (NC Insurance 5.12)") ||
			strings.Contains(strings.Join(whys, " "), "RWS") {
			t.Errorf("NC Insurance wrong hand's choices say %q", whys)
		}
	})
}

// TestOfflineTableShowsLastKnownInBrowser: an offline table's tile is greyed and marked
// as its last known state, without "Devices connected"; its page says it is offline and
// offers no command.
func TestOfflineTableShowsLastKnownInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsole(t)
		online(tc, "t1", "rws")
		tc.srv.Ingest("tablectl/v1/t1/state", []byte(dealing("t1", "rws")))
		tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":2,"table":"t1","state":"offline","rules":"rws","at":"2026-11-23T08:00:05Z","devices":{"shoe":"connected","shuffler":"connected"}}`))
		online(tc, "t2", "rws")
		tc.srv.Ingest("tablectl/v1/t2/state", []byte(dealing("t2", "rws")))
		loginPage(t, ctx, tc.http.URL, "D4", "dealer-password-4")
		until(t, ctx, "t1 offline", `document.querySelector('.tile[data-table="t1"]').classList.contains("offline")`)
		tile := evaluate[string](t, ctx, `document.querySelector('.tile[data-table="t1"]').innerText`)
		if !strings.Contains(tile, "LAST KNOWN") || !strings.Contains(tile, "OFFLINE") || strings.Contains(tile, "Devices connected") {
			t.Errorf("offline tile: %q", tile)
		}
		if f := evaluate[string](t, ctx, `getComputedStyle(document.querySelector('.tile[data-table="t1"]')).backgroundColor`); f == "rgb(255, 255, 255)" {
			t.Error("the offline tile is not greyed")
		}
		shot(t, ctx, sc, "floor-offline")
		openTable(t, ctx, tc.http.URL, "t1")
		until(t, ctx, "the offline note", visible("#offline-note"))
		if n := evaluate[int](t, ctx, `[...document.querySelectorAll("button[data-cmd]")].filter((b) => b.offsetParent !== null).length`); n != 0 {
			t.Errorf("an offline table's page offers %d commands", n)
		}
		if got := text(t, ctx, "#offline-note"); !strings.Contains(got, "Table t1 is offline: what is shown is its last known state") {
			t.Errorf("offline note: %q", got)
		}
		shot(t, ctx, sc, "table-offline")
	})
}

// TestReadableOnBothScreensInBrowser: the header holds on one line and the
// irregularities fit, on the tablet too; Banker red is not the held colour; the
// dealer's own tables are marked; the floor uses the screen's width.
func TestReadableOnBothScreensInBrowser(t *testing.T) {
	t.Parallel()
	eachScreen(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsole(t)
		for _, id := range []string{"t1", "t2", "t3"} {
			online(tc, id, "nc-insurance")
			tc.srv.Ingest("tablectl/v1/"+id+"/state", []byte(dealing(id, "nc-insurance")))
		}
		tc.srv.Ingest("tablectl/v1/t1/result", []byte(`{"schema":2,"table":"t1","shoe":3,"round":80,"seq":499,"winner":"banker","player_points":3,"banker_points":7}`))
		tc.srv.Ingest("tablectl/v1/t1/state", []byte(heldBy("t1", "nc-insurance", "NC Insurance 5.8")))
		for i := 1; i <= 4; i++ {
			tc.srv.Ingest("tablectl/v1/t1/irregularity", []byte(fmt.Sprintf(`{"schema":2,"table":"t1","shoe":3,"round":%d,"seq":%d,"at":"2026-11-23T08:0%d:00Z","event":"raised","id":%d,
"kind":"insurance_not_offered","rule":"NC Insurance 5.13","reason":"a card was drawn with the Player Insurance offer still open after four cards (NC Insurance 5.13)"}`, i, 30+i, i, i)))
		}
		loginPage(t, ctx, tc.http.URL, "D4", "dealer-password-4")
		until(t, ctx, "three tiles", `document.querySelectorAll(".tile").length === 3`)
		if mine := evaluate[[]string](t, ctx, `[...document.querySelectorAll(".tile.mine")].map((e) => e.dataset.table)`); fmt.Sprint(mine) != "[t1]" {
			t.Errorf("tiles marked as D4's: %v", mine)
		}
		if !shown(t, ctx, `.tile[data-table="t1"] .mine-tag`) {
			t.Error("D4's table is not marked YOUR TABLE")
		}
		if right := evaluate[float64](t, ctx, `Math.max(...[...document.querySelectorAll(".tile")].map((e) => e.getBoundingClientRect().right))`); right < float64(sc.w)*0.9 {
			t.Errorf("the tiles reach %v of a %d-wide screen", right, sc.w)
		}
		if rs := evaluate[string](t, ctx, `document.querySelector('.tile[data-table="t2"] .phase-line').textContent`); !strings.Contains(rs, "NC\u00a0Insurance") || strings.Contains(rs, "nc-insurance") {
			t.Errorf("rule set on the tile: %q", rs)
		}
		shot(t, ctx, sc, "floor")
		openTable(t, ctx, tc.http.URL, "t1")
		until(t, ctx, "the irregularities", `document.querySelectorAll("#irregs tr").length === 4`)
		if h := evaluate[bool](t, ctx, `(() => { const t = document.querySelector("header.top"); return t.scrollWidth <= t.clientWidth && t.getBoundingClientRect().height < 80; })()`); !h {
			t.Errorf("the header wraps or overflows: %v", evaluate[string](t, ctx, `JSON.stringify(document.querySelector("header.top").getBoundingClientRect())`))
		}
		if !evaluate[bool](t, ctx, `(() => { const t = document.querySelector("table.irregs"); return t.scrollWidth <= t.parentElement.clientWidth && document.documentElement.scrollWidth <= innerWidth; })()`) {
			t.Error("the irregularities overflow")
		}
		banker := evaluate[string](t, ctx, `getComputedStyle(document.querySelector(".hand-name", "#banker-hand")).color + "|" + getComputedStyle(document.querySelector("#banker-hand .hand-name")).color`)
		held := evaluate[string](t, ctx, `getComputedStyle(document.getElementById("held")).backgroundColor`)
		if strings.Contains(banker, held) {
			t.Errorf("Banker %s and held %s are one colour", banker, held)
		}
		if got := text(t, ctx, "#irregs tr .note"); !strings.Contains(got, "a card was drawn with the Player Insurance offer") {
			t.Errorf("the irregularity's reason is not shown in full: %q", got)
		}
		shot(t, ctx, sc, "table")
	})
}

// TestBrokerLostAndBackInBrowser: Mosquitto stopped, the console's pages say the
// console cannot reach its broker, are not live, and show every table's state as
// unknown, not offline; a command given meanwhile is answered that it was not sent, and
// why; Mosquitto started again, the pages say the broker is back, and are live.
func TestBrokerLostAndBackInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		b := mosquittotest.Start(t, mosquittotest.Config{})
		var srv *Server
		ready := make(chan struct{})
		link, err := Dial(LinkOptions{Broker: b.URL(), Logger: slog.New(slog.DiscardHandler),
			OnState: func(up bool, reason string) {
				<-ready
				srv.SetBroker(up, reason)
			}}, func(topic string, payload []byte) {
			<-ready
			srv.Ingest(topic, payload)
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { link.Close() })
		tc := newTestConsoleWith(t, nil, func(o *Options) {
			o.Publisher = link
			o.LinkPending = true
		})
		srv = tc.srv
		close(ready)
		for _, id := range []string{"t1", "t2"} {
			online(tc, id, "rws")
			tc.srv.Ingest("tablectl/v1/"+id+"/state", []byte(dealing(id, "rws")))
		}
		loginPage(t, ctx, tc.http.URL, "D4", "dealer-password-4")
		until(t, ctx, "the broker reached", `document.body.dataset.broker === "up" && document.querySelectorAll(".tile.unknown").length === 0`)

		b.Stop()
		until(t, ctx, "the broker lost", `document.body.dataset.broker === "down" && `+visible("#broker-notice"))
		if got := text(t, ctx, "#broker-notice"); !strings.Contains(got, "The console cannot reach its broker since") || !strings.Contains(got, "Every table's state is unknown") {
			t.Errorf("broker notice: %q", got)
		}
		until(t, ctx, "the tiles unknown", `document.querySelectorAll(".tile.unknown").length === 2 && document.querySelectorAll(".tile.offline").length === 0`)
		if got := text(t, ctx, "#link"); got != "Not live" {
			t.Errorf("the live badge with the broker lost: %q", got)
		}
		if got := text(t, ctx, "#count-offline"); got != "state unknown" {
			t.Errorf("the floor's count: %q", got)
		}
		if tile := evaluate[string](t, ctx, `document.querySelector(".tile").innerText`); strings.Contains(tile, "OFFLINE") || !strings.Contains(tile, "STATE UNKNOWN") {
			t.Errorf("a tile with the broker lost: %q", tile)
		}
		shot(t, ctx, sc, "floor-broker-lost")
		openTable(t, ctx, tc.http.URL, "t1")
		until(t, ctx, "the table's state unknown", `document.body.dataset.broker === "down" && !document.getElementById("unknown").hidden && document.getElementById("offline").hidden`)
		click(t, ctx, `button[data-cmd="confirm"]`)
		until(t, ctx, "the command's answer", `document.getElementById("reply").classList.contains("refused") && `+visible("#reply"))
		if got := text(t, ctx, "#reply"); !strings.Contains(got, "Confirm result: not sent: the console cannot reach its broker") || !strings.Contains(got, "did not reach table t1") {
			t.Errorf("the command's answer: %q", got)
		}
		shot(t, ctx, sc, "table-broker-lost")

		b.StartAgain()
		until(t, ctx, "the broker back", `document.body.dataset.broker === "up" && `+visible("#broker-notice")+` && document.getElementById("link").textContent === "Live"`)
		if got := text(t, ctx, "#broker-notice"); !strings.Contains(got, "The console reaches its broker again since") {
			t.Errorf("broker notice once back: %q", got)
		}
		shot(t, ctx, sc, "table-broker-back")
	})
}
