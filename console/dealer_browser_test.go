package console

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// onlineWith is table id's status naming the dealer on ("" for none).
func onlineWith(tc *testConsole, id, dealer string) {
	tc.srv.Ingest("tablectl/v1/"+id+"/status", []byte(fmt.Sprintf(`{"schema":2,"table":%q,"state":"online","rules":"rws","decks":8,
"devices":{"shoe":"connected","shuffler":"connected"},"dealer":%q}`, id, dealer)))
}

// TestDealerOnInBrowser: the floor's tile and the table's page say who deals, or that no
// dealer is on. A dealer logged in takes the table with one tap ("I deal here") and then
// sees only "I leave"; a supervisor names a dealer without a login, and a dealer on
// with no name is not sent (docs/pit.md, "Dealers").
func TestDealerOnInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsole(t)
		replyAsTable(tc)
		onlineWith(tc, "t1", "")
		onlineWith(tc, "t2", "Mei Ling Tan")
		tc.srv.Ingest("tablectl/v1/t1/state", []byte(dealing("t1", "rws")))
		loginPage(t, ctx, tc.http.URL, "D4", "dealer-password-4")
		until(t, ctx, "the tiles' dealers", `[...document.querySelectorAll('.tile .line.dealer')].map((e) => e.textContent).join('|') !== ''`)
		if got := text(t, ctx, `.tile[data-table="t1"] .line.dealer`); got != "No dealer on" {
			t.Errorf("t1's tile says %q, want No dealer on", got)
		}
		if got := text(t, ctx, `.tile[data-table="t2"] .line.dealer`); got != "Dealer Mei Ling Tan" {
			t.Errorf("t2's tile says %q", got)
		}
		shot(t, ctx, sc, "floor-dealers")

		openTable(t, ctx, tc.http.URL, "t1")
		until(t, ctx, "the dealer's buttons", `!!document.querySelector('button[data-cmd="dealer_on"]')`)
		if got := text(t, ctx, "#dealer"); got != "No dealer on" && got != "No dealer" {
			t.Errorf("the header says %q, want No dealer on", got)
		}
		if !evaluate[bool](t, ctx, `document.querySelector('button[data-cmd="dealer_off"]').hidden`) {
			t.Error("I leave is offered to a dealer who is not on")
		}
		if got := text(t, ctx, `button[data-cmd="dealer_on"]`); got != "I deal here" {
			t.Errorf("the dealer's button reads %q", got)
		}
		click(t, ctx, `button[data-cmd="dealer_on"]`)
		until(t, ctx, "the answer", `document.getElementById("reply").classList.contains("ok")`)
		if s := tc.table.sent(); len(s) != 1 || !strings.Contains(s[0].payload, `"cmd":"dealer_on"`) || !strings.Contains(s[0].payload, `"actor":"D4"`) ||
			strings.Contains(s[0].payload, `"dealer"`) || s[0].topic != "tablectl/v1/t1/cmd/dealer" {
			t.Fatalf("I deal here sent %v", s)
		}
		onlineWith(tc, "t1", "D4")
		until(t, ctx, "the dealer on", `document.getElementById("dealer").textContent === "Dealer D4"`)
		until(t, ctx, "only I leave", `document.querySelector('button[data-cmd="dealer_on"]').hidden && !document.querySelector('button[data-cmd="dealer_off"]').hidden`)
		shot(t, ctx, sc, "table-dealer-on")

		click(t, ctx, "#logout")
		until(t, ctx, "logged out", `location.pathname === "/login.html" && document.readyState === "complete"`)
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		openTable(t, ctx, tc.http.URL, "t1")
		until(t, ctx, "the supervisor's dealer form", `!!document.getElementById("dealer-name")`)
		click(t, ctx, `#dealer-group button[data-cmd="dealer_on"]`)
		until(t, ctx, "the prompt to name the dealer", `document.getElementById("reply").textContent.includes("Name the dealer")`)
		if n := len(tc.table.sent()); n != 1 {
			t.Fatalf("a dealer on with no name was sent: %d commands in all", n)
		}
		evaluate[bool](t, ctx, `(() => { const i = document.getElementById("dealer-name"); i.value = "Mei Ling Tan"; return true; })()`)
		click(t, ctx, `#dealer-group button[data-cmd="dealer_on"]`)
		until(t, ctx, "the answer", `document.getElementById("reply").classList.contains("ok")`)
		if s := tc.table.sent(); len(s) != 2 || !strings.Contains(s[1].payload, `"dealer":"Mei Ling Tan"`) || s[1].topic != "tablectl/v1/t1/cmd/supervisor" {
			t.Fatalf("the supervisor's dealer on sent %v", s)
		}
		shot(t, ctx, sc, "table-dealer-supervisor")
	})
}
