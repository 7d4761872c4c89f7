package integrity

import (
	"fmt"
	"math"
)

// Drift follows one outcome of the rounds (a Banker win, a natural, a pair) with a
// Bernoulli CUSUM: the log-likelihood ratio of a rate raised to P1 against the rule
// set's exact P0, summed round by round and kept at or above 0. It alarms when the sum
// reaches H. With H = ln(A), honest rounds alarm at most once in A rounds on average
// (Wald's bound on the CUSUM's run length: docs/integrity.md has the rate measured).
// The zero value is not usable: NewDrift.
type Drift struct {
	P0, P1 float64 // the exact rate, and the raised rate the test looks for
	H      float64 // the alarm threshold
	up     float64 // the step when the outcome comes: ln(P1/P0)
	down   float64 // the step when it does not: ln((1−P1)/(1−P0))
	s      float64
	rounds int // rounds since the last alarm
	seen   int // outcomes since the last alarm
}

// NewDrift returns a CUSUM for an outcome of exact rate p0 that looks for the rate
// raised by ratio (p1 = p0 × ratio, at most 0.999) and alarms, on honest rounds, at
// most once in every arl rounds on average.
func NewDrift(p0, ratio, arl float64) (*Drift, error) {
	p1 := min(p0*ratio, 0.999)
	switch {
	case !(p0 > 0 && p0 < 1):
		return nil, fmt.Errorf("integrity: drift: a rate of %v is not between 0 and 1", p0)
	case !(p1 > p0):
		return nil, fmt.Errorf("integrity: drift: a ratio of %v raises no rate", ratio)
	case !(arl > 1):
		return nil, fmt.Errorf("integrity: drift: a run length of %v rounds between false alarms is too short", arl)
	}
	return &Drift{P0: p0, P1: p1, H: math.Log(arl), up: math.Log(p1 / p0), down: math.Log((1 - p1) / (1 - p0))}, nil
}

// DriftAlarm is what a Drift found: over Rounds rounds since the last alarm (or the
// start), Seen of them had the outcome, against Rounds × P0 expected.
type DriftAlarm struct {
	Rounds, Seen int
	Expected     float64
	Sum          float64 // the CUSUM when it alarmed
}

// Add takes one round: whether it had the outcome. It returns an alarm, and starts
// again from 0, when the sum reaches H.
func (d *Drift) Add(had bool) (DriftAlarm, bool) {
	d.rounds++
	if had {
		d.seen++
		d.s += d.up
	} else {
		d.s += d.down
	}
	d.s = max(d.s, 0)
	if d.s < d.H {
		return DriftAlarm{}, false
	}
	a := DriftAlarm{Rounds: d.rounds, Seen: d.seen, Expected: float64(d.rounds) * d.P0, Sum: d.s}
	d.s, d.rounds, d.seen = 0, 0, 0
	return a, true
}

// Sum is the CUSUM now.
func (d *Drift) Sum() float64 { return d.s }

// DriftState is what a Drift has followed since its last alarm: the sum, the rounds
// and the outcomes among them. A Drift given it back (SetState) goes on as the one it
// came from, so a follower that keeps it across restarts alarms as one that never
// stopped.
type DriftState struct {
	Sum    float64 `json:"sum"`
	Rounds int     `json:"rounds"`
	Seen   int     `json:"seen"`
}

// State is what the Drift has followed since its last alarm.
func (d *Drift) State() DriftState { return DriftState{Sum: d.s, Rounds: d.rounds, Seen: d.seen} }

// SetState sets the Drift to s, as State returned it.
func (d *Drift) SetState(s DriftState) { d.s, d.rounds, d.seen = max(s.Sum, 0), s.Rounds, s.Seen }
