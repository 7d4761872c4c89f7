package baccarat

// Established reports whether an outcome has been established for the round in progress
// c, in the sense of RWS Baccarat 5.4.1 (NC Insurance 5.4.1): some bet the rule set offers
// has conclusively won or lost, whatever cards are still to come. A complete round is
// established. Insurance is not counted: it exists only once offered.
//
// It settles, with Resolve, every way the round can still end. Every rank is taken as
// still available (a full shoe holds at least four of each); where the rule set needs
// suits, each completion is tried both with all its cards of one suit and not.
func (rs *RuleSet) Established(c Coup) bool {
	if c.Complete() {
		return true
	}
	w := establishedWalk{rs: rs}
	for _, b := range rs.Bets {
		if !b.Insurance() {
			w.bets = append(w.bets, b)
		}
	}
	w.first = make([]Result, len(w.bets))
	w.live = len(w.bets)
	suit, allOne := Spades, true
	if c.Len() > 0 {
		suit = c.Player.cards[0].Suit
		allOne = SuitClassOf(c) != Unsuited
	}
	w.suit, w.mixed = suit, otherSuit(suit)
	w.walk(c, c, !allOne)
	for i := range w.bets {
		if w.first[i] == Win || w.first[i] == Lose {
			return true
		}
	}
	return false
}

type establishedWalk struct {
	rs          *RuleSet
	bets        []Bet
	first       []Result // the bet's result in every completion so far; Undecided once it varies
	seen        bool
	live        int // bets whose result has not varied yet
	suit, mixed Suit
}

// walk deals every rank into c (cards of the hand's suit) and cu (the first new card of
// another suit, so the round is not all one suit); mixed says cu already differs.
func (w *establishedWalk) walk(c, cu Coup, mixed bool) bool {
	if c.Complete() {
		w.settle(c)
		if w.rs.NeedsSuits() {
			w.settle(cu)
		}
		return w.live > 0
	}
	for r := Ace; r <= King; r++ {
		c2, cu2 := c, cu
		c2.Place(Card{Rank: r, Suit: w.suit})
		s := w.suit
		if !mixed {
			s = w.mixed
		}
		cu2.Place(Card{Rank: r, Suit: s})
		if !w.walk(c2, cu2, true) {
			return false
		}
	}
	return true
}

func (w *establishedWalk) settle(c Coup) {
	o := OutcomeOf(c)
	for i, b := range w.bets {
		r := w.rs.Resolve(b, o).Result
		switch {
		case !w.seen:
			w.first[i] = r
		case w.first[i] != Undecided && w.first[i] != r:
			w.first[i] = Undecided
			w.live--
		}
	}
	w.seen = true
}

func otherSuit(s Suit) Suit {
	if s == Hearts {
		return Spades
	}
	return Hearts
}
