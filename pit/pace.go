// Package pit computes the figures a pit is run by from the rounds' own times: rounds
// an hour and the time of each phase, per table, dealer or pit, by hour, shift or day,
// and the time a table stood still apart from the time it dealt. It reads times as data;
// it does no I/O and reads no clock. docs/pit.md says how each figure is computed.
package pit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Round is one round's times, as the archive holds them. A time not known is zero.
type Round struct {
	Table, Dealer, Pit string
	Opened             time.Time     // betting opened: the round's start
	FirstCard          time.Time     // its first card: the round is credited to this moment, and to the dealer on then
	Complete           time.Time     // its last card
	Settled            time.Time     // its result confirmed and settled
	Windows            time.Duration // players' options windows open, between the first and last card
	Held               time.Duration // held for a decision (no window open), between the first and last card
	HeldAfter          time.Duration // held for a decision, between the last card and the settlement
	Void               bool
}

// Phases are the times of a round's phases. Betting runs from Opened to FirstCard;
// Dealing from FirstCard to Complete, less the windows and the holds; Confirm from
// Complete to Settled, less the holds; Holds are both holds.
type Phases struct {
	Betting, Dealing, Windows, Holds, Confirm time.Duration
}

// PhasesOf is a round's phases. A phase whose ends are not both known is zero.
func PhasesOf(r Round) Phases {
	var p Phases
	if !r.Opened.IsZero() && !r.FirstCard.IsZero() {
		p.Betting = max(r.FirstCard.Sub(r.Opened), 0)
	}
	if !r.FirstCard.IsZero() && !r.Complete.IsZero() {
		p.Dealing = max(r.Complete.Sub(r.FirstCard)-r.Windows-r.Held, 0)
	}
	p.Windows, p.Holds = r.Windows, r.Held+r.HeldAfter
	if !r.Complete.IsZero() && !r.Settled.IsZero() {
		p.Confirm = max(r.Settled.Sub(r.Complete)-r.HeldAfter, 0)
	}
	return p
}

// Still is a stretch of time a table stood still: no dealer on, held outside a round,
// shuffling, or offline (Why).
type Still struct {
	Table, Pit string
	Why        string
	From, To   time.Time
}

// The reasons a table stands still (Still.Why), in the order the figures list them.
const (
	StillNoDealer  = "no dealer" // a table that records its dealers, with none on
	StillHeld      = "held"      // held for a decision outside a round
	StillShuffling = "shuffling" // between shoes
	StillOffline   = "offline"   // the table's controller was down
)

// StillReasons are the reasons a table stands still, in order.
var StillReasons = []string{StillNoDealer, StillHeld, StillShuffling, StillOffline}

// By is what the figures are grouped by.
type By int

// The groupings.
const (
	ByTable By = iota
	ByDealer
	ByPit
)

// Buckets cut time into the periods the figures are given for.
type Buckets interface {
	// Of is the period that holds t: its start and end.
	Of(t time.Time) (from, to time.Time)
}

// Hours cuts time into clock hours in Loc.
type Hours struct{ Loc *time.Location }

// Of implements Buckets.
func (h Hours) Of(t time.Time) (time.Time, time.Time) {
	t = t.In(cmp.Or(h.Loc, time.UTC))
	from := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), 0, 0, 0, t.Location())
	return from, from.Add(time.Hour)
}

// Days cuts time into calendar days in Loc.
type Days struct{ Loc *time.Location }

// Of implements Buckets.
func (d Days) Of(t time.Time) (time.Time, time.Time) {
	t = t.In(cmp.Or(d.Loc, time.UTC))
	from := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
	return from, from.AddDate(0, 0, 1)
}

// Shifts cuts each day of Loc at the shifts' starting times ("06:00", "14:00",
// "22:00"): a shift runs from one start to the next, the last to the first of the next
// day. Make it with ParseShifts.
type Shifts struct {
	Loc    *time.Location
	starts []time.Duration // since midnight, ascending
}

// ParseShifts reads the shifts' starting times, "HH:MM" separated by commas, in loc.
func ParseShifts(s string, loc *time.Location) (Shifts, error) {
	var starts []time.Duration
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		t, err := time.Parse("15:04", f)
		if err != nil {
			return Shifts{}, fmt.Errorf("pit: shift start %q: want HH:MM", f)
		}
		starts = append(starts, time.Duration(t.Hour())*time.Hour+time.Duration(t.Minute())*time.Minute)
	}
	slices.Sort(starts)
	if len(slices.Compact(slices.Clone(starts))) != len(starts) {
		return Shifts{}, fmt.Errorf("pit: shift starts %q: a time given twice", s)
	}
	return Shifts{Loc: cmp.Or(loc, time.UTC), starts: starts}, nil
}

// Of implements Buckets.
func (s Shifts) Of(t time.Time) (time.Time, time.Time) {
	t = t.In(s.Loc)
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, s.Loc)
	at := func(d time.Time, since time.Duration) time.Time {
		return time.Date(d.Year(), d.Month(), d.Day(), int(since/time.Hour), int(since%time.Hour/time.Minute), 0, 0, s.Loc)
	}
	last := len(s.starts) - 1
	for i := last; i >= 0; i-- {
		if from := at(day, s.starts[i]); !t.Before(from) {
			if i < last {
				return from, at(day, s.starts[i+1])
			}
			return from, at(day.AddDate(0, 0, 1), s.starts[0])
		}
	}
	// Before the day's first start: the last shift of the day before.
	prev := day.AddDate(0, 0, -1)
	return at(prev, s.starts[last]), at(day, s.starts[0])
}

