package roadmap

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

// This file holds a second, deliberately naive implementation of the roads, written
// straight from the rule text: it recomputes everything from the whole list of results,
// keeps its board in a map, states the derived-road rule as "does the compared column
// reach row m, or row m-1", and finds a prediction by adding the result and recomputing.
// The property test checks that the incremental Map equals it after every round.

type naiveRoads struct {
	bead    []BeadCell
	big     []BigRoadCell
	derived [3][]MarkCell
	pred    Predictions
	stats   Stats
}

// naiveLayout places runs of entries on a board of rows rows: runs[j] is the length of
// run j. It follows the rule text: a run starts at the top of the first column right of
// the previous run's first column whose top is free, goes down while the cell below is
// on the board and free, and otherwise turns right and stays on that row (roadmap R3.3,
// R4.6).
func naiveLayout(t testing.TB, runs []int, rows int) []Pos {
	total := 0
	for _, n := range runs {
		total += n
	}
	// No entry lies further right than the number of entries: a board that wide is
	// enough.
	cols := total + 1
	board := make([]bool, cols*rows)
	taken := func(p Pos) bool { return board[p.Col*rows+p.Row] }
	out := make([]Pos, 0, total)
	start := -1
	for _, n := range runs {
		col := start + 1
		for taken(Pos{Col: col, Row: 0}) {
			col++
		}
		start = col
		p := Pos{Col: col, Row: 0}
		turned := false
		for i := range n {
			if i > 0 {
				below := Pos{Col: p.Col, Row: p.Row + 1}
				if !turned && below.Row < rows && !taken(below) {
					p = below
				} else {
					turned = true
					p = Pos{Col: p.Col + 1, Row: p.Row}
				}
			}
			if p.Col >= cols || taken(p) {
				t.Fatalf("naive layout: entry %d of a run of %d has no free cell at %v", i+1, n, p)
			}
			board[p.Col*rows+p.Row] = true
			out = append(out, p)
		}
	}
	return out
}

// runsOf splits a sequence into the lengths of its runs of equal values.
func runsOf[T comparable](xs []T) []int {
	var runs []int
	for i, x := range xs {
		if i > 0 && xs[i-1] == x {
			runs[len(runs)-1]++
		} else {
			runs = append(runs, 1)
		}
	}
	return runs
}

func naive(t testing.TB, rounds []Round, set Settings) naiveRoads {
	nr := naiveRoads{bead: make([]BeadCell, 0, len(rounds)), big: make([]BigRoadCell, 0, len(rounds))}
	for i, r := range rounds {
		nr.bead = append(nr.bead, BeadCell{Pos: Pos{Col: i / set.BeadRows, Row: i % set.BeadRows}, Round: r})
	}

	// The Big Road's entries, the ties after each, and its columns as lists of entries.
	winners := winnersOf(rounds)
	leading := 0
	for _, r := range rounds {
		switch {
		case r.Winner != baccarat.Tie:
			nr.big = append(nr.big, BigRoadCell{Winner: r.Winner, BankerPair: r.BankerPair, PlayerPair: r.PlayerPair})
		case len(nr.big) == 0:
			leading++
		default:
			nr.big[len(nr.big)-1].Ties++
		}
	}
	if len(nr.big) > 0 {
		nr.big[0].Ties += leading
	}
	lengths := runsOf(winners)
	for i, p := range naiveLayout(t, lengths, set.Rows) {
		nr.big[i].Pos = p
	}
	nr.derived = naiveDerived(t, winners, set)

	nr.stats = Stats{Rounds: len(rounds), CardsRemaining: UnknownCards}
	for _, r := range rounds {
		switch r.Winner {
		case baccarat.BankerWins:
			nr.stats.Banker++
		case baccarat.PlayerWins:
			nr.stats.Player++
		case baccarat.Tie:
			nr.stats.Tie++
		}
		if r.BankerPair {
			nr.stats.BankerPairs++
		}
		if r.PlayerPair {
			nr.stats.PlayerPairs++
		}
		if r.Natural {
			nr.stats.Naturals++
		}
	}
	first := 0
	for _, l := range lengths {
		if winners[first] == baccarat.BankerWins {
			nr.stats.LongestBanker = max(nr.stats.LongestBanker, l)
		} else {
			nr.stats.LongestPlayer = max(nr.stats.LongestPlayer, l)
		}
		first += l
	}
	return nr
}

