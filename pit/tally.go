package pit

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Tally is the rounds of one table and dealer credited to one UTC hour, summed: what
// Pace needs of them, as the archive keeps it while it writes each round (docs/pit.md,
// "How the archive derives them").
type Tally struct {
	Table, Dealer, Pit string
	// Hour is a time in the hour the rounds are credited to: its start, or the round's
	// own time for a tally of one round.
	Hour         time.Time
	Rounds, Void int
	// Sum is the sum of each phase over the rounds with both its ends known (PhasesOf);
	// Betting, Dealing and Confirm count the rounds with that phase's ends known
	// (windows and holds are known of every round).
	Sum                       Phases
	Betting, Dealing, Confirm int
}

// TallyOf is round r's tally, credited to the time Pace credits it to (Hour zero: r is
// not credited).
func TallyOf(r Round) Tally {
	t := Tally{Table: r.Table, Dealer: r.Dealer, Pit: r.Pit, Rounds: 1, Sum: PhasesOf(r),
		Hour: cmp.Or(r.FirstCard, r.Opened, r.Complete, r.Settled)}
	if r.Void {
		t.Void = 1
	}
	both := func(a, b time.Time) bool { return !a.IsZero() && !b.IsZero() }
	if both(r.Opened, r.FirstCard) {
		t.Betting = 1
	}
	if both(r.FirstCard, r.Complete) {
		t.Dealing = 1
	}
	if both(r.Complete, r.Settled) {
		t.Confirm = 1
	}
	return t
}

// Hourly says whether figures cut by buckets from from to to can be computed from
// hourly tallies (PaceOfTallies) exactly as from the rounds (Pace): from, to and every
// start of a period between them are whole UTC hours. So are hours, days and shifts
// starting on the hour in a zone whose offset is whole hours; a shift starting at 06:30,
// or a day in Asia/Kolkata, is not.
func Hourly(buckets Buckets, from, to time.Time) bool {
	whole := func(t time.Time) bool { return t.Truncate(time.Hour).Equal(t) }
	if !whole(from) || !whole(to) || !from.Before(to) {
		return false
	}
	for t := from; ; {
		_, end := buckets.Of(t)
		if !end.Before(to) {
			return true
		}
		if !whole(end) || !end.After(t) {
			return false
		}
		t = end
	}
}

// PaceOfTallies is Pace of the rounds tallied, for buckets whose periods start on whole
// UTC hours (Hourly): each tally counts in the period of its hour, and the figures are
// the ones Pace gives of the rounds themselves.
func PaceOfTallies(tallies []Tally, still []Still, by By, buckets Buckets) []Figure {
	type slot struct {
		key  string
		from time.Time
	}
	type acc struct {
		f      Figure
		sum    Phases
		counts [3]int // betting, dealing, confirm
	}
	groups := map[slot]*acc{}
	// The stand-still, cut as Pace cuts it.
	for _, f := range Pace(nil, still, by, buckets) {
		groups[slot{f.Key, f.From}] = &acc{f: f}
	}
	for _, t := range tallies {
		if t.Hour.IsZero() || t.Rounds == 0 {
			continue
		}
		key := t.Table
		switch by {
		case ByDealer:
			key = t.Dealer
		case ByPit:
			key = t.Pit
		}
		from, to := buckets.Of(t.Hour)
		s := slot{key, from}
		a := groups[s]
		if a == nil {
			a = &acc{f: Figure{Key: key, From: from, To: to, StillBy: map[string]time.Duration{}}}
			groups[s] = a
		}
		a.f.Rounds += t.Rounds
		a.f.Void += t.Void
		a.sum.Betting += t.Sum.Betting
		a.sum.Dealing += t.Sum.Dealing
		a.sum.Windows += t.Sum.Windows
		a.sum.Holds += t.Sum.Holds
		a.sum.Confirm += t.Sum.Confirm
		a.counts[0] += t.Betting
		a.counts[1] += t.Dealing
		a.counts[2] += t.Confirm
	}
	out := make([]Figure, 0, len(groups))
	for _, a := range groups {
		f := a.f
		length := f.To.Sub(f.From)
		f.PerHour = float64(f.Rounds) / length.Hours()
		f.PerDealingHour = 0
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
			Windows: mean(a.sum.Windows, f.Rounds), Holds: mean(a.sum.Holds, f.Rounds), Confirm: mean(a.sum.Confirm, a.counts[2])}
		out = append(out, f)
	}
	slices.SortFunc(out, func(p, q Figure) int {
		return cmp.Or(p.From.Compare(q.From), strings.Compare(p.Key, q.Key))
	})
	return out
}

// Pacer computes the pace figures of what was read (ReadPace), grouped by by, with the
// stand-still of still.
type Pacer func(still []Still, by By) []Figure

// ReadPace reads what the pace figures from from to to, cut by buckets, grouped by each
// of bys, are computed from: the hourly tallies summed by the grouping and the periods
// (tallies) when the range and its periods start on whole UTC hours (Hourly), else the
// rounds themselves (rounds). Either way the figures are Pace's of the rounds. The Pacer
// gives none for a grouping not among bys.
func ReadPace(from, to time.Time, buckets Buckets, bys []By, rounds func() ([]Round, error), tallies func(By) ([]Tally, error)) (Pacer, error) {
	if Hourly(buckets, from, to) {
		read := map[By][]Tally{}
		for _, by := range bys {
			ts, err := tallies(by)
			if err != nil {
				return nil, err
			}
			read[by] = ts
		}
		return func(still []Still, by By) []Figure {
			ts, ok := read[by]
			if !ok {
				return nil
			}
			return PaceOfTallies(ts, still, by, buckets)
		}, nil
	}
	rs, err := rounds()
	if err != nil {
		return nil, err
	}
	return func(still []Still, by By) []Figure { return Pace(rs, still, by, buckets) }, nil
}
