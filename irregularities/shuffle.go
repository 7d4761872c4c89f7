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
type ShuffleWatch struct {
	Limits   RunLimits
	last     baccarat.Card
	rankRun  int
	suitRun  int
	seqRun   int
	seqStep  int  // +1 ascending, -1 descending
	reported bool // an alarm was raised for this shoe
}

// Add takes the next card out of the shoe and returns a description of the run when a
// limit is reached for the first time in the shoe ("" otherwise). Later runs in the same
// shoe are not reported again: one alarm per shoe is enough to call for a check.
func (w *ShuffleWatch) Add(c baccarat.Card) string {
	if w.last.Valid() {
		step := int(c.Rank) - int(w.last.Rank)
		w.rankRun = bump(w.rankRun, step == 0)
		w.suitRun = bump(w.suitRun, c.Suit == w.last.Suit)
		switch {
		case (step == 1 || step == -1) && step == w.seqStep:
			w.seqRun++
		case step == 1 || step == -1:
			w.seqRun, w.seqStep = 2, step
		default:
			w.seqRun, w.seqStep = 1, 0
		}
	} else {
		w.rankRun, w.suitRun, w.seqRun = 1, 1, 1
	}
	w.last = c
	if w.reported {
		return ""
	}
	var what string
	switch l := w.Limits; {
	case l.SameRank > 0 && w.rankRun >= l.SameRank:
		what = fmt.Sprintf("%d cards of rank %s in a row", w.rankRun, c.Rank)
	case l.SameSuit > 0 && w.suitRun >= l.SameSuit:
		what = fmt.Sprintf("%d cards of suit %s in a row", w.suitRun, c.Suit)
	case l.Sequence > 0 && w.seqRun >= l.Sequence:
		what = fmt.Sprintf("%d consecutive ranks in a row, ending %s", w.seqRun, c)
	default:
		return ""
	}
	w.reported = true
	return what
}

func bump(run int, same bool) int {
	if same {
		return run + 1
	}
	return 1
}