// winnersOf is the Banker and Player results of rounds, in order: the Big Road's entries.
func winnersOf(rounds []Round) []baccarat.Winner {
	winners := make([]baccarat.Winner, 0, len(rounds))
	for _, r := range rounds {
		if r.Winner != baccarat.Tie {
			winners = append(winners, r.Winner)
		}
	}
	return winners
}

// naiveDerived is the three derived roads of the Big Road entries winners.
func naiveDerived(t testing.TB, winners []baccarat.Winner, set Settings) [3][]MarkCell {
	var derived [3][]MarkCell
	lengths := runsOf(winners)
	// Each entry's logical column n and row m, both from 1.
	type entry struct{ n, m int }
	entries := make([]entry, 0, len(winners))
	for n, l := range lengths {
		for m := 1; m <= l; m++ {
			entries = append(entries, entry{n + 1, m})
		}
	}
	colLen := func(n int) int { return lengths[n-1] } // column n, from 1
	// Roadmap R4.2 to R4.5, read as "does the compared column reach row m, or row m-1?".
	for road := range 3 {
		k := road + 1
		marks := make([]Mark, 0, len(entries))
		for _, e := range entries {
			switch {
			case e.m == 1 && e.n-1-k >= 1:
				if colLen(e.n-1) == colLen(e.n-1-k) {
					marks = append(marks, Red)
				} else {
					marks = append(marks, Blue)
				}
			case e.m >= 2 && e.n-k >= 1:
				reaches := func(row int) bool { return colLen(e.n-k) >= row }
				switch {
				case reaches(e.m):
					marks = append(marks, Red)
				case reaches(e.m - 1):
					marks = append(marks, Blue)
				case set.StraightDropBlue:
					marks = append(marks, Blue)
				default:
					marks = append(marks, Red)
				}
			}
		}
		derived[road] = make([]MarkCell, len(marks))
		for i, p := range naiveLayout(t, runsOf(marks), set.DerivedRows) {
			derived[road][i] = MarkCell{Pos: p, Mark: marks[i]}
		}
	}
	return derived
}

// naivePredictions adds a Banker and a Player result and sees what each road adds.
// next, when not nil, is the naive roads after the round that followed: where that
// round's winner is the one added, its derived roads are the ones after it, for the
// derived roads read nothing of a round but its winner.
func naivePredictions(t testing.TB, rounds []Round, set Settings, now naiveRoads, next *naiveRoads) Predictions {
	var p Predictions
	for _, w := range []baccarat.Winner{baccarat.BankerWins, baccarat.PlayerWins} {
		var after [3][]MarkCell
		if next != nil && next.bead[len(next.bead)-1].Winner == w {
			after = next.derived
		} else {
			after = naiveDerived(t, append(winnersOf(rounds), w), set)
		}
		for road := range 3 {
			var mk Mark
			if len(after[road]) > len(now.derived[road]) {
				mk = after[road][len(after[road])-1].Mark
			}
			if w == baccarat.BankerWins {
				p.Banker[road] = mk
			} else {
				p.Player[road] = mk
			}
		}
	}
	return p
}

// randomShoe draws settings and a shoe's results: some shoes nearly fair, some with long
// runs, some with many ties, on boards from 1 to 7 rows, so that tails, tails above
// tails and top-row tails all come up.
func randomShoe(rng *rand.Rand) (Settings, []Round) {
	rows := func() int {
		if rng.IntN(3) == 0 {
			return 1 + rng.IntN(7)
		}
		return 6
	}
	set := Settings{BeadRows: rows(), Rows: rows(), DerivedRows: rows(), StraightDropBlue: rng.IntN(4) == 0}
	stay := []float64{0.5, 0.5, 0.7, 0.9, 0.97}[rng.IntN(5)] // chance the winner repeats
	tie := []float64{0, 0.1, 0.3}[rng.IntN(3)]
	n := 1 + rng.IntN(110)
	rounds := make([]Round, 0, n)
	last := baccarat.BankerWins
	if rng.IntN(2) == 0 {
		last = baccarat.PlayerWins
	}
	for range n {
		r := Round{Points: UnknownPoints, BankerPair: rng.IntN(11) == 0, PlayerPair: rng.IntN(11) == 0}
		switch {
		case rng.Float64() < tie:
			r.Winner = baccarat.Tie
		case rng.Float64() < stay:
			r.Winner = last
		default:
			r.Winner = baccarat.BankerWins + baccarat.PlayerWins - last
		}
		if r.Winner != baccarat.Tie {
			last = r.Winner
		}
		if rng.IntN(3) == 0 {
			r.Natural = true
			r.Points = 8 + rng.IntN(2)
		} else if rng.IntN(2) == 0 {
			r.Points = rng.IntN(10)
		}
		rounds = append(rounds, r)
	}
	return set, rounds
}

