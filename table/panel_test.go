package table

import (
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// panelTable is a node with a shoe in play and a Player natural 9 dealt: the round is
// complete and waits for the dealer's confirmation.
func panelTable(t *testing.T) *Node {
	t.Helper()
	rc := round.DefaultConfig(baccarat.MustLookup("rws", baccarat.Options{}))
	rc.Burn, rc.CloseBetsOnFirstCard = round.BurnNone, true
	n, err := New(Config{Table: "T1", NoMessages: true, Round: rc})
	if err != nil {
		t.Fatal(err)
	}
	n.Step(round.Event{Kind: round.NewShoe, Set: "1", Decks: 8, At: t0})
	for i, c := range []string{"9H", "5C", "KS", "KD"} {
		n.Step(round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard(c), Seq: uint64(i + 1), At: t0.Add(time.Duration(i+1) * time.Second)})
	}
	if st := n.State(); st.Phase != round.Complete {
		t.Fatalf("phase %s, want complete", st.Phase)
	}
	n.Advance()
	return n
}

// TestButtons: the node decides what a button means. A release steps nothing; the
// confirm button's press confirms the round, by the dealer, with the actor "button", at
// the press's time; the call_supervisor button turns the call on and off.
func TestButtons(t *testing.T) {
	n := panelTable(t)
	at := t0.Add(time.Minute)
	n.Button(Button{Name: "confirm", Active: false, At: at})
	if rd := n.Ready(); len(rd.Records) != 0 {
		t.Fatalf("a release recorded %d events", len(rd.Records))
	}
	n.Button(Button{Name: "confirm", Active: true, At: at})
	rd := n.Ready()
	if len(rd.Records) == 0 || rd.Records[0].Event.Kind != round.ConfirmResult {
		t.Fatalf("the confirm button recorded %+v, want a confirmation", rd.Records)
	}
	if ev := rd.Records[0].Event; ev.Actor != "button" || !ev.At.Equal(at) || ev.Role.String() != "dealer" {
		t.Errorf("confirmation by %s %q at %s, want the dealer's button at %s", ev.Role, ev.Actor, ev.At, at)
	}
	if st := n.State(); st.Phase != round.BettingOpen {
		t.Errorf("phase %s after the confirm button, want betting open", st.Phase)
	}
	n.Advance()
	n.Button(Button{Name: "call_supervisor", Active: true, At: at})
	if !n.Calling() || len(n.Ready().Notes) != 1 {
		t.Errorf("call_supervisor: calling %v, notes %v", n.Calling(), n.Ready().Notes)
	}
	n.Button(Button{Name: "call_supervisor", Active: true, At: at})
	if n.Calling() {
		t.Error("a second press did not end the call")
	}
	n.Advance()
	n.Button(Button{Name: "card_present", Active: true, At: at})
	if n.HasReady() {
		t.Errorf("card_present asked for %+v", n.Ready())
	}
}

// TestLampsKeptOnce: the node keeps the tower light's one copy: the broker's denial
// is one of its levels, asked for when it changes and not again while it stands.
func TestLampsKeptOnce(t *testing.T) {
	n := panelTable(t)
	want := Lamps{Amber: true}
	if got := n.Lamps(); got != want {
		t.Fatalf("lamps %+v, want %+v", got, want)
	}
	n.PublishDenied(true)
	if rd := n.Ready(); rd.Lamps == nil || *rd.Lamps != (Lamps{Amber: true, Denied: true}) {
		t.Fatalf("after the denial the Ready asks for lamps %+v", rd.Lamps)
	}
	n.Advance()
	n.PublishDenied(true)
	if rd := n.Ready(); rd.Lamps != nil {
		t.Errorf("a denial that stands asks for lamps again: %+v", *rd.Lamps)
	}
	n.Button(Button{Name: "confirm", Active: true, At: t0.Add(time.Minute)})
	if rd := n.Ready(); rd.Lamps == nil || *rd.Lamps != (Lamps{Green: true, Denied: true}) {
		t.Errorf("after the confirmation the Ready asks for lamps %+v, want green with the denial", rd.Lamps)
	}
	n.Advance()
	n.PublishDenied(false)
	if rd := n.Ready(); rd.Lamps == nil || *rd.Lamps != (Lamps{Green: true}) {
		t.Errorf("after the denial ended the Ready asks for lamps %+v", rd.Lamps)
	}
}