// Figure is one group's figures over one period.
type Figure struct {
	Key      string    // the table, dealer or pit
	From, To time.Time // the period
	Rounds   int       // rounds credited to the period (by their first card), void ones included
	Void     int
	// PerHour is Rounds over the period's length; PerDealingHour over the period's
	// length less the time the group's tables stood still in it (ByTable and ByPit).
	PerHour, PerDealingHour float64
	Still                   time.Duration            // the time the tables stood still in the period (ByTable and ByPit)
	StillBy                 map[string]time.Duration // Still by its reason
	Mean                    Phases                   // each phase's mean over the rounds with both its ends known
}

// Pace computes the figures of rounds, grouped by by and cut by buckets, with the
// stand-still stretches of still; a stretch that crosses periods counts in each for
// the part inside it. For ByDealer a round with no dealer is credited to "" (no dealer
// on), and stand-still is not given (it is a table's). The figures come ordered by
// period, then key.
func Pace(rounds []Round, still []Still, by By, buckets Buckets) []Figure {
	type slot struct {
		key  string
		from time.Time
	}
	type acc struct {
		f      Figure
		sum    Phases
		counts [5]int
	}
	groups := map[slot]*acc{}
	get := func(key string, t time.Time) *acc {
		from, to := buckets.Of(t)
		s := slot{key, from}
		a := groups[s]
		if a == nil {
			a = &acc{f: Figure{Key: key, From: from, To: to, StillBy: map[string]time.Duration{}}}
			groups[s] = a
		}
		return a
	}
	for _, r := range rounds {
		at := cmp.Or(r.FirstCard, r.Opened, r.Complete, r.Settled)
		if at.IsZero() {
			continue
		}
		a := get(keyOf(r, by), at)
		a.f.Rounds++
		if r.Void {
			a.f.Void++
		}
		p := PhasesOf(r)
		both := func(a, b time.Time) bool { return !a.IsZero() && !b.IsZero() }
		for i, known := range [5]bool{both(r.Opened, r.FirstCard), both(r.FirstCard, r.Complete), true, true, both(r.Complete, r.Settled)} {
			if known {
				a.counts[i]++
			}
		}
		a.sum.Betting += p.Betting
		a.sum.Dealing += p.Dealing
		a.sum.Windows += p.Windows
		a.sum.Holds += p.Holds
		a.sum.Confirm += p.Confirm
	}
	if by != ByDealer {
		for _, s := range still {
			key := s.Table
			if by == ByPit {
				key = s.Pit
			}
			for t := s.From; t.Before(s.To); {
				a := get(key, t)
				end := s.To
				if a.f.To.Before(end) {
					end = a.f.To
				}
				if !end.After(t) { // a bucket that does not move on: stop rather than loop
					break
				}
				a.f.Still += end.Sub(t)
				a.f.StillBy[s.Why] += end.Sub(t)
				t = end
			}
		}
	}
	out := make([]Figure, 0, len(groups))
	for _, a := range groups {
		f := a.f
		length := f.To.Sub(f.From)
		f.PerHour = float64(f.Rounds) / length.Hours()
		if dealing := length - f.Still; dealing > 0 {
			f.PerDealingHour = float64(f.Rounds) / dealing.Hours()
		}
		mean := func(sum time.Duration, n int) time.Duration {
			if n == 0 {
				return 0
			}
			return sum / time.Duration(n)
		}
		f.Mean = Phases{Betting: mean(a.sum.Betting, a.counts[0]), Dealing: mean(a.sum.Dealing, a.counts[1]),
			Windows: mean(a.sum.Windows, a.counts[2]), Holds: mean(a.sum.Holds, a.counts[3]), Confirm: mean(a.sum.Confirm, a.counts[4])}
		out = append(out, f)
	}
	slices.SortFunc(out, func(p, q Figure) int {
		return cmp.Or(p.From.Compare(q.From), strings.Compare(p.Key, q.Key))
	})
	return out
}

func keyOf(r Round, by By) string {
	switch by {
	case ByDealer:
		return r.Dealer
	case ByPit:
		return r.Pit
	}
	return r.Table
}

// Stint is a dealer's time at a table: from the dealer-on to the dealer-off (To zero
// while the dealer is on), and who recorded each (a role and a person's id; the dealer's
// own for a dealer in their own name). Note says why the stint ended, when another
// dealer relieved the dealer.
type Stint struct {
	Table   string    `json:"table"`
	Pit     string    `json:"pit"`
	Dealer  string    `json:"dealer"`
	From    time.Time `json:"from"`
	To      time.Time `json:"to,omitzero"`
	OnRole  string    `json:"on_role"`
	OnBy    string    `json:"on_by"`
	OffRole string    `json:"off_role,omitempty"`
	OffBy   string    `json:"off_by,omitempty"`
	Note    string    `json:"note,omitempty"`
}

// Span is one period, From to To, as Buckets: a shift report's whole range.
type Span struct{ From, To time.Time }

// Of is the span itself, for any t.
func (s Span) Of(time.Time) (time.Time, time.Time) { return s.From, s.To }

// Irregularity is an irregularity raised at a table, with its decision, and the dealer
// of its round (the dealer on at the round's first card).
type Irregularity struct {
	Table, Pit, Dealer   string
	Shoe, Round, ID      uint32
	Kind, Rule, Reason   string
	Raised               time.Time
	Decision             string
	DecidedRole, Decider string
	Decided              time.Time
}
