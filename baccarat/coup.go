package baccarat

// Hand is the cards of the Player Hand or the Banker Hand: two or three cards once dealt.
// It is a value; the zero Hand holds no card.
type Hand struct {
	cards [3]Card
	n     uint8
	pts   uint8 // the Point Total of the cards so far, kept as each card is added
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
// freely and never allocates. It keeps the slot due next as each card is placed, so the
// Table of Play is read once a card.
type Coup struct {
	Player Hand
	Banker Hand
	due    Slot // the slot due next, less one: the zero Coup has P1 due, a complete one NoSlot
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
func (c *Coup) Next() Slot { return c.due + 1 }

// afterFour is the slot due after the first four cards, by the two hands' two-card
// totals (Player, Banker): NoSlot on a Natural (RWS Baccarat 3.12), P3 when the Player
// draws, B3 when only the Banker does (RWS Baccarat 3.11). bankerDrawsOn3 is, by the
// Banker's two-card total, the values of the Player's third card on which the Banker
// draws, as a bit set. Both are read off PlayerDraws and BankerDraws; each is 16 wide, so
// that a total taken modulo 16 indexes it with no bounds check.
var afterFour, bankerDrawsOn3 = tablesOfPlay()

func tablesOfPlay() (after [16][16]Slot, banker [16]uint16) {
	for p := range 10 {
		for b := range 10 {
			switch {
			case p >= 8 || b >= 8:
				after[p][b] = NoSlot
			case PlayerDraws(p):
				after[p][b] = P3
			case BankerDraws(b, NoThirdCard):
				after[p][b] = B3
			default:
				after[p][b] = NoSlot
			}
		}
	}
	for b := range 10 {
		for v := range 10 {
			if BankerDraws(b, v) {
				banker[b] |= 1 << v
			}
		}
	}
	return after, banker
}

// Complete reports whether the round needs no more cards.
func (c *Coup) Complete() bool { return c.Next() == NoSlot }

// Place puts card into the slot Next gives and returns that slot. When the round is
// complete it changes nothing and returns NoSlot: a card that is not due is never
// assigned to a hand.
func (c *Coup) Place(card Card) Slot {
	s, _ := c.PlaceNext(card)
	return s
}

// PlaceNext is Place that also returns the slot due after it (NoSlot: the round is now
// complete).
func (c *Coup) PlaceNext(card Card) (placed, next Slot) {
	// Each slot is one place in one hand, so the card goes straight there and the hand's
	// count is known; the Table of Play is read only after B2 and P3.
	v := pointsOf[card.Rank]
	switch placed = c.due + 1; placed {
	case P1:
		c.Player.cards[0], c.Player.n, c.Player.pts = card, 1, v
		next = B1
	case B1:
		c.Banker.cards[0], c.Banker.n, c.Banker.pts = card, 1, v
		next = P2
	case P2:
		c.Player.cards[1], c.Player.n, c.Player.pts = card, 2, mod10[(c.Player.pts+v)&31]
		next = B2
	case B2:
		c.Banker.cards[1], c.Banker.n, c.Banker.pts = card, 2, mod10[(c.Banker.pts+v)&31]
		next = afterFour[c.Player.pts&15][c.Banker.pts&15]
	case P3:
		c.Player.cards[2], c.Player.n, c.Player.pts = card, 3, mod10[(c.Player.pts+v)&31]
		next = NoSlot
		if bankerDrawsOn3[c.Banker.pts&15]>>v&1 != 0 {
			next = B3
		}
	case B3:
		c.Banker.cards[2], c.Banker.n, c.Banker.pts = card, 3, mod10[(c.Banker.pts+v)&31]
		next = NoSlot
	default:
		return NoSlot, NoSlot
	}
	c.due = next - 1
	return placed, next
}

// pointsOf is each rank's point value (Rank.Points), by rank; mod10 is a sum of two
// point values modulo 10.
var pointsOf, mod10 = func() (points [256]uint8, mod [32]uint8) {
	for r := range points {
		points[r] = uint8(Rank(r).Points())
	}
	for t := range mod {
		mod[t] = uint8(t % 10)
	}
	return points, mod
}()

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
