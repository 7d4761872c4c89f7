package console

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// logout logs the page's person out, with the header's button.
func logout(t *testing.T, ctx context.Context) {
	t.Helper()
	click(t, ctx, "#logout")
	until(t, ctx, "logged out", `location.pathname === "/login.html" && document.readyState === "complete"`)
}

// setClock moves the test console's clock to at.
func setClock(tc *testConsole, at time.Time) { tc.clock.add(at.Sub(tc.clock.now())) }

// TestHistoryOpensOnTheLastHourInBrowser: History opened without a search searches the
// last hour of the person's tables by the console's clock, and says the range it
// searched; the From and To fields hold it, and the page's address stays its own. A
// supervisor of pit3 gets t1's rounds alone; a supervisor of every table gets both
// tables'; an hour with no round says so, with its range.
func TestHistoryOpensOnTheLastHourInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := historyConsole(t)
		// The archive's rounds ended at 03:40:54 UTC on 27 November.
		setClock(tc, time.Date(2026, 11, 27, 4, 10, 0, 0, time.UTC))
		open := func() {
			t.Helper()
			if _, err := chromedp.Run(ctx, chromedp.Navigate(tc.http.URL+"/history.html")); err != nil {
				t.Fatal(err)
			}
			until(t, ctx, "the search on load", `document.body.dataset.ready === "1" && document.body.dataset.searched === "1"`)
		}
		loginPage(t, ctx, tc.http.URL, "S5", "supervisor-pass-5")
		open()
		if got := text(t, ctx, "#count"); got != "42 rounds" {
			t.Errorf("S5's last hour: %q", got)
		}
		if tables := evaluate[string](t, ctx, `[...new Set([...document.querySelectorAll(".round-row")].map((r) => r.dataset.round.split("/")[0]))].join()`); tables != "t1" {
			t.Errorf("S5's last hour lists tables %s, want t1 (pit3) alone", tables)
		}
		for field, want := range map[string]string{"f-from": "2026-11-27T03:10:00.000Z", "f-to": "2026-11-27T04:10:00.000Z"} {
			if got := evaluate[string](t, ctx, `new Date(document.getElementById("`+field+`").value).toISOString()`); got != want {
				t.Errorf("%s holds %s, want %s", field, got, want)
			}
		}
		want := "The last hour: rounds ended from " + evaluate[string](t, ctx, `(() => { const p = (n) => String(n).padStart(2, "0");
			const w = (d) => d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate()) + " " + p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds());
			return w(new Date("2026-11-27T03:10:00Z")) + " to " + w(new Date("2026-11-27T04:10:00Z")); })()`) +
			", at your tables: the tables of pit3."
		if got := text(t, ctx, "#range"); got != want || !shown(t, ctx, "#range") {
			t.Errorf("the range shown: %q, want %q", got, want)
		}
		if got := evaluate[string](t, ctx, `location.search`); got != "" {
			t.Errorf("the page's address became %q: opened again, it would not search the hour before then", got)
		}
		if href := evaluate[string](t, ctx, `document.getElementById("csv").getAttribute("href")`); !strings.Contains(href, "from=2026-11-27T03%3A10%3A00.000Z") {
			t.Errorf("CSV link %q: not the hour searched", href)
		}
		shot(t, ctx, sc, "history-last-hour")

		logout(t, ctx)
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		open()
		if got := text(t, ctx, "#count"); got != "50 rounds, more to load" {
			t.Errorf("S17's last hour: %q", got)
		}
		if got := text(t, ctx, "#range"); !strings.HasSuffix(got, ", at every table.") {
			t.Errorf("S17's range: %q", got)
		}

		// An hour later: nothing ended in the last hour, and the page says what it searched.
		setClock(tc, time.Date(2026, 11, 27, 5, 30, 0, 0, time.UTC))
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		open()
		if got := text(t, ctx, "#count"); got != "No round found" {
			t.Errorf("an hour with no round: %q", got)
		}
		if got := evaluate[string](t, ctx, `new Date(document.getElementById("f-from").value).toISOString()`); got != "2026-11-27T04:30:00.000Z" {
			t.Errorf("from %s after an hour", got)
		}
		shot(t, ctx, sc, "history-last-hour-none")
	})
}

