package analysis

import "github.com/tablectl/tablectl/baccarat"

// Tally is the result of an enumeration: the exact weight of every distinct Outcome, and,
// where Insurance is analysed, the weight of every Outcome under each pay-table row that
// was offered on the way to it.
type Tally struct {
	Total     uint64
	Outcomes  map[baccarat.Outcome]uint64
	Insurance map[int]map[baccarat.Outcome]uint64 // pay-table row -> outcome -> weight
}

// Enumerate deals every possible round from a full shoe of decks decks, card by card in
// the order of the Table of Play (baccarat.Coup), and adds the weight of each finished
// round to its Outcome. It walks ranks, not cards: a rank drawn when c cards of it remain
// multiplies the weight by c. Where suits matter (withSuits), each rank sequence is split
// into the sequences whose cards are all of one suit and the rest, and each part is
// settled on a representative coup carrying such suits; the weight of "all one suit" for
// a rank sequence is 4 * prod(decks - earlier cards of the same rank).
func Enumerate(decks int, withSuits, withInsurance bool) *Tally {
	e := &enumerator{
		decks:     decks,
		withSuits: withSuits,
		withIns:   withInsurance,
		tally:     &Tally{Outcomes: map[baccarat.Outcome]uint64{}},
	}
	if withInsurance {
		e.tally.Insurance = map[int]map[baccarat.Outcome]uint64{}
	}
	n := uint64(52 * decks)
	for r := baccarat.Ace; r <= baccarat.King; r++ {
		e.counts[r] = 4 * decks
	}
	// tail[k] is the number of ways to continue a k-card round to six cards.
	for k := 0; k <= 6; k++ {
		t := uint64(1)
		for i := uint64(k); i < 6; i++ {
			t *= n - i
		}
		e.tail[k] = t
	}
	e.tally.Total = e.tail[0]
	e.walk(baccarat.Coup{}, baccarat.Coup{}, 1, 1, e.offerBuf[:0])
	return e.tally
}

type enumerator struct {
	decks     int
	withSuits bool
	withIns   bool
	counts    [14]int
	tail      [7]uint64
	tally     *Tally
	offerBuf  [8]baccarat.InsuranceOffer
}

// walk extends coup c (all cards Spades) and cu (the same ranks, first card Hearts: the
// representative of the sequences not all of one suit) by every rank still in the shoe.
// w is the weight of the rank sequence so far, fw the weight of one suit's worth of it.
func (e *enumerator) walk(c, cu baccarat.Coup, w, fw uint64, offers []baccarat.InsuranceOffer) {
	if c.Complete() {
		e.leaf(c, cu, w, fw, offers)
		return
	}
	if e.withIns {
		offers = baccarat.InsuranceOffers(offers, c)
	}
	first := c.Len() == 0
	for r := baccarat.Ace; r <= baccarat.King; r++ {
		cnt := e.counts[r]
		if cnt == 0 {
			continue
		}
		sameSuit := e.decks - (4*e.decks - cnt)
		if sameSuit < 0 {
			sameSuit = 0
		}
		e.counts[r]--
		c2, cu2 := c, cu
		c2.Place(baccarat.Card{Rank: r, Suit: baccarat.Spades})
		if e.withSuits {
			s := baccarat.Spades
			if first {
				s = baccarat.Hearts
			}
			cu2.Place(baccarat.Card{Rank: r, Suit: s})
		}
		e.walk(c2, cu2, w*uint64(cnt), fw*uint64(sameSuit), offers)
		e.counts[r]++
	}
}

func (e *enumerator) leaf(c, cu baccarat.Coup, w, fw uint64, offers []baccarat.InsuranceOffer) {
	tail := e.tail[c.Len()]
	total := w * tail
	if !e.withSuits {
		e.add(baccarat.OutcomeOf(c), total, offers)
		return
	}
	suited := 4 * fw * tail
	e.add(baccarat.OutcomeOf(c), suited, offers)
	e.add(baccarat.OutcomeOf(cu), total-suited, offers)
}

func (e *enumerator) add(o baccarat.Outcome, w uint64, offers []baccarat.InsuranceOffer) {
	if w == 0 {
		return
	}
	e.tally.Outcomes[o] += w
	for _, off := range offers {
		m := e.tally.Insurance[off.Row]
		if m == nil {
			m = map[baccarat.Outcome]uint64{}
			e.tally.Insurance[off.Row] = m
		}
		m[o] += w
	}
}
