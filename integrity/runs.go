// Package integrity finds what the cards' order says about a floor's shoes: a run of
// cards that repeats an earlier shoe's, a shuffle that leaves neighbours together, card
// positions that are not uniform over many sets, and results that drift from the rule
// set's exact probabilities. It reads orders and results as data; it does no I/O and
// reads no clock. The figures and how they were measured are in docs/integrity.md.
package integrity

import (
	"fmt"
	"math"
	"slices"

	"github.com/tablectl/tablectl/baccarat"
)

// Floor is the size of a floor for the repeated-order check: how many shoes one new
// shoe is compared with, and how many new shoes a year brings.
type Floor struct {
	Tables      int // tables dealing
	ShoesPerDay int // shoes a table deals in a day
	WindowDays  int // how far back a new shoe is compared (the window)
	Cards       int // cards dealt from a shoe, at most
}

// DefaultFloor is the floor the repeated-order check is sized for: 500 tables, 30
// shoes a table a day, a 90-day window, 8-deck shoes (416 cards).
var DefaultFloor = Floor{Tables: 500, ShoesPerDay: 30, WindowDays: 90, Cards: 416}

// ChanceRuns is how many runs of length n two honest shoes of this floor share by
// chance in a year, expected. Each new shoe is compared with the window's shoes; each
// pair of shoes has Cards² pairs of starting positions; a run of n cards matches by
// chance with probability (1/52)^n, for two cards of well-mixed shoes are the same
// card with probability 1/52 (Σ over the 52 cards of (1/52)²).
func (f Floor) ChanceRuns(n int) float64 {
	perYear := float64(f.Tables) * float64(f.ShoesPerDay) * 365
	window := float64(f.Tables) * float64(f.ShoesPerDay) * float64(f.WindowDays)
	starts := float64(f.Cards) * float64(f.Cards)
	return perYear * window * starts * math.Pow(52, -float64(n))
}

// MinRun is the shortest run that honest shoes of this floor share less than once a
// year by chance (ChanceRuns(n) < 1): a run this long or longer is an alarm.
func (f Floor) MinRun() int {
	n := 1
	for f.ChanceRuns(n) >= 1 {
		n++
	}
	return n
}

// MaxKey is the longest run a Key spells exactly: 52^11 < 2^63, so eleven cards fit a
// signed 64-bit integer, as a database keeps it.
const MaxKey = 11

// Key spells the n cards of order from position i as one number in base 52, each card
// a digit (baccarat.Card.Index). Two runs have the same key exactly when they are the
// same cards in the same order; there is no hash and no false match. n is at most MaxKey.
func Key(order []baccarat.Card, i, n int) int64 {
	var k int64
	for _, c := range order[i : i+n] {
		k = k*52 + int64(c.Index())
	}
	return k
}

// Keys returns the key of every run of n cards of order, by its starting position:
// the index of a shoe in the repeated-order check. n is at most MaxKey.
func Keys(order []baccarat.Card, n int) []int64 {
	if n > MaxKey {
		panic(fmt.Sprintf("integrity: a key holds at most %d cards, not %d", MaxKey, n))
	}
	if len(order) < n {
		return nil
	}
	keys := make([]int64, 0, len(order)-n+1)
	var k, top int64 = 0, 1
	for range n - 1 {
		top *= 52
	}
	for i, c := range order {
		if i >= n {
			k -= int64(order[i-n].Index()) * top
		}
		k = k*52 + int64(c.Index())
		if i >= n-1 {
			keys = append(keys, k)
		}
	}
	return keys
}

// Run is a run of cards two shoes share: Len cards from position A of the first shoe
// (0 is the first card read) and from position B of the other.
type Run struct {
	A, B int
	Len  int
}

// Runs returns every maximal run of at least least cards that orders a and b share,
// in order of position in a. A run is maximal: it cannot be made longer at either end.
func Runs(a, b []baccarat.Card, least int) []Run {
	least = max(least, 1)
	k := min(least, MaxKey)
	at := map[int64][]int{} // key: its positions in b
	for j, key := range Keys(b, k) {
		at[key] = append(at[key], j)
	}
	var out []Run
	for i, key := range Keys(a, k) {
		for _, j := range at[key] {
			if i > 0 && j > 0 && a[i-1] == b[j-1] {
				continue // inside a run found from an earlier position
			}
			n := k
			for i+n < len(a) && j+n < len(b) && a[i+n] == b[j+n] {
				n++
			}
			if n >= least {
				out = append(out, Run{A: i, B: j, Len: n})
			}
		}
	}
	return out
}

// Posting is one run's place in an Index: the shoe (its number in the index) and the
// run's first position.
type Posting struct {
	Shoe int32
	Pos  uint16
}

// Index holds the shoes a new shoe is compared with, by the keys of their runs of
// Index.Len cards. It is the in-memory form of the archive's table of keys. It is not
// safe for concurrent use.
type Index struct {
	n      int // the run length keyed: the alarm's length, or MaxKey
	shoes  [][]baccarat.Card
	byKey  map[int64][]Posting
	minRun int
}

// NewIndex returns an empty index that finds runs of at least minRun cards.
func NewIndex(minRun int) *Index {
	if minRun < 1 {
		minRun = 1
	}
	return &Index{n: min(minRun, MaxKey), byKey: map[int64][]Posting{}, minRun: minRun}
}

// Add adds a shoe's order and returns its number in the index.
func (x *Index) Add(order []baccarat.Card) int {
	no := len(x.shoes)
	x.shoes = append(x.shoes, slices.Clone(order))
	for pos, k := range Keys(order, x.n) {
		x.byKey[k] = append(x.byKey[k], Posting{Shoe: int32(no), Pos: uint16(pos)})
	}
	return no
}

// Match is a run a new shoe shares with a shoe of the index.
type Match struct {
	Shoe int // the shoe's number in the index
	Run
}

// Find returns every maximal run of at least the index's length that order shares
// with a shoe of the index, by shoe then position in order. order itself need not be
// in the index; a shoe of the index is compared with itself only if added twice.
func (x *Index) Find(order []baccarat.Card) []Match {
	var out []Match
	for i, k := range Keys(order, x.n) {
		for _, p := range x.byKey[k] {
			b, j := x.shoes[p.Shoe], int(p.Pos)
			if i > 0 && j > 0 && order[i-1] == b[j-1] {
				continue // inside a run found from an earlier position
			}
			n := x.n
			for i+n < len(order) && j+n < len(b) && order[i+n] == b[j+n] {
				n++
			}
			if n >= x.minRun {
				out = append(out, Match{Shoe: int(p.Shoe), Run: Run{A: i, B: j, Len: n}})
			}
		}
	}
	slices.SortFunc(out, func(p, q Match) int {
		if p.Shoe != q.Shoe {
			return p.Shoe - q.Shoe
		}
		return p.A - q.A
	})
	return out
}
