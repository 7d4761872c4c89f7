package messages

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// TestStatusOfARuleSetAddedInATest: the status of a table playing a rule set a test
// adds, in a registry of its own, names it for people (rules_name) and its family
// (rules_family) from its book, and cites the book's own rule of the irregularity the
// table is held for; a standard rule set's status names it from its book too.
func TestStatusOfARuleSetAddedInATest(t *testing.T) {
	t.Parallel()
	rws, _ := baccarat.Standard.Get("rws")
	v := rws.Clone()
	v.Name, v.Display, v.Family = "rws-commission", "RWS Baccarat, commission", baccarat.FamilyBaccarat
	v.Pays.Banker, v.Pays.BankerOnSix = baccarat.O(19, 20), baccarat.Odds{}
	v.Citations["incorrect_cards"] = "House Rules 7.3"
	reg, err := baccarat.Standard.With(v)
	if err != nil {
		t.Fatal(err)
	}
	rs := reg.MustLookup("rws-commission", baccarat.Options{})
	at := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	st := round.State{Shoe: 2, Round: 5, Decks: 8, Set: "7", Held: round.Held{ID: 3, Kind: irregularities.IncorrectCards}}
	b, err := json.Marshal(NewStatus(st, StatusInfo{Table: "t1", State: api.Online, Rules: rs, At: at}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"rules":"rws-commission","rules_name":"RWS Baccarat, commission","rules_family":"baccarat",`,
		`"rule":"House Rules 7.3"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("status %s\nwant %s", b, want)
		}
	}
	b, _ = json.Marshal(NewStatus(st, StatusInfo{Table: "t1", State: api.Online, Rules: baccarat.MustLookup("nc-insurance", baccarat.Options{}), At: at}))
	for _, want := range []string{`"rules":"nc-insurance","rules_name":"NC Insurance","rules_family":"non-commission",`,
		`"rule":"NC Insurance 5.5.3"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("status %s\nwant %s", b, want)
		}
	}
}
