package table

import (
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
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
