package baccarat

import "fmt"

// Winner is the result of a complete round.
type Winner uint8

// The three results. NoWinner marks a round that is not complete.
const (
	NoWinner Winner = iota
	PlayerWins
	BankerWins
	Tie
)

// String is the result's one-letter roadmap notation: P, B or T ("-" for none).
func (w Winner) String() string {
	switch w {
	case PlayerWins:
		return "P"
	case BankerWins:
		return "B"
	case Tie:
		return "T"
	}
	return "-"
}

// MarshalText prints the result as "player", "banker" or "tie".
func (w Winner) MarshalText() ([]byte, error) {
	switch w {
	case PlayerWins:
		return []byte("player"), nil
	case BankerWins:
		return []byte("banker"), nil
	case Tie:
		return []byte("tie"), nil
	}
	return []byte("none"), nil
}

// UnmarshalText reads "player", "banker", "tie" or "none".
func (w *Winner) UnmarshalText(b []byte) error {
	for _, x := range []Winner{NoWinner, PlayerWins, BankerWins, Tie} {
		if t, _ := x.MarshalText(); string(t) == string(b) {
			*w = x
			return nil
		}
	}
	return fmt.Errorf("unknown winner %q", b)
}

// SuitClass classifies the suits and ranks of all the cards of a round, for the Royal
// Baccarat Tie bet. tablectl reads the Royal Baccarat tiers as follows:
//
//   - RoyalFlush: all cards one suit, and their ranks include A, K, Q and J;
//   - StraightFlush: all cards one suit, ranks all distinct and consecutive (Ace low in
//     A-2-3-4, high in J-Q-K-A, no wrap), and not a RoyalFlush;
//   - Flush: all cards one suit otherwise;
//   - Unsuited: not all one suit.
type SuitClass uint8

// The four classes.
const (
	Unsuited SuitClass = iota
	Flush
	StraightFlush
	RoyalFlush
)

var suitClassNames = [...]string{"unsuited", "flush", "straight_flush", "royal_flush"}

// String names the class: unsuited, flush, straight_flush, royal_flush.
func (s SuitClass) String() string {
	if int(s) < len(suitClassNames) {
		return suitClassNames[s]
	}
	return "?"
}

// MarshalText prints the class as String does.
func (s SuitClass) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a class's name.
func (s *SuitClass) UnmarshalText(b []byte) error {
	for i, n := range suitClassNames {
		if n == string(b) {
			*s = SuitClass(i)
			return nil
		}
	}
	return fmt.Errorf("unknown suit class %q", b)
}

// SuitClassOf classifies the cards of a coup (see SuitClass).
func SuitClassOf(c Coup) SuitClass { return c.suitClass() }

func (c *Coup) suitClass() SuitClass {
	if c.mixedSuits() {
		return Unsuited
	}
	return c.oneSuitClass()
}

// mixedSuits reports, for a coup of two cards in each hand or more, whether the first two
// of each are not all one suit: a round of one suit is rare, one in about sixty. The four
// suits are tested together, with no branch on each, which would be mispredicted as often
// as the suits differ. For a coup of fewer cards it reports false.
func (c *Coup) mixedSuits() bool {
	suits := 1<<(c.Player.cards[0].Suit&7) | 1<<(c.Player.cards[1].Suit&7) |
		1<<(c.Banker.cards[0].Suit&7) | 1<<(c.Banker.cards[1].Suit&7)
	return c.Player.n >= 2 && c.Banker.n >= 2 && suits&(suits-1) != 0
}

// oneSuitClass is suitClass for a coup that mixedSuits does not find mixed.
func (c *Coup) oneSuitClass() SuitClass {
	suit := c.Player.cards[0].Suit
	if c.Banker.n > 0 && c.Banker.cards[0].Suit != suit {
		return Unsuited
	}
	var ranks uint16 // bit r set: rank r present
	distinct := true
	for _, h := range [2]*Hand{&c.Player, &c.Banker} {
		for i := 0; i < int(h.n); i++ {
			card := h.cards[i]
			if card.Suit != suit {
				return Unsuited
			}
			bit := uint16(1) << card.Rank
			if ranks&bit != 0 {
				distinct = false
			}
			ranks |= bit
		}
	}
	const royal = 1<<Ace | 1<<King | 1<<Queen | 1<<Jack
	if ranks&royal == royal {
		return RoyalFlush
	}
	if distinct && consecutive(ranks) {
		return StraightFlush
	}
	return Flush
}

