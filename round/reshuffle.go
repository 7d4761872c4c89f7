package round

import (
	"fmt"
	"strings"

	"github.com/tablectl/tablectl/irregularities"
)

// A table that reshuffles after every round (Config.SetPerRound).
//
// Royal Baccarat, "End of round": when the players may not touch the cards (they are
// dealt face up) the decks are reshuffled at the end of every round; with squeeze play
// they go to a discard pile, and the shoe goes on as usual. A table set to reshuffle
// deals each round from a set its continuous shuffler has just reported. The shoe
// session is not restarted for each set: the shoe's number, its round numbers, and so
// the roads and statistics built on its results, run across the sets until the shoe is
// ended (the dealer's new shoe). Each set is checked as a shoe's set is when it is loaded
// (RWS Baccarat 5.5.2 its count, 5.5.5 an order already dealt), each card against the set
// it is drawn from (5.5.1), and each set is burned as the table's burn rule says.
//
// In the session a round's end leaves the table in NextSet until the next set is
// loaded (the SetLoaded effect); a set refused by its checks, or by the shuffler's
// report, leaves it waiting for the one after.

// AwaitsSet reports whether a set may be loaded now: no shoe is in play, or, at a table
// that reshuffles after every round, the round's set is finished and no irregularity
// holds the table.
func (s State) AwaitsSet() bool {
	return s.Phase == NoShoe || s.Phase == NextSet && s.Held.ID == 0
}

// continueSession makes the set just loaded, in state c.st, the next set of the shoe
// session in prev: its shoe number and round count go on. It returns the effect that
// says so.
func (c *Controller) continueSession(prev State) EffectKind {
	c.st.Shoe, c.st.Round = prev.Shoe, prev.Round
	return SetLoaded
}

// awaitNextSet is nextRound's step under Config.SetPerRound: a set gives one round
// (Royal Baccarat, End of round: the decks are reshuffled after every round). It
// reports whether the set has given it, the table then waiting for the next set; when
// it has not, the round about to open is the set's.
func (c *Controller) awaitNextSet(ev *Event) bool {
	if !c.st.SetDealt && !(c.st.CutCard && c.st.RoundsLeft == 0) {
		c.st.SetDealt = true
		return false
	}
	c.setFinished(ev)
	return true
}

// setFinished leaves the table waiting for the next set. Cards kept from an excess draw
// (RWS Baccarat 5.7) as the next cards dealt, and not dealt in the set's round, go back
// with the set to the shuffler: they are burned, and the excess card irregularity that
// kept them says so.
func (c *Controller) setFinished(ev *Event) {
	c.st.Phase = NextSet
	if len(c.st.Kept) == 0 {
		return
	}
	names := make([]string, len(c.st.Kept))
	for i, k := range c.st.Kept {
		c.notDue(ev, k.Card, k.Seq, fmt.Sprintf("kept from set %s, which is reshuffled after its round: burned", c.st.Set))
		names[i] = k.Card.String()
	}
	c.record(ev, irregularities.ExcessCard, fmt.Sprintf("%s, kept as the next cards dealt, not dealt in round %d: set %s is reshuffled after its round (Royal Baccarat, End of round), so they are burned",
		strings.Join(names, " "), c.st.Round, c.st.Set))
	c.st.Kept = nil
}

// reshuffled reports whether the set in play gives no more cards to a round: under
// Config.SetPerRound once its round is complete. A card drawn then in excess (RWS
// Baccarat 5.7) is burned, not kept for a next round.
func (c *Controller) reshuffled() bool {
	return c.cfg.SetPerRound && (c.st.Phase == Complete || c.st.Phase == NextSet)
}

// finishShoe deals no more rounds from the set in play (it is refused): the shoe is
// finished and waits for its end; under Config.SetPerRound the session goes on with the
// next set.
func (c *Controller) finishShoe(ev *Event) {
	switch {
	case c.st.Phase == NoShoe || c.st.Phase == ShoeDone || c.st.Phase == NextSet:
	case c.cfg.SetPerRound:
		c.setFinished(ev)
	default:
		c.st.Phase = ShoeDone
		c.emit(Effect{Kind: ShoeFinished})
	}
}

// setEmptied takes the shoe's empty signal under Config.SetPerRound once the round's
// cards are drawn: it concerns the round's set, not the session. The set must have given
// every card (RWS Baccarat 5.5.2, as at a shoe's end) and the session goes on with the
// next set. It reports whether it took the signal.
func (c *Controller) setEmptied(ev *Event) bool {
	if !c.cfg.SetPerRound || c.st.Phase != Complete && c.st.Phase != NextSet {
		return false
	}
	c.countSet(ev, fmt.Sprintf("set %s: ", c.st.Set))
	return true
}
