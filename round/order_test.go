package round

import (
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// TestForeignHeldCardLeavesTheOrder: a card held out of the recorded order that the
// supervisor reports is not of the set (RWS Baccarat 5.5.1) leaves the set's count and
// order as they were: the rest of the set, its own copy of that card included, is dealt
// with no new irregularity.
func TestForeignHeldCardLeavesTheOrder(t *testing.T) {
	cfg := DefaultConfig(baccarat.MustLookup("classic", baccarat.Options{}))
	cfg.Burn, cfg.SimultaneousWindow, cfg.BurnExcessCards = BurnNone, 0, true
	cfg.Runs = irregularities.RunLimits{}
	ctl, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	order, _ := expandOrder("new-deck:1")
	ctl.Step(Event{Kind: NewShoe, Set: "O", Decks: 1, Order: order})
	ctl.Step(Event{Kind: BetsClosed})
	var seq uint64
	draw := func(c baccarat.Card) []Effect {
		seq++
		return ctl.Step(Event{Kind: CardDrawn, Card: c, Seq: seq})
	}
	draw(order[0])
	draw(order[1])
	kd := baccarat.MustParseCard("KD")
	if effs := draw(kd); len(effs) == 0 || effs[0].Irregularity != irregularities.IncorrectCards {
		t.Fatalf("KD out of order: %v", effs)
	}
	ctl.Step(Event{Kind: Report, Irregularity: irregularities.ForeignCard, Role: irregularities.Supervisor, Card: kd})
	ctl.Step(Event{Kind: Decide, Choice: irregularities.Proceed, Role: irregularities.Supervisor})
	for _, c := range order[2:] {
		for _, e := range draw(c) {
			if e.Kind == IrregularityRaised && e.Irregularity != irregularities.ExcessCard {
				t.Fatalf("%s: %s", c, e)
			}
		}
		if st := ctl.State(); st.Phase == Complete {
			ctl.Step(Event{Kind: ConfirmResult})
			ctl.Step(Event{Kind: BetsClosed})
		}
	}
	if st := ctl.State(); st.Seen[kd.Index()] != 1 {
		t.Errorf("the set's KD counted %d times", st.Seen[kd.Index()])
	}
}

// TestUnreadCardKeepsTheOrder: a card that passes the reader unread from a set whose
// order the shuffler recorded is the order's next card. The hold names it (RWS Baccarat
// 5.5.3), and once the supervisor lets play go on the rest of the set is dealt in its
// order with no new irregularity: the unread card is set aside, not expected later.
func TestUnreadCardKeepsTheOrder(t *testing.T) {
	cfg := DefaultConfig(baccarat.MustLookup("classic", baccarat.Options{}))
	cfg.Burn, cfg.SimultaneousWindow, cfg.BurnExcessCards = BurnNone, 0, true
	cfg.Runs = irregularities.RunLimits{}
	ctl, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	order, _ := expandOrder("new-deck:1")
	ctl.Step(Event{Kind: NewShoe, Set: "O", Decks: 1, Order: order})
	ctl.Step(Event{Kind: BetsClosed})
	var seq uint64
	draw := func(c baccarat.Card) []Effect {
		seq++
		return ctl.Step(Event{Kind: CardDrawn, Card: c, Seq: seq})
	}
	draw(order[0])
	effs := draw(baccarat.Card{}) // order[1] passes unread
	if len(effs) == 0 || effs[0].Irregularity != irregularities.IncorrectCards || !strings.Contains(effs[0].Reason(), "the shuffler recorded "+order[1].String()) {
		t.Fatalf("the unread card: %v, want a hold naming %s", effs, order[1])
	}
	ctl.Step(Event{Kind: Decide, Choice: irregularities.Proceed, Role: irregularities.Supervisor})
	for _, c := range order[2:] {
		for _, e := range draw(c) {
			if e.Kind == IrregularityRaised && e.Irregularity != irregularities.ExcessCard {
				t.Fatalf("%s: %s", c, e)
			}
		}
		if st := ctl.State(); st.Phase == Complete {
			ctl.Step(Event{Kind: ConfirmResult})
			ctl.Step(Event{Kind: BetsClosed})
		}
	}
}