// consecutive reports whether the set bits of ranks (bits 1 to 13) form one run, reading
// the Ace (bit 1) either low (A-2-3-4) or high (J-Q-K-A), with no wrap around.
func consecutive(ranks uint16) bool {
	run := func(bits uint16) bool {
		for bits&1 == 0 {
			bits >>= 1
		}
		return bits&(bits+1) == 0
	}
	if run(ranks) {
		return true
	}
	if ranks&(1<<Ace) != 0 {
		high := ranks&^(1<<Ace) | 1<<(King+1)
		return run(high)
	}
	return false
}

// Outcome is everything about a complete round that any bet can depend on. The live table
// and the exact analysis both reduce a round to an Outcome with OutcomeOf and settle from
// it with Resolve, so the two cannot disagree.
type Outcome struct {
	Winner       Winner    `json:"winner"`
	PlayerPoints uint8     `json:"player_points"`
	BankerPoints uint8     `json:"banker_points"`
	PlayerCards  uint8     `json:"player_cards"`
	BankerCards  uint8     `json:"banker_cards"`
	PlayerPair   bool      `json:"player_pair"`
	BankerPair   bool      `json:"banker_pair"`
	Suits        SuitClass `json:"suits"`
}

// OutcomeOf reduces a complete coup to its Outcome (RWS Baccarat 3.13, 3.14: the higher
// Point Total wins; equal totals are a Tie).
func OutcomeOf(c Coup) Outcome { return c.Outcome() }

// Outcome reduces the complete coup to its Outcome, as OutcomeOf does.
func (c *Coup) Outcome() Outcome {
	var o Outcome
	c.OutcomeTo(&o, nil)
	return o
}

// OutcomeTo writes the complete coup's Outcome, as Outcome returns it, into o and into
// also (nil: none). It reads the coup and writes each outcome field by field: one built in
// place is not read back whole while its narrow stores are in flight (on x86-64 a wide
// load of them waits for them to retire), as one built apart and copied would be.
func (c *Coup) OutcomeTo(o, also *Outcome) {
	p, b := c.Player.pts, c.Banker.pts
	// The winner is the cards' doing: read from a table, not picked by a branch, which
	// would be mispredicted about half the time.
	w := winnerBy[(9+int(p)-int(b))&31]
	pn, bn, pp, bp, suits := c.Player.n, c.Banker.n, c.Player.Pair(), c.Banker.Pair(), Unsuited
	if !c.mixedSuits() {
		suits = c.oneSuitClass()
	}
	o.Winner, o.PlayerPoints, o.BankerPoints, o.PlayerCards, o.BankerCards = w, p, b, pn, bn
	o.PlayerPair, o.BankerPair, o.Suits = pp, bp, suits
	if also != nil {
		also.Winner, also.PlayerPoints, also.BankerPoints, also.PlayerCards, also.BankerCards = w, p, b, pn, bn
		also.PlayerPair, also.BankerPair, also.Suits = pp, bp, suits
	}
}

// winnerBy is the winner by 9 plus the Player's Point Total less the Banker's.
var winnerBy = func() (w [32]Winner) {
	for d := range 19 {
		switch {
		case d > 9:
			w[d] = PlayerWins
		case d < 9:
			w[d] = BankerWins
		default:
			w[d] = Tie
		}
	}
	return w
}()

// Natural reports whether the round ended on a Natural: both hands kept two cards and one
// of them totals 8 or 9.
func (o Outcome) Natural() bool {
	return o.PlayerCards == 2 && o.BankerCards == 2 && (o.PlayerPoints >= 8 || o.BankerPoints >= 8)
}

// WinningPoints is the winner's Point Total (on a Tie, the tied total).
func (o Outcome) WinningPoints() int {
	if o.Winner == BankerWins {
		return int(o.BankerPoints)
	}
	return int(o.PlayerPoints)
}

// String is a short human summary, for example "B 7-6 (3/2 cards, player pair)".
func (o Outcome) String() string {
	s := fmt.Sprintf("%s P%d B%d (%d/%d cards", o.Winner, o.PlayerPoints, o.BankerPoints, o.PlayerCards, o.BankerCards)
	if o.PlayerPair {
		s += ", player pair"
	}
	if o.BankerPair {
		s += ", banker pair"
	}
	if o.Natural() {
		s += ", natural"
	}
	return s + ")"
}
