// Package simulator is a software card shoe and shuffler for tablectl. They open
// pseudo-terminals and speak exactly the wire formats of docs/protocol.md, so the real
// serial drivers are exercised end to end without hardware. A set of decks is shuffled
// from a seed (reproducible) or from crypto/rand, the shuffle is reported over the
// shuffler protocol, and the shoe deals as at a real table: the burn, rounds by the
// Table of Play, the cut card and the shoe end. Scenario files script the faults a real
// table sees.
package simulator

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/tablectl/tablectl/baccarat"
)

// NewDecks returns n decks in new-deck order: spades, hearts, diamonds, clubs, each ace
// to king.
func NewDecks(n int) []baccarat.Card {
	cards := make([]baccarat.Card, 0, 52*n)
	for range n {
		for s := baccarat.Spades; s <= baccarat.Clubs; s++ {
			for r := baccarat.Ace; r <= baccarat.King; r++ {
				cards = append(cards, baccarat.NewCard(r, s))
			}
		}
	}
	return cards
}

// NewRand returns the simulator's source of randomness: a PCG seeded with seed, so a run
// can be repeated, or, when random is true, one seeded from crypto/rand.
func NewRand(seed uint64, random bool) (*rand.Rand, error) {
	if random {
		var b [16]byte
		if _, err := crand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("seed from crypto/rand: %w", err)
		}
		return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:]))), nil
	}
	return rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15)), nil
}

// Shuffle shuffles cards in place (Fisher-Yates).
func Shuffle(cards []baccarat.Card, r *rand.Rand) {
	r.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
}

// RoundCards is how many of cards, from the front, one round takes by the Table of Play
// (RWS Baccarat 3.10 to 3.12), and whether the round is complete with them; a round that
// needs more cards than there are takes them all and is not complete.
func RoundCards(cards []baccarat.Card) (n int, complete bool) {
	c, n := baccarat.CoupOf(cards...)
	return n, c.Complete()
}
