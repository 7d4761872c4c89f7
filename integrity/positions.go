package integrity

import (
	"fmt"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tablectl/tablectl/baccarat"
)

// Confidence is the confidence level of the position test: Maryland COMAR
// 36.05.02.17 asks a shuffler's randomness to be shown at 95%.
const Confidence = 0.95

// Positions tallies, over many sets, where each of the 52 cards lies in the dealt
// order: in which of Buckets equal parts of the first Depth positions. Cards past Depth
// are left out, for a shoe is not dealt to its end (the cut card). It is not safe for
// concurrent use.
type Positions struct {
	Depth, Buckets int
	counts         [52][]int64
	sets           int
}

// NewPositions returns an empty tally of the first depth positions in buckets parts.
// depth must be a multiple of buckets, and buckets at least 2.
func NewPositions(depth, buckets int) (*Positions, error) {
	if buckets < 2 || depth < buckets || depth%buckets != 0 {
		return nil, fmt.Errorf("integrity: positions: %d positions cannot be cut into %d equal parts", depth, buckets)
	}
	p := &Positions{Depth: depth, Buckets: buckets}
	for i := range p.counts {
		p.counts[i] = make([]int64, buckets)
	}
	return p, nil
}

// Add tallies one set's dealt order. An order shorter than Depth is refused.
func (p *Positions) Add(order []baccarat.Card) error {
	if len(order) < p.Depth {
		return fmt.Errorf("integrity: positions: a set of %d cards dealt, fewer than the %d tallied", len(order), p.Depth)
	}
	width := p.Depth / p.Buckets
	for i, c := range order[:p.Depth] {
		p.counts[c.Index()][i/width]++
	}
	p.sets++
	return nil
}

// PositionResult is the chi-square test of the positions tallied.
type PositionResult struct {
	Sets   int     // the sets tallied
	Chi2   float64 // Pearson's statistic of the cards × parts table
	DF     int     // its degrees of freedom: (cards seen − 1) × (Buckets − 1)
	P      float64 // the chance of a statistic as large or larger, were positions random
	Passes bool    // P ≥ 1 − Confidence: nothing says the positions are not random
}

// Test is the chi-square test of independence between a card and the part of the
// order it lies in: a shuffler that favours some cards at the top, or leaves the
// previous order's structure, makes some cells far from what chance gives. Each cell
// is expected at its card's total times its part's share.
func (p *Positions) Test() PositionResult {
	var rows [52]float64
	cols := make([]float64, p.Buckets)
	total := 0.0
	seen := 0
	for c := range p.counts {
		for b, n := range p.counts[c] {
			rows[c] += float64(n)
			cols[b] += float64(n)
			total += float64(n)
		}
		if rows[c] > 0 {
			seen++
		}
	}
	r := PositionResult{Sets: p.sets, P: 1, Passes: true}
	if seen < 2 {
		return r
	}
	for c := range p.counts {
		if rows[c] == 0 {
			continue
		}
		for b, n := range p.counts[c] {
			e := rows[c] * cols[b] / total
			d := float64(n) - e
			r.Chi2 += d * d / e
		}
	}
	r.DF = (seen - 1) * (p.Buckets - 1)
	r.P = distuv.ChiSquared{K: float64(r.DF)}.Survival(r.Chi2)
	r.Passes = r.P >= 1-Confidence
	return r
}

// Count is how many times card (its baccarat.Card.Index) lay in part part of the
// orders tallied; 0 for a card or part out of range.
func (p *Positions) Count(card, part int) int64 {
	if card < 0 || card >= len(p.counts) || part < 0 || part >= p.Buckets {
		return 0
	}
	return p.counts[card][part]
}