// TestTableHeaderShowsRuleSetWholeInBrowser: the table page's header holds on one line
// with the rule set whole, for each rule set, at a table held (the phase's longest text)
// with an id as a floor names its tables (pit3-bac07), at a table offline, and with the
// broker lost. On the podium's 1920 screen the decks are shown whole too; on the tablet
// they may go, the rule set's name staying whole.
func TestTableHeaderShowsRuleSetWholeInBrowser(t *testing.T) {
	t.Parallel()
	names := map[string]string{"classic": "Classic", "rws": "RWS Baccarat", "nc-tournament": "NC Tournament",
		"nc-insurance": "NC Insurance", "royal": "Royal Baccarat"}
	order := []string{"classic", "rws", "nc-tournament", "nc-insurance", "royal"}
	id := func(rules string) string { return fmt.Sprintf("pit3-bac%02d", slices.Index(order, rules)+7) }
	eachScreen(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsole(t)
		for _, rules := range order {
			online(tc, id(rules), rules)
			tc.srv.Ingest("tablectl/v1/"+id(rules)+"/state", []byte(heldBy(id(rules), rules, "RWS Baccarat 5.8")))
		}
		tc.srv.Ingest("tablectl/v1/pit3-bac12/status", []byte(`{"schema":2,"table":"pit3-bac12","state":"offline","rules":"nc-tournament","decks":8}`))
		tc.srv.Ingest("tablectl/v1/pit3-bac12/state", []byte(dealing("pit3-bac12", "nc-tournament")))
		check := func(what, rules string) {
			t.Helper()
			header := evaluate[string](t, ctx, `(() => { const t = document.querySelector("header.top"), r = t.querySelector(".rules"), d = document.getElementById("decks");
				const tr = t.getBoundingClientRect(), rr = r.getBoundingClientRect();
				return [t.scrollWidth <= t.clientWidth && tr.height < 80, r.scrollWidth <= r.clientWidth && rr.left >= tr.left && rr.right <= tr.right,
					r.innerText, d.offsetParent !== null].join("|"); })()`)
			parts := strings.Split(header, "|")
			if parts[0] != "true" {
				t.Errorf("%s: the header wraps or overflows", what)
			}
			if parts[1] != "true" {
				t.Errorf("%s: the rule set is cut: %q", what, parts[2])
				t.Log(evaluate[string](t, ctx, `(() => { const t = document.querySelector("header.top"); return t.className + " " + t.scrollWidth + "/" + t.clientWidth + " " +
					[...t.children].map((e) => e.className + ":" + e.getBoundingClientRect().width + "/" + e.scrollWidth).join(" "); })()`))
			}
			switch want := names[rules] + " · 8 decks"; {
			case sc.name == "1920" && (parts[2] != want || parts[3] != "true"):
				t.Errorf("%s at 1920: the header shows %q (decks shown: %s), want %q whole", what, parts[2], parts[3], want)
			case sc.name != "1920" && !strings.HasPrefix(parts[2], names[rules]):
				t.Errorf("%s on the tablet: the header shows %q, want the rule set's name %q whole", what, parts[2], names[rules])
			}
		}
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		for _, rules := range order {
			openTable(t, ctx, tc.http.URL, id(rules))
			until(t, ctx, "the hold", `!document.getElementById("held").hidden && document.getElementById("rules").textContent !== ""`)
			check(rules+", held", rules)
			shot(t, ctx, sc, "header-"+rules)
		}
		openTable(t, ctx, tc.http.URL, "pit3-bac12")
		until(t, ctx, "the table offline", `!document.getElementById("offline").hidden`)
		check("nc-tournament, offline", "nc-tournament")
		shot(t, ctx, sc, "header-offline")
		tc.srv.SetBroker(false, "connection refused")
		openTable(t, ctx, tc.http.URL, id("nc-tournament"))
		until(t, ctx, "the broker lost", `!document.getElementById("unknown").hidden && !document.getElementById("held").hidden && document.getElementById("link").textContent === "Not live"`)
		check("nc-tournament, held, broker lost", "nc-tournament")
		shot(t, ctx, sc, "header-broker-lost")
	})
}

// heldFromState is table id's state held for irregularity #3, a wrong hand (RWS Baccarat
// 5.8), with who reported it (role and actor, none when the table raised it) and when,
// as the table publishes it; raised zero leaves them out, as a table before them did.
func heldFromState(id, kind, reason, role, actor string, raised time.Time) string {
	extra := ""
	if role != "" {
		extra += fmt.Sprintf(`,"role":%q,"actor":%q`, role, actor)
	}
	if !raised.IsZero() {
		extra += fmt.Sprintf(`,"raised":%q`, raised.UTC().Format(time.RFC3339Nano))
	}
	return fmt.Sprintf(`{"schema":2,"table":%q,"shoe":3,"round":81,"seq":501,"at":"2026-11-23T08:00:00Z","phase":"dealing","rules":"rws","decks":8,
"held":{"id":3,"kind":%q,"rule":"RWS Baccarat 5.8","display":"A card was dealt to the wrong hand",
"reason":%q,"choices":["reconstructed","continue"],"decided_by":"supervisor"%s}}`, id, kind, reason, extra)
}

