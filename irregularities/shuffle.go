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
// It keeps, as each card comes, the three runs and the length at which each alarms
// (taken from Limits at the shoe's first card, or by SetLimits), so a card costs a
// comparison with the card before it and three with those lengths.
type ShuffleWatch struct {
	Limits   RunLimits
	last     baccarat.Card
	seqStep  int8 // +1 ascending, -1 descending
	reported bool // an alarm was raised for this shoe
	rankRun  uint16
	suitRun  uint16
	seqRun   uint16
	at       [3]uint16 // the rank, suit and sequence runs that alarm; noAlarm: none
}

// noAlarm is the alarm length of a limit that checks nothing: longer than any run.
const noAlarm = 1<<16 - 1

// SetLimits sets the watch's limits, for the runs from the next card on.
func (w *ShuffleWatch) SetLimits(l RunLimits) {
	w.Limits = l
	w.arm()
}

// arm takes the alarm lengths from Limits. A limit of 0 (or below) checks nothing.
func (w *ShuffleWatch) arm() {
	for i, n := range [3]int{w.Limits.SameRank, w.Limits.SameSuit, w.Limits.Sequence} {
		w.at[i] = noAlarm
		if n > 0 && n < noAlarm {
			w.at[i] = uint16(n)
		}
	}
}

// Add takes the next card out of the shoe and returns a description of the run when a
// limit is reached for the first time in the shoe ("" otherwise). Later runs in the same
// shoe are not reported again: one alarm per shoe is enough to call for a check, so after
// it the watch follows no more runs.
func (w *ShuffleWatch) Add(c baccarat.Card) string {
	if w.reported {
		return ""
	}
	last := w.last
	w.last = c
	if !last.Valid() {
		// The shoe's first card (or the first since the watch was read back).
		w.arm()
		w.rankRun, w.suitRun, w.seqRun, w.seqStep = 1, 1, 1, 0
	} else {
		// Each run goes on or starts again; written so that the compiler picks values
		// rather than branches, the cards being random.
		rank := w.rankRun + 1
		if c.Rank != last.Rank {
			rank = 1
		}
		suit := w.suitRun + 1
		if c.Suit != last.Suit {
			suit = 1
		}
		step := int8(c.Rank - last.Rank)
		// dir is the step when it is -1 or +1 (step+1 is 0 or 2), else 0: the mask is all
		// ones only when step+1, less its bit 1, is 0.
		dir := step & int8((uint16(uint8(step+1)&^2)-1)>>8)
		base, run := uint16(1), w.seqRun // a sequence of two, or one going on
		if dir == w.seqStep {
			base = run
		}
		seq := base + 1
		if dir == 0 {
			seq = 1
		}
		w.rankRun, w.suitRun, w.seqRun, w.seqStep = rank, suit, seq, dir
	}
	if w.rankRun >= w.at[0] || w.suitRun >= w.at[1] || w.seqRun >= w.at[2] {
		return w.alarm(c)
	}
	return ""
}

// alarm describes the run that reached its limit with card c, the first of rank, suit
// and sequence, and marks the shoe reported.
func (w *ShuffleWatch) alarm(c baccarat.Card) string {
	w.reported = true
	switch {
	case w.rankRun >= w.at[0]:
		return fmt.Sprintf("%d cards of rank %s in a row", w.rankRun, c.Rank)
	case w.suitRun >= w.at[1]:
		return fmt.Sprintf("%d cards of suit %s in a row", w.suitRun, c.Suit)
	}
	return fmt.Sprintf("%d consecutive ranks in a row, ending %s", w.seqRun, c)
}
