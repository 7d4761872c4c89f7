package irregularities

import (
	"fmt"

	"github.com/tablectl/tablectl/baccarat"
)

// RunLimits are the run lengths in the dealt order at which a set counts as badly
// shuffled. Zero disables a check. The defaults keep false alarms rare: in a fairly
// shuffled 8-deck shoe the expected number of runs at least this long is about 0.013 per
// shoe for ranks (five of one rank in a row), 0.006 for suits (nine of one suit) and
// 0.002 for sequences (six consecutive ranks, up or down).
type RunLimits struct {
	SameRank int `json:"same_rank"`
	SameSuit int `json:"same_suit"`
	Sequence int `json:"sequence"`
}

// DefaultRunLimits are the limits a table uses unless set otherwise.
func DefaultRunLimits() RunLimits { return RunLimits{SameRank: 5, SameSuit: 9, Sequence: 6} }

// ShuffleWatch watches the order in which a shoe's cards come out for runs a fair shuffle
// almost never makes: many cards of one rank or one suit in a row, or a long run of
// consecutive ranks. It is a value with no pointers: it copies with the controller state.
//
// It keeps, as each card comes, four runs side by side in one word (the same rank, the
// same suit, ranks going up, ranks going down) and the length at which each alarms (taken
// from Limits at the shoe's first card, or by SetLimits). A card goes on or ends each run
// by one table read by its step from the card before it, so it costs a few instructions
// and no branch on the card's value. It takes valid cards only.
type ShuffleWatch struct {
	Limits RunLimits
	last   uint8  // the last card's key: its rank times 8 plus its suit
	state  uint8  // unarmed, watching or reported
	runs   uint64 // the rank, suit, ascending and descending runs, 16 bits each
	// gap is, by run, 0x10000 less its alarm length (0x8000 when it has none): added to
	// the runs, it leaves bit 15 set in each run short of its length and clears it in a
	// run that reached it. The zero gap, of a watch not watching, clears them all, so that
	// the card is checked.
	gap uint64
	at  [4]uint16
}

// The watch's states: a new watch (or one read back) arms at its next card; one alarm per
// shoe, after which it follows no more runs.
const (
	unarmed uint8 = iota
	watching
	reported
)

const (
	laneOnes  = 0x0001_0001_0001_0001 // one in each run
	laneHighs = 0x8000_8000_8000_8000 // bit 15 of each run
	noAlarm   = 0x8000                // the alarm length of a limit that checks nothing
)

// goesOn is, by the step from the card before to the card (the step in rank times 8
// plus the step in suit, plus 99: each key is its rank times 8 plus its suit), the runs
// the card carries on: the same rank, the same suit, ascending (one rank up) or
// descending (one rank down).
var goesOn = func() (t [256]uint64) {
	for dr := -12; dr <= 12; dr++ {
		for ds := -3; ds <= 3; ds++ {
			var keep uint64
			switch dr {
			case 0:
				keep |= 0xffff // same rank
			case 1:
				keep |= 0xffff << 32 // one rank up
			case -1:
				keep |= 0xffff << 48 // one rank down
			}
			if ds == 0 {
				keep |= 0xffff << 16 // same suit
			}
			t[dr*8+ds+99] = keep
		}
	}
	return t
}()

// SetLimits sets the watch's limits, for the runs from the next card on.
func (w *ShuffleWatch) SetLimits(l RunLimits) {
	w.Limits = l
	w.arm()
}

// arm takes the alarm lengths from Limits. A limit of 0 (or below) checks nothing, and so
// does one longer than a run can be counted.
func (w *ShuffleWatch) arm() {
	var gap uint64
	for i, n := range [4]int{w.Limits.SameRank, w.Limits.SameSuit, w.Limits.Sequence, w.Limits.Sequence} {
		w.at[i] = noAlarm
		if n > 0 && n < noAlarm {
			w.at[i] = uint16(n)
		}
		gap |= uint64(1<<16-int(w.at[i])) << (16 * i)
	}
	if w.state == watching {
		w.gap = gap
	}
}

// Add takes the next card out of the shoe and returns a description of the run when a
// limit is reached for the first time in the shoe ("" otherwise). Later runs in the same
// shoe are not reported again: one alarm per shoe is enough to call for a check, so after
// it the watch follows no more runs.
func (w *ShuffleWatch) Add(c baccarat.Card) string {
	if w.Next(c) {
		return w.Alarm(c)
	}
	return ""
}

// Next is the first half of Add, small enough to be inlined where cards are stepped: it
// takes card c and reports whether Alarm must be called for it, which then returns what
// Add returns. A card for which Next reports false reached no limit.
func (w *ShuffleWatch) Next(c baccarat.Card) bool {
	// Each run goes on (kept, plus one) or starts again (one).
	key := uint8(c.Rank)<<3 | uint8(c.Suit)
	runs := w.runs&goesOn[key-w.last+99] + laneOnes
	w.runs, w.last = runs, key
	return (runs+w.gap)&laneHighs != laneHighs
}

// Alarm is the second half of Add, for a card for which Next reported true: the shoe's
// first card (or the first since the watch was read back), which starts every run; a card
// after the shoe's alarm, which is not followed; or one that may have reached a limit.
func (w *ShuffleWatch) Alarm(c baccarat.Card) string {
	switch w.state {
	case reported:
		return ""
	case unarmed:
		w.state, w.runs = watching, laneOnes
		w.arm()
	}
	seq := max(w.run(2), w.run(3))
	switch {
	case w.run(0) >= w.at[0]:
		w.state, w.gap = reported, 0
		return fmt.Sprintf("%d cards of rank %s in a row", w.run(0), c.Rank)
	case w.run(1) >= w.at[1]:
		w.state, w.gap = reported, 0
		return fmt.Sprintf("%d cards of suit %s in a row", w.run(1), c.Suit)
	case seq >= w.at[2]:
		w.state, w.gap = reported, 0
		return fmt.Sprintf("%d consecutive ranks in a row, ending %s", seq, c)
	}
	return ""
}

// run is the length of run i: 0 rank, 1 suit, 2 ascending, 3 descending.
func (w *ShuffleWatch) run(i int) uint16 { return uint16(w.runs >> (16 * i)) }
