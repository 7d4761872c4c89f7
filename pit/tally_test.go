package pit

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// randomRounds are n rounds of four tables of two pits and three dealers (and none),
// credited from from to to: some with no opening, no first card, no last card or no
// settlement, some void, with windows and holds.
func randomRounds(rng *rand.Rand, n int, from, to time.Time) []Round {
	tables := []string{"t1", "t2", "t3", "t4"}
	dealers := []string{"ann", "bob", "cy", ""}
	span := to.Sub(from)
	var out []Round
	for range n {
		i := rng.IntN(len(tables))
		first := from.Add(time.Duration(rng.Int64N(int64(span))))
		r := Round{Table: tables[i], Pit: []string{"p1", "p2"}[i/2], Dealer: dealers[rng.IntN(len(dealers))],
			Opened:    first.Add(-time.Duration(rng.Int64N(int64(40 * time.Second)))),
			FirstCard: first,
			Complete:  first.Add(time.Duration(rng.Int64N(int64(30 * time.Second)))),
			Windows:   time.Duration(rng.IntN(5000)) * time.Millisecond,
			Held:      time.Duration(rng.IntN(3)) * time.Second,
			HeldAfter: time.Duration(rng.IntN(2)) * time.Second,
			Void:      rng.IntN(8) == 0,
		}
		r.Settled = r.Complete.Add(time.Duration(rng.Int64N(int64(10 * time.Second))))
		switch rng.IntN(10) {
		case 0:
			r.Opened = time.Time{}
		case 1: // credited to its opening
			r.FirstCard = time.Time{}
			r.Opened = first
		case 2:
			r.Complete = time.Time{}
		case 3:
			r.Settled = time.Time{}
		}
		out = append(out, r)
	}
	return out
}

// tallyHours sums the rounds' tallies by table, dealer and UTC hour, as the archive
// keeps them.
func tallyHours(rounds []Round) []Tally {
	type key struct {
		table, dealer string
		hour          time.Time
	}
	sums := map[key]*Tally{}
	var keys []key
	for _, r := range rounds {
		t := TallyOf(r)
		if t.Hour.IsZero() {
			continue
		}
		k := key{t.Table, t.Dealer, t.Hour.UTC().Truncate(time.Hour)}
		s := sums[k]
		if s == nil {
			s = &Tally{Table: t.Table, Dealer: t.Dealer, Pit: t.Pit, Hour: k.hour}
			sums[k] = s
			keys = append(keys, k)
		}
		s.Rounds += t.Rounds
		s.Void += t.Void
		s.Sum.Betting += t.Sum.Betting
		s.Sum.Dealing += t.Sum.Dealing
		s.Sum.Windows += t.Sum.Windows
		s.Sum.Holds += t.Sum.Holds
		s.Sum.Confirm += t.Sum.Confirm
		s.Betting += t.Betting
		s.Dealing += t.Dealing
		s.Confirm += t.Confirm
	}
	out := make([]Tally, 0, len(keys))
	for _, k := range keys {
		out = append(out, *sums[k])
	}
	return out
}

