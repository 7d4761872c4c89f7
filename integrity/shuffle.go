package integrity

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tablectl/tablectl/baccarat"
)

// Neighbours counts the adjacent pairs of next that are also adjacent, in the same
// order, in prev: card y right after card x in next, where some y came right after some
// x in prev (by identity: the decks' copies of a card are alike). A weak shuffle leaves
// many of the previous set's neighbours together; a thorough one about as many as
// chance does.
func Neighbours(prev, next []baccarat.Card) int {
	var pairs [52 * 52]bool
	for i := 1; i < len(prev); i++ {
		pairs[prev[i-1].Index()*52+prev[i].Index()] = true
	}
	return neighbours(&pairs, next)
}

func neighbours(pairs *[52 * 52]bool, next []baccarat.Card) int {
	n := 0
	for i := 1; i < len(next); i++ {
		if pairs[next[i-1].Index()*52+next[i].Index()] {
			n++
		}
	}
	return n
}

// ShuffleAlarm is the p-value at or below which one set's shuffle is an alarm. A floor
// of 15,000 shoes a day has a thorough shuffle below it about once in two months.
const ShuffleAlarm = 1e-6

// ShuffleResult is the weak-shuffle test of one set against the set before it.
type ShuffleResult struct {
	Neighbours int     // Neighbours(prev, next)
	Expected   float64 // what chance gives: the mean over every order of next's cards
	P          float64 // the chance of as many neighbours or more, were next thoroughly shuffled
}

// ShuffleTest tests next, the dealt order of a set, against prev, the order the
// shuffler was given (the previous set's dealt order): how many of prev's neighbours
// stay neighbours. Expected is exact: in a random order of next's cards, a given place
// holds the pair (x, y) with probability n(x)·n(y) / (N(N−1)), n(x)·(n(x)−1) / (N(N−1))
// when y is x, for N cards of which n(x) are x. P reads the count against a binomial
// law of len(next)−1 trials of mean Expected, which fits the count's spread over random
// orders (docs/integrity.md). A thorough shuffle gives P spread evenly between 0 and 1;
// a weak one a small P.
func ShuffleTest(prev, next []baccarat.Card) ShuffleResult {
	var pairs [52 * 52]bool
	for i := 1; i < len(prev); i++ {
		pairs[prev[i-1].Index()*52+prev[i].Index()] = true
	}
	got := neighbours(&pairs, next)
	if len(next) < 2 {
		return ShuffleResult{Neighbours: got, P: 1}
	}
	var count [52]float64
	for _, c := range next {
		count[c.Index()]++
	}
	n := float64(len(next))
	q := 0.0 // the chance that one place holds a pair of prev's
	for x := range 52 {
		for y := range 52 {
			if !pairs[x*52+y] {
				continue
			}
			if x == y {
				q += count[x] * (count[x] - 1)
			} else {
				q += count[x] * count[y]
			}
		}
	}
	q /= n * (n - 1)
	r := ShuffleResult{Neighbours: got, Expected: (n - 1) * q, P: 1}
	if got > 0 && q > 0 {
		r.P = distuv.Binomial{N: n - 1, P: q}.Survival(float64(got) - 1)
	}
	if q == 0 && got > 0 {
		r.P = 0
	}
	return r
}

// Combined is Fisher's combination of the p-values of independent tests: the chance,
// were every null hypothesis true, of a product of p-values as small as theirs or
// smaller (−2 Σ ln p follows a chi-square law of 2n degrees of freedom). It is 1 for no
// p-value. Over a shuffler's last sets it finds a shuffle a little weak every time,
// which no one set shows.
func Combined(ps []float64) float64 {
	if len(ps) == 0 {
		return 1
	}
	x := 0.0
	for _, p := range ps {
		x -= 2 * math.Log(p)
	}
	return distuv.ChiSquared{K: float64(2 * len(ps))}.Survival(x)
}