// TestHoldFromTheRetainedStateInBrowser: a console started while tables are held has
// only their retained state. The hold reads as it would had the console seen it
// raised: who reported it (a dealer's report with no note), or what the table saw, and
// since when. The shoe's irregularities list it. The raised message, should it come,
// takes the row's place. A table whose state names no reporter, but whose reason says a
// dealer reported it, is not said to have raised it itself.
func TestHoldFromTheRetainedStateInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsole(t)
		raised := time.Now().Add(-3 * time.Minute) // the page counts by the screen's clock
		online(tc, "t1", "rws")
		tc.srv.Ingest("tablectl/v1/t1/state", []byte(heldFromState("t1", "wrong_hand", "reported by the dealer (RWS Baccarat 5.8)", "dealer", "D4", raised)))
		online(tc, "t2", "rws")
		tc.srv.Ingest("tablectl/v1/t2/state", []byte(heldFromState("t2", "simultaneous_draw", "9H read 40ms after the card before it, by the shoe's clock (RWS Baccarat 5.8)", "", "", raised)))
		online(tc, "t3", "rws")
		tc.srv.Ingest("tablectl/v1/t3/state", []byte(heldFromState("t3", "wrong_hand", "reported by the dealer (RWS Baccarat 5.8)", "", "", time.Time{})))
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		row := func() string {
			return evaluate[string](t, ctx, `[...document.querySelectorAll("#irregs tr")].map((r) => [...r.cells].slice(0, 7).map((c) => c.firstChild ? c.firstChild.textContent : "").join("|")).join("\n")`)
		}

		openTable(t, ctx, tc.http.URL, "t1")
		until(t, ctx, "the hold", `!document.getElementById("held").hidden && document.getElementById("held-since").textContent !== ""`)
		if got := text(t, ctx, "#held-who"); got != "Reported by dealer D4. No note given." {
			t.Errorf("t1 who: %q", got)
		}
		if got := text(t, ctx, "#held-since"); !strings.HasPrefix(got, "Held for 3 min") {
			t.Errorf("t1 since: %q, want the time it was raised", got)
		}
		until(t, ctx, "the hold listed", `document.querySelectorAll("#irregs tr").length === 1`)
		if got := row(); got != "#3|81|raised|wrong hand|RWS Baccarat 5.8|awaiting: reconstructed / continue|dealer D4" {
			t.Errorf("t1's irregularities: %q", got)
		}
		shot(t, ctx, sc, "table-held-from-state")
		// The raised message comes after all: it takes the row's place.
		tc.srv.Ingest("tablectl/v1/t1/irregularity", []byte(raisedBy("t1", raised)))
		until(t, ctx, "the raised message", `document.querySelector("#irregs tr .note") !== null`)
		if n := evaluate[int](t, ctx, `document.querySelectorAll("#irregs tr").length`); n != 1 {
			t.Errorf("%d rows for one irregularity: %q", n, row())
		}

		openTable(t, ctx, tc.http.URL, "t2")
		until(t, ctx, "t2's hold", `!document.getElementById("held").hidden && document.querySelectorAll("#irregs tr").length === 1`)
		if got := text(t, ctx, "#held-who"); got != "Raised by the table: 9H read 40ms after the card before it, by the shoe's clock" {
			t.Errorf("t2 who: %q", got)
		}
		if got := row(); !strings.HasPrefix(got, "#3|81|raised|cards drawn together") || !strings.HasSuffix(got, "|") {
			t.Errorf("t2's irregularities: %q", got)
		}

		openTable(t, ctx, tc.http.URL, "t3")
		until(t, ctx, "t3's hold", `!document.getElementById("held").hidden && document.getElementById("held-since").textContent !== ""`)
		if got := text(t, ctx, "#held-who"); got != "Reported by a dealer. No note given." {
			t.Errorf("t3 who: %q", got)
		}
		if got := text(t, ctx, "#held-since"); !strings.HasPrefix(got, "Held for at least") {
			t.Errorf("t3 since: %q", got)
		}
	})
}

// visibleCmds is a script listing the commands the page offers: its buttons shown, and
// the Command form's choices.
const visibleCmds = `[...document.querySelectorAll("#actions button[data-cmd]")].filter((b) => b.offsetParent !== null && !b.hidden).map((b) => b.dataset.cmd)
	.concat([...document.getElementById("cmd-name").options].map((o) => "form:" + o.value)).join(" ")`