// TestPaceOfTalliesIsPace: on random rounds and stand-still, the figures from the
// hourly tallies are the figures from the rounds, by table, dealer and pit, for hours,
// days and shifts on whole hours (in UTC, in Asia/Macau, in Europe/London over its
// change of clocks) and for a span of whole hours.
func TestPaceOfTalliesIsPace(t *testing.T) {
	macau, err := time.LoadLocation("Asia/Macau")
	if err != nil {
		t.Skip(err)
	}
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Skip(err)
	}
	shifts, err := ParseShifts("06:00,14:00,22:00", macau)
	if err != nil {
		t.Fatal(err)
	}
	night, err := ParseShifts("07:00,19:00", london)
	if err != nil {
		t.Fatal(err)
	}
	// From 2026-10-24 22:00 UTC to 2026-10-26 02:00: London's clocks go back at
	// 01:00 UTC on the 25th.
	from := time.Date(2026, 10, 24, 22, 0, 0, 0, time.UTC)
	to := from.Add(28 * time.Hour)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name    string
		buckets Buckets
	}{
		{"hours", Hours{}},
		{"hours-london", Hours{Loc: london}},
		{"days", Days{}},
		{"days-macau", Days{Loc: macau}},
		{"days-london", Days{Loc: london}},
		{"shifts-macau", shifts},
		{"shifts-london", night},
		{"span", Span{From: from, To: to}},
	} {
		if !Hourly(c.buckets, from, to) {
			t.Errorf("%s: not taken as whole hours", c.name)
			continue
		}
		for trial := range 20 {
			rounds := randomRounds(rng, 1+rng.IntN(400), from, to)
			var still []Still
			for range rng.IntN(6) {
				s := from.Add(time.Duration(rng.Int64N(int64(to.Sub(from)))))
				still = append(still, Still{Table: "t" + string(rune('1'+rng.IntN(4))), Pit: "p1", Why: StillShuffling,
					From: s, To: s.Add(time.Duration(rng.Int64N(int64(3 * time.Hour))))})
			}
			tallies := tallyHours(rounds)
			for _, by := range []By{ByTable, ByDealer, ByPit} {
				want := Pace(rounds, still, by, c.buckets)
				got := PaceOfTallies(tallies, still, by, c.buckets)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, trial %d, by %d: from the tallies\n%+v\nfrom the rounds\n%+v", c.name, trial, by, got, want)
				}
			}
		}
	}
}

// TestHourly: periods that do not start on whole UTC hours are not tallied.
func TestHourly(t *testing.T) {
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Skip(err)
	}
	half, err := ParseShifts("06:30,14:30,22:30", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	from, to := at(0, 0, 0), at(48, 0, 0)
	for _, c := range []struct {
		name     string
		buckets  Buckets
		from, to time.Time
		want     bool
	}{
		{"hours", Hours{}, from, to, true},
		{"shifts at half past", half, from, to, false},
		{"days in Kolkata", Days{Loc: kolkata}, from, to, false},
		{"hours in Kolkata", Hours{Loc: kolkata}, from, to, false},
		{"a range from half past", Hours{}, at(10, 30, 0), to, false},
		{"a range to a minute past", Days{}, from, at(10, 1, 0), false},
		{"a span of whole hours", Span{From: at(6, 0, 0), To: at(14, 0, 0)}, at(6, 0, 0), at(14, 0, 0), true},
		{"an hour of Kolkata within a day", Days{Loc: kolkata}, at(6, 0, 0), at(7, 0, 0), true},
	} {
		if got := Hourly(c.buckets, c.from, c.to); got != c.want {
			t.Errorf("%s: Hourly = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestReadPace: the figures are read from the tallies for whole hours, from the rounds
// otherwise (a shift at half past, a day in Asia/Kolkata, a range ending at a minute
// past), and are Pace's of the rounds either way.
func TestReadPace(t *testing.T) {
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Skip(err)
	}
	half, err := ParseShifts("06:30,18:30", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	from, to := at(0, 0, 0), at(48, 0, 0)
	for _, c := range []struct {
		name        string
		buckets     Buckets
		from, to    time.Time
		fromTallies bool
	}{
		{"hours", Hours{}, from, to, true},
		{"days", Days{}, from, to, true},
		{"shifts at half past", half, from, to, false},
		{"days in Kolkata", Days{Loc: kolkata}, from, to, false},
		{"to a minute past", Hours{}, from, at(47, 1, 0), false},
	} {
		rounds := randomRounds(rng, 300, c.from, c.to)
		var read string
		bys := []By{ByTable, ByDealer, ByPit}
		pace, err := ReadPace(c.from, c.to, c.buckets, bys,
			func() ([]Round, error) { read += "rounds"; return rounds, nil },
			func(By) ([]Tally, error) { read += "tallies"; return tallyHours(rounds), nil })
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]string{true: "talliestalliestallies", false: "rounds"}[c.fromTallies]; read != want {
			t.Errorf("%s: read %q, want %q", c.name, read, want)
		}
		for _, by := range []By{ByTable, ByDealer, ByPit} {
			if got, want := pace(nil, by), Pace(rounds, nil, by, c.buckets); !reflect.DeepEqual(got, want) {
				t.Errorf("%s by %d: %+v, want %+v", c.name, by, got, want)
			}
		}
	}
}