func tokens(rounds []Round) string {
	var s []string
	for _, r := range rounds {
		s = append(s, r.Token())
	}
	return strings.Join(s, " ")
}

// TestAgainstNaive checks, over thousands of random shoes, that after every round the
// incremental roads, predictions and statistics equal the naive recomputation. Maps are
// reused from shoe to shoe, so Reset is checked too. With -short or under the race
// detector it checks 300 shoes; BenchmarkAgainstNaive checks the 3,000.
func TestAgainstNaive(t *testing.T) {
	shoes := 3000
	if testing.Short() || raceDetector {
		shoes = 300
	}
	againstNaive(t, shoes)
}

// BenchmarkAgainstNaive is TestAgainstNaive with its 3,000 shoes whatever the flags:
// .ci/run's benchmarks pass, without the race detector, checks them.
func BenchmarkAgainstNaive(b *testing.B) {
	for b.Loop() {
		againstNaive(b, 3000)
	}
}

func againstNaive(t testing.TB, shoes int) {
	maps := map[Settings]*Map{}
	for seed := range uint64(shoes) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		set, rounds := randomShoe(rng)
		m := maps[set]
		if m == nil {
			var err error
			if m, err = New(set); err != nil {
				t.Fatal(err)
			}
			maps[set] = m
		}
		m.Reset()
		want := naive(t, rounds[:1], set)
		for i, r := range rounds {
			if err := m.Add(r); err != nil {
				t.Fatal(err)
			}
			// The roads after the next round are needed for the next check, and they are
			// one of the two this round's predictions add: computed once, for both.
			var next *naiveRoads
			if i+1 < len(rounds) {
				n := naive(t, rounds[:i+2], set)
				next = &n
			}
			want.pred = naivePredictions(t, rounds[:i+1], set, want, next)
			if msg := diff(m, want); msg != "" {
				t.Fatalf("seed %d, settings %+v, after round %d of %q:\n%s", seed, set, i+1, tokens(rounds), msg)
			}
			if next != nil {
				want = *next
			}
		}
	}
}

// diff compares m with the naive roads of the same rounds.
func diff(m *Map, want naiveRoads) string {
	var b strings.Builder
	if got := m.BeadPlate(); !slices.Equal(got, want.bead) {
		fmt.Fprintf(&b, "bead plate: got %v, want %v\n", got, want.bead)
	}
	if got := m.BigRoad(); !slices.Equal(got, want.big) {
		fmt.Fprintf(&b, "big road: got %v, want %v\n", got, want.big)
	}
	for road := range 3 {
		if got := m.Derived(Road(road)); !slices.Equal(got, want.derived[road]) {
			fmt.Fprintf(&b, "%s: got %v, want %v\n", Road(road), got, want.derived[road])
		}
	}
	if got := m.Predictions(); got != want.pred {
		fmt.Fprintf(&b, "predictions: got %+v, want %+v\n", got, want.pred)
	}
	if got := m.Stats(); got != want.stats {
		fmt.Fprintf(&b, "stats: got %+v, want %+v\n", got, want.stats)
	}
	return b.String()
}

// TestNaiveLayoutByHand pins the naive layout itself to a hand-drawn board, so that the
// property test does not rest on two implementations sharing a mistake: runs of 8, 5, 1
// and 3 on four rows. The run of 8 goes down column 0 and along row 3 to column 4; the
// run of 5 stops above that tail and runs along row 2 to column 3; the run of 1 takes
// the top of column 2; the run of 3 starts at column 3, stops above row 2 and turns
// right along row 1.
func TestNaiveLayoutByHand(t *testing.T) {
	got := naiveLayout(t, []int{8, 5, 1, 3}, 4)
	want := []Pos{
		{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 3}, {2, 3}, {3, 3}, {4, 3},
		{1, 0}, {1, 1}, {1, 2}, {2, 2}, {3, 2},
		{2, 0},
		{3, 0}, {3, 1}, {4, 1},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}