// TestCallAndInsuranceWhereTheyServeInBrowser: a dealer is offered the call for a Pit
// Supervisor; a supervisor is not, but ends a call that stands. The Insurance commands
// are offered only at a table whose rule set has Insurance (NC Insurance 3.11, 3.12), and
// not at one set to offer none (NC Insurance 4.2.2).
func TestCallAndInsuranceWhereTheyServeInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsole(t)
		online(tc, "t1", "classic")
		tc.srv.Ingest("tablectl/v1/t1/state", []byte(dealing("t1", "classic")))
		online(tc, "t2", "nc-insurance")
		tc.srv.Ingest("tablectl/v1/t2/state", []byte(dealing("t2", "nc-insurance")))
		tc.srv.Ingest("tablectl/v1/t3/status", []byte(`{"schema":2,"table":"t3","state":"online","rules":"nc-insurance","decks":8,"no_insurance":true}`))
		tc.srv.Ingest("tablectl/v1/t3/state", []byte(dealing("t3", "nc-insurance")))
		offers := func(table string) string {
			t.Helper()
			openTable(t, ctx, tc.http.URL, table)
			until(t, ctx, "the actions", `!!document.getElementById("cmd-name")`)
			return evaluate[string](t, ctx, visibleCmds)
		}

		loginPage(t, ctx, tc.http.URL, "D4", "dealer-password-4")
		got := offers("t1")
		if !strings.Contains(got, "call_supervisor") || strings.Contains(got, "insurance") {
			t.Errorf("a dealer at a classic table is offered %s", got)
		}
		if l := text(t, ctx, "#call-button"); l != "Call a supervisor" || !shown(t, ctx, "#call-button") {
			t.Errorf("the dealer's call button: %q", l)
		}
		shot(t, ctx, sc, "actions-dealer-classic")

		logout(t, ctx)
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		got = offers("t1")
		if strings.Contains(got, "call_supervisor") || strings.Contains(got, "insurance") {
			t.Errorf("a supervisor at a classic table is offered %s", got)
		}
		shot(t, ctx, sc, "actions-supervisor-classic")
		// The dealer calls: the supervisor who came may end the call.
		tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":2,"table":"t1","state":"online","rules":"classic","decks":8,"call":"supervisor"}`))
		until(t, ctx, "the call shown", `!document.getElementById("call").hidden`)
		until(t, ctx, "End the call offered", visible("#call-button")+` && document.getElementById("call-button").textContent === "End the call"`)
		tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":2,"table":"t1","state":"online","rules":"classic","decks":8}`))
		until(t, ctx, "the call gone", `document.getElementById("call").hidden && document.getElementById("call-button").hidden`)

		got = offers("t2")
		if !strings.Contains(got, "insurance_closed") || !strings.Contains(got, "form:insurance_bet") || strings.Contains(got, "call_supervisor") {
			t.Errorf("a supervisor at an NC Insurance table is offered %s", got)
		}
		shot(t, ctx, sc, "actions-supervisor-nc-insurance")
		if got := offers("t3"); strings.Contains(got, "insurance") {
			t.Errorf("an NC Insurance table set to offer no Insurance offers %s", got)
		}
	})
}

// TestLiveBadgeFollowsTheBrokerInBrowser: the badge that says the page is live says so
// only while the console reaches its broker: with the broker lost, the floor and a
// table's page say they are not live; once it is back, they are live again.
func TestLiveBadgeFollowsTheBrokerInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsole(t)
		online(tc, "t1", "rws")
		tc.srv.Ingest("tablectl/v1/t1/state", []byte(dealing("t1", "rws")))
		live := `document.getElementById("link").textContent === "Live"`
		lost := `document.body.dataset.broker === "down" && document.getElementById("link").textContent === "Not live"`
		loginPage(t, ctx, tc.http.URL, "D4", "dealer-password-4")
		until(t, ctx, "the floor live", live)
		tc.srv.SetBroker(false, "connection refused")
		until(t, ctx, "the floor not live", lost+` && `+visible("#link"))
		// The count follows the broker's state in the same render or the next: wait for it.
		until(t, ctx, "the floor's count says the state unknown", `document.getElementById("count-offline").textContent === "state unknown"`)
		shot(t, ctx, sc, "floor-broker-lost-badge")
		openTable(t, ctx, tc.http.URL, "t1")
		until(t, ctx, "the table's page not live", lost+` && !document.getElementById("unknown").hidden && `+visible("#link"))
		shot(t, ctx, sc, "table-broker-lost-badge")
		tc.srv.SetBroker(true, "")
		until(t, ctx, "the table's page live", live+` && document.getElementById("unknown").hidden`)
	})
}
