package console

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/round"
)

// houseRegistry is the standard rule sets with one a test adds: a commission variant of
// RWS Baccarat, named for people "RWS Baccarat, commission", with its own rule for a
// card not of the set and RWS Baccarat's for the rest.
func houseRegistry(t *testing.T) *baccarat.Registry {
	t.Helper()
	rws, _ := baccarat.Standard.Get("rws")
	v := rws.Clone()
	v.Name, v.Display, v.Family = "rws-commission", "RWS Baccarat, commission", baccarat.FamilyBaccarat
	v.Pays.Banker, v.Pays.BankerOnSix = baccarat.O(19, 20), baccarat.Odds{}
	v.Citations["foreign_card"] = "House Rules 7.1"
	reg, err := baccarat.Standard.With(v)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// houseStatus is table id's status, online, as a table of the rule set rules of reg
// publishes it.
func houseStatus(t *testing.T, reg *baccarat.Registry, id, rules string) []byte {
	t.Helper()
	b, err := json.Marshal(messages.NewStatus(round.State{Shoe: 3, Round: 81, Decks: 8, Set: "S3"},
		messages.StatusInfo{Table: id, State: api.Online, Rules: reg.MustLookup(rules, baccarat.Options{}),
			At: time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)}))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRulebookOfARuleSetAddedInATest: a console given a registry with a rule set a test
// adds serves it in its rule book (GET /api/rulebook): its name for people, its rule
// for a card not of the set, RWS Baccarat's void and options rules; a console of the
// standard rule sets does not. The floor's summary of a table playing it names it as the
// table's status does (rules_name).
func TestRulebookOfARuleSetAddedInATest(t *testing.T) {
	t.Parallel()
	reg := houseRegistry(t)
	tc := newTestConsoleWith(t, nil, func(o *Options) { o.Rulebooks = reg })
	tc.srv.Ingest("tablectl/v1/t1/status", houseStatus(t, reg, "t1", "rws-commission"))
	a := tc.login(t, "S17", "supervisor-pass-17")
	code, body := a.get(t, "/api/rulebook")
	if code != 200 {
		t.Fatalf("GET /api/rulebook: %d %s", code, body)
	}
	var book map[string]RuleSetInfo
	if err := json.Unmarshal([]byte(body), &book); err != nil {
		t.Fatal(err)
	}
	h, ok := book["rws-commission"]
	if !ok || h.Name != "RWS Baccarat, commission" || h.Kinds["foreign_card"] != "House Rules 7.1" ||
		h.Kinds["wrong_hand"] != "RWS Baccarat 5.8" || h.Void != "RWS Baccarat 5.15" || h.Options != "RWS Baccarat 5.12" || h.Insurance {
		t.Errorf("the rule book's rws-commission: %+v (there: %v)", h, ok)
	}
	if len(book) != len(baccarat.Names)+1 || book["nc-insurance"].Name != "NC Insurance" {
		t.Errorf("the rule book holds %d rule sets, nc-insurance %+v", len(book), book["nc-insurance"])
	}
	if _, ok := Rulebook()["rws-commission"]; ok {
		t.Error("the standard rule book holds the test's rule set")
	}
	_, body = a.get(t, "/api/tables/t1")
	if !strings.Contains(body, `"rules":"rws-commission","rules_name":"RWS Baccarat, commission"`) {
		t.Errorf("the table's summary: %s", body)
	}
}

// TestRuleSetNameFromStatusInBrowser: the table's page and its tile on the floor name the
// rule set as the table's status does (rules_name): a rule set a test adds, which the
// console's rule book holds, and one it does not hold, named by its table alone.
func TestRuleSetNameFromStatusInBrowser(t *testing.T) {
	t.Parallel()
	reg := houseRegistry(t)
	rws, _ := baccarat.Standard.Get("rws")
	other := rws.Clone()
	other.Name, other.Display = "house-nc", "House Non-Commission"
	tables, err := reg.With(other) // the tables know one more rule set than the console
	if err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	tc := newTestConsoleWith(t, nil, func(o *Options) { o.Rulebooks = reg })
	for id, rules := range map[string]string{"t1": "rws-commission", "t2": "house-nc"} {
		tc.srv.Ingest("tablectl/v1/"+id+"/status", houseStatus(t, tables, id, rules))
		tc.srv.Ingest("tablectl/v1/"+id+"/state", []byte(dealing(id, rules)))
	}
	loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
	for id, name := range map[string]string{"t1": "RWS Baccarat, commission", "t2": "House Non-Commission"} {
		until(t, ctx, "the tile of "+id, `document.querySelector('.tile[data-table="`+id+`"] .phase-line').textContent.includes(`+
			jsString(strings.ReplaceAll(name, " ", "\u00a0"))+`)`)
		openTable(t, ctx, tc.http.URL, id)
		until(t, ctx, "the header of "+id, `document.getElementById("rules").textContent === `+jsString(name))
		if _, err := chromedp.Run(ctx, chromedp.Navigate(tc.http.URL+"/")); err != nil {
			t.Fatal(err)
		}
	}
}
