package baccarat

// Hand is the cards of the Player Hand or the Banker Hand: two or three cards once dealt.
// It is a value; the zero Hand holds no card.
type Hand struct {
	cards [3]Card
	n     uint8
	pts   uint8 // the Point Total of the cards so far, kept as each card is added
}

// add puts card into the hand and keeps its Point Total.
func (h *Hand) add(card Card) {
	h.cards[h.n] = card
	h.n++
	// The Point Total is the sum of the card values, modulo 10 (RWS Baccarat 1.17, 3.2).
	t := h.pts + uint8(card.Points())
	if t >= 10 {
		t -= 10
	}
	h.pts = t
}

// Len is the number of cards in the hand.
func (h *Hand) Len() int { return int(h.n) }

// Card returns the i-th card (0-based) of the hand.
func (h *Hand) Card(i int) Card { return h.cards[i] }

// Points is the hand's Point Total: the sum of the card values, modulo 10
// (RWS Baccarat 1.17 and 3.2; NC Tournament 3.8).
func (h *Hand) Points() int { return int(h.pts) }

// TwoCardPoints is the Point Total of the first two cards.
func (h *Hand) TwoCardPoints() int {
	return (h.cards[0].Points() + h.cards[1].Points()) % 10
}

// Pair reports whether the first two cards have the same rank (RWS Baccarat 1.15: 10-10
// or K-K is a pair; 10-K is not).
func (h *Hand) Pair() bool {
	return h.n >= 2 && h.cards[0].Rank == h.cards[1].Rank
}

// Slot names a card's place in a round, in drawing order: P1, B1, P2, B2, then P3 and
// B3 only when the Table of Play gives them (RWS Baccarat 3.10, 3.11).
type Slot uint8

// The six slots. NoSlot means no card is due.
const (
	NoSlot Slot = iota
	P1
	B1
	P2
	B2
	P3
	B3
)

var slotNames = [...]string{"none", "P1", "B1", "P2", "B2", "P3", "B3"}

// String names the slot: P1, B1, P2, B2, P3, B3, or "none".
func (s Slot) String() string {
	if int(s) < len(slotNames) {
		return slotNames[s]
	}
	return "?"
}

// MarshalText prints the slot as String does.
func (s Slot) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Player reports whether the slot belongs to the Player Hand.
func (s Slot) Player() bool { return s == P1 || s == P2 || s == P3 }

// Coup is the cards of one round: the Player Hand and the Banker Hand, filled strictly in
// the order the Table of Play gives. It is a small value with no pointers, so it copies
// freely and never allocates.
type Coup struct {
	Player Hand
	Banker Hand
}

// Len is the number of cards dealt so far, 0 to 6.
func (c *Coup) Len() int { return c.Player.Len() + c.Banker.Len() }

// Natural reports whether either hand's first two cards total 8 or 9 (RWS Baccarat 1.10),
// after which neither hand draws.
func (c *Coup) Natural() bool {
	if c.Player.n < 2 || c.Banker.n < 2 {
		return false
	}
	return c.Player.TwoCardPoints() >= 8 || c.Banker.TwoCardPoints() >= 8
}

// Next is the slot the next card goes to by the Baccarat Table of Play, or NoSlot when the
// round is complete.
func (c *Coup) Next() Slot {
	pn, bn := c.Player.n, c.Banker.n
	switch {
	case pn+bn < 4:
		return Slot(pn + bn + 1)
	case pn == 2 && bn == 2: // both hands' totals are their two-card totals
		p, b := int(c.Player.pts), int(c.Banker.pts)
		switch {
		case p >= 8 || b >= 8: // a Natural: neither hand draws
			return NoSlot
		case PlayerDraws(p):
			return P3
		case BankerDraws(b, NoThirdCard):
			return B3
		}
	case pn == 3 && bn == 2: // the Player drew, so there was no Natural
		if BankerDraws(int(c.Banker.pts), c.Player.cards[2].Points()) {
			return B3
		}
	}
	return NoSlot
}

// Complete reports whether the round needs no more cards.
func (c *Coup) Complete() bool { return c.Next() == NoSlot }

// Place puts card into the slot Next gives and returns that slot. When the round is
// complete it changes nothing and returns NoSlot: a card that is not due is never
// assigned to a hand.
func (c *Coup) Place(card Card) Slot {
	s := c.Next()
	c.put(s, card)
	return s
}

// put puts card into slot s (NoSlot: nowhere).
func (c *Coup) put(s Slot, card Card) {
	switch s {
	case NoSlot:
	case P1, P2, P3:
		c.Player.add(card)
	default:
		c.Banker.add(card)
	}
}

// PlaceNext is Place that also returns the slot due after it (NoSlot: the round is now
// complete), sparing the caller a second look at the Table of Play.
func (c *Coup) PlaceNext(card Card) (placed, next Slot) {
	pn, bn := c.Player.n, c.Banker.n
	if pn+bn < 3 {
		// The first three cards go P1 B1 P2 and the next is always due: no table to read.
		if pn == bn {
			c.Player.add(card)
		} else {
			c.Banker.add(card)
		}
		placed = Slot(pn + bn + 1)
		return placed, placed + 1
	}
	switch placed = c.Next(); placed {
	case NoSlot:
		return NoSlot, NoSlot
	case P3:
		c.Player.add(card)
	default:
		c.Banker.add(card)
	}
	return placed, c.Next()
}

// SlotCard returns the card in slot s and whether that slot has been dealt.
func (c *Coup) SlotCard(s Slot) (Card, bool) {
	h, i := &c.Player, 0
	switch s {
	case P1:
	case P2:
		i = 1
	case P3:
		i = 2
	case B1:
		h = &c.Banker
	case B2:
		h, i = &c.Banker, 1
	case B3:
		h, i = &c.Banker, 2
	default:
		return Card{}, false
	}
	if i >= h.Len() {
		return Card{}, false
	}
	return h.cards[i], true
}

// CoupOf deals cards into a fresh coup in order and returns it with the number of cards
// used; cards past the end of the round are not used.
func CoupOf(cards ...Card) (Coup, int) {
	var c Coup
	for i, card := range cards {
		if c.Place(card) == NoSlot {
			return c, i
		}
	}
	return c, len(cards)
}
