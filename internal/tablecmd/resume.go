package tablecmd

import (
	"fmt"
	"strconv"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/simulator"
)

// resume sets the simulated shoe to go on from where the table, opened on journal, stands
// (st): the rest of the set in play in its recorded order, with the shoe's card numbers
// going on, as a shoe still powered goes on after the table restarts. A journal with no
// shoe yet starts a fresh one. It refuses what the simulator cannot go on with: a
// scenario (it plays from a fresh shoe), a set the shuffler did not number, a shoe in
// play whose order was not recorded. Call it after daemon.Open, before the table serves.
func (s *simulation) resume(st round.State, journal string) error {
	if st.Shoe == 0 || s.sim == nil {
		return nil
	}
	if s.f.Scenario != "" {
		return fmt.Errorf("--scenario plays from a fresh shoe, and the journal %s holds %d shoes already: give a new --journal directory (or none, for a temporary one)", journal, st.Shoe)
	}
	set, err := strconv.ParseUint(st.Set, 10, 32)
	if err != nil || set == 0 {
		return fmt.Errorf("the journal %s is at set %q, which the simulated shuffler did not report: the simulator cannot go on with it; "+
			"end the shoe with the table's own devices, or give a new --journal directory (or none, for a temporary one)", journal, st.Set)
	}
	p := simulator.Position{Set: uint32(set), CardNo: st.LastCardNo, ShoeTime: st.LastShoeTime, ShoeTimed: st.LastShoeTimed, At: st.LastCardAt}
	switch st.Phase {
	case round.NoShoe: // the set ended: the next one is shuffled
	case round.ShoeDone:
		p.Done = true
	default:
		if st.Order == nil {
			return fmt.Errorf("the journal %s has shoe %d (set %s) in play with no recorded card order, so the simulated shoe cannot deal the rest of it: "+
				"end that shoe (an end_shoe command, docs/mqtt.md) and start again, or give a new --journal directory (or none, for a temporary one)", journal, st.Shoe, st.Set)
		}
		// The table, not the cards' positions, says which round is the last: a card the
		// shoe could not read took a place in the order but none in the round.
		p.Cards, p.Next, p.CutOut, p.Last = st.Order, st.OrderPos, st.CutCard, st.CutCard && st.RoundsLeft == 0
		if st.Phase == round.Burning {
			p.Burn = st.BurnLeft
		}
		if (st.Phase == round.Dealing || st.Phase == round.Complete) && !st.Voided {
			for _, slot := range []baccarat.Slot{baccarat.P1, baccarat.B1, baccarat.P2, baccarat.B2, baccarat.P3, baccarat.B3} {
				if c, ok := st.Coup.SlotCard(slot); ok {
					p.Coup = append(p.Coup, c)
				}
			}
			for _, k := range st.Held.Pending {
				p.Coup = append(p.Coup, k.Card)
			}
		}
	}
	return s.sim.Resume(p)
}