// TestDealersBadges: a dealer's badge is the dealer's identity. Put in, its dealer takes
// the table, in their own name; another badge put in relieves them; the first badge
// taken out then steps nothing, and the relief stays on; the relief's badge taken out
// leaves no dealer on. What the controller would refuse is not stepped, so nothing
// refused is journalled: a badge taken out with no dealer on, a badge put in for the
// dealer on already, a badge that names no dealer.
func TestDealersBadges(t *testing.T) {
	n := panelTable(t)
	at := t0.Add(time.Minute)
	dealer := func() string { t.Helper(); return statusOf(t, n.Status("online", at)).Dealer }
	badge := func(name string, in bool) []Entry {
		t.Helper()
		at = at.Add(time.Second)
		n.Button(Button{Name: "dealer", Active: in, At: at, Dealer: name})
		rd := n.Ready()
		n.Advance()
		return rd.Records
	}
	nothing := func(what string, recs []Entry) {
		t.Helper()
		if len(recs) != 0 {
			t.Errorf("%s journalled %d records, first %+v; want none", what, len(recs), *recs[0].Event)
		}
	}

	nothing("a badge out with no dealer on", badge("D-ANA", false))
	recs := badge("D-ANA", true)
	if len(recs) != 1 {
		t.Fatalf("D-ANA's badge in journalled %d records, want 1", len(recs))
	}
	if ev := recs[0].Event; ev.Kind != round.DealerOn || ev.Dealer != "D-ANA" || ev.Actor != "D-ANA" ||
		ev.Role != irregularities.Dealer || ev.Detail != "badge" || !ev.At.Equal(at) {
		t.Errorf("D-ANA's badge in journalled %+v, want her dealer-on, by herself as dealer, from the badge, at %s", *ev, at)
	}
	if got := dealer(); got != "D-ANA" {
		t.Fatalf("status dealer %q after D-ANA's badge, want D-ANA", got)
	}
	nothing("D-ANA's badge in again", badge("D-ANA", true))
	nothing("a badge naming no dealer", badge("", true))

	recs = badge("Mei Ling Tan", true)
	if len(recs) != 1 || recs[0].Event.Kind != round.DealerOn || recs[0].Event.Dealer != "Mei Ling Tan" {
		t.Fatalf("the relief's badge in journalled %+v, want her dealer-on", recs)
	}
	if got := dealer(); got != "Mei Ling Tan" {
		t.Fatalf("status dealer %q after the relief's badge, want Mei Ling Tan", got)
	}
	nothing("the relieved dealer's badge out", badge("D-ANA", false))
	if got := dealer(); got != "Mei Ling Tan" {
		t.Fatalf("status dealer %q after the relieved dealer's badge out, want the relief still on", got)
	}

	recs = badge("Mei Ling Tan", false)
	if len(recs) != 1 || recs[0].Event.Kind != round.DealerOff || recs[0].Event.Dealer != "Mei Ling Tan" ||
		recs[0].Event.Actor != "Mei Ling Tan" || recs[0].Event.Detail != "badge" {
		t.Fatalf("the relief's badge out journalled %+v, want her dealer-off", recs)
	}
	if got := dealer(); got != "" {
		t.Errorf("status dealer %q after the relief's badge out, want none", got)
	}
	nothing("a badge out with no dealer on, again", badge("Mei Ling Tan", false))
	if st := n.State(); st.Phase != round.Complete {
		t.Errorf("phase %s after the badges, want the round still waiting for its confirmation", st.Phase)
	}
}
