package round

import (
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
