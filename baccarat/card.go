// Package baccarat holds the game itself: cards and point values, the Baccarat Table of
// Play, round outcomes, the five rule sets with their pay tables, bet validation and exact
// settlement. It is pure: no I/O, no clock, no randomness, and no state beyond the values
// it is handed, so the live table, a journal replay and the exact analysis all run the
// same code.
package baccarat

import (
	"fmt"
	"strings"
)

// Rank is a card's rank, Ace (1) to King (13). The zero Rank is not a card.
type Rank uint8

// The thirteen ranks.
const (
	Ace Rank = 1 + iota
	Two
	Three
	Four
	Five
	Six
	Seven
	Eight
	Nine
	Ten
	Jack
	Queen
	King
)

// Points is the rank's point value: Ace 1, Two to Nine their face value, Ten and the
// picture cards 0 (RWS Baccarat 3.2; NC Tournament 3.8; game project sheet).
func (r Rank) Points() int {
	if r >= Ten {
		return 0
	}
	return int(r)
}

// Valid reports whether r is one of the thirteen ranks.
func (r Rank) Valid() bool { return r-Ace < King } // one unsigned comparison: r-Ace wraps below Ace

const rankLetters = "?A23456789TJQK"

// String is the rank's one-letter notation: A, 2-9, T, J, Q, K.
func (r Rank) String() string {
	if !r.Valid() {
		return "?"
	}
	return rankLetters[r : r+1]
}

// Suit is a card's suit. The zero Suit is not a suit.
type Suit uint8

// The four suits.
const (
	Spades Suit = 1 + iota
	Hearts
	Diamonds
	Clubs
)

// Valid reports whether s is one of the four suits.
func (s Suit) Valid() bool { return s-Spades < Clubs } // one unsigned comparison, as Rank.Valid

const suitLetters = "?SHDC"

// String is the suit's upper-case letter: S, H, D or C.
func (s Suit) String() string {
	if !s.Valid() {
		return "?"
	}
	return suitLetters[s : s+1]
}

// Card is one playing card. The zero Card is "no card".
type Card struct {
	Rank Rank
	Suit Suit
}

// NewCard returns the card of rank r and suit s.
func NewCard(r Rank, s Suit) Card { return Card{Rank: r, Suit: s} }

// Valid reports whether c is a real card: a valid rank and a valid suit.
func (c Card) Valid() bool { return c.Rank.Valid() && c.Suit.Valid() }

// Points is the card's point value (see Rank.Points).
func (c Card) Points() int { return c.Rank.Points() }

// Index numbers the 52 distinct cards 0 to 51 (suit-major), for counting a set's cards.
// It is meaningful only for a valid card.
func (c Card) Index() int { return int(c.Suit-1)*13 + int(c.Rank-1) }

// String prints the card as rank then suit, "AS", "TH", "KD"; an invalid card prints "??".
func (c Card) String() string {
	if !c.Valid() {
		return "??"
	}
	return c.Rank.String() + c.Suit.String()
}

// MarshalText prints the card as String does.
func (c Card) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("marshal card: %d/%d is not a card", c.Rank, c.Suit)
	}
	return []byte(c.String()), nil
}

// UnmarshalText parses the card as ParseCard does.
func (c *Card) UnmarshalText(b []byte) error {
	// A card as the table writes it, read without copying b to a string.
	if len(b) == 2 {
		if r, ok := ParseRank(string(b[:1])); ok {
			if u, ok := ParseSuit(string(b[1:])); ok {
				*c = Card{Rank: r, Suit: u}
				return nil
			}
		}
	}
	v, err := ParseCard(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// ParseError reports a card notation that could not be read.
type ParseError struct {
	Input  string // the text as given
	Reason string // what was wrong with it
}

// Error says which notation could not be read and why.
func (e *ParseError) Error() string {
	return fmt.Sprintf("card %q: %s", e.Input, e.Reason)
}

// ParseCard reads a card in rank-then-suit notation, either case: "AS", "as", "TH",
// "10H", "kd". The rank is A, 2-9, T or 10, J, Q, K; the suit is S, H, D or C.
func ParseCard(s string) (Card, error) {
	if len(s) < 2 || len(s) > 3 {
		return Card{}, &ParseError{Input: s, Reason: "want a rank (A, 2-10, T, J, Q, K) then a suit (S, H, D, C)"}
	}
	rankText, suitText := s[:len(s)-1], s[len(s)-1:]
	r, ok := ParseRank(rankText)
	if !ok {
		return Card{}, &ParseError{Input: s, Reason: fmt.Sprintf("unknown rank %q", rankText)}
	}
	u, ok := ParseSuit(suitText)
	if !ok {
		return Card{}, &ParseError{Input: s, Reason: fmt.Sprintf("unknown suit %q", suitText)}
	}
	return Card{Rank: r, Suit: u}, nil
}

// MustParseCard is ParseCard for literals known to be good; it panics on a bad one.
func MustParseCard(s string) Card {
	c, err := ParseCard(s)
	if err != nil {
		panic(err)
	}
	return c
}

// ParseCards reads a whitespace-separated list of cards, naming the position of a bad one.
func ParseCards(s string) ([]Card, error) {
	fields := strings.Fields(s)
	cards := make([]Card, 0, len(fields))
	for i, f := range fields {
		c, err := ParseCard(f)
		if err != nil {
			return nil, fmt.Errorf("card %d: %w", i+1, err)
		}
		cards = append(cards, c)
	}
	return cards, nil
}

// ParseRank reads a rank: A, 2-9, T or 10, J, Q, K, either case.
func ParseRank(s string) (Rank, bool) {
	if s == "10" {
		return Ten, true
	}
	if len(s) != 1 {
		return 0, false
	}
	i := strings.IndexByte(rankLetters[1:], upper(s[0]))
	if i < 0 {
		return 0, false
	}
	return Rank(i + 1), true
}

// ParseSuit reads a suit letter: S, H, D or C, either case.
func ParseSuit(s string) (Suit, bool) {
	if len(s) != 1 {
		return 0, false
	}
	i := strings.IndexByte(suitLetters[1:], upper(s[0]))
	if i < 0 {
		return 0, false
	}
	return Suit(i + 1), true
}

func upper(b byte) byte {
	if b >= 'a' && b <= 'z' {
		return b - 'a' + 'A'
	}
	return b
}
