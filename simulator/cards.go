// Package simulator is a software card shoe and shuffler for tablectl. They open
// pseudo-terminals and speak exactly the wire formats of docs/protocol.md, so the real
// serial drivers are exercised end to end without hardware. A set of decks is shuffled
// from a seed (reproducible) or from crypto/rand, the shuffle is reported over the
// shuffler protocol, and the shoe deals as at a real table: the burn, rounds by the
// Table of Play, the cut card and the shoe end. Scenario files script the faults a real
// table sees.
package simulator

import (
	"bufio"
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

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

// Riffle is one riffle of cards, as the Gilbert–Shannon–Reeds model has it: a cut where
// a fair coin per card puts it, then the two packets dropped card by card, each packet
// in proportion to the cards left in it. One riffle leaves most neighbours together;
// seven or so of a 52-card deck mix it. cards is left as it was.
func Riffle(cards []baccarat.Card, r *rand.Rand) []baccarat.Card {
	cut := 0
	for range cards {
		cut += r.IntN(2)
	}
	a, b := cards[:cut], cards[cut:]
	out := make([]baccarat.Card, 0, len(cards))
	for len(a)+len(b) > 0 {
		if r.IntN(len(a)+len(b)) < len(a) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

// Bias arranges shuffled cards so that about share of the rounds dealt from them in
// order, after the burn (the first card shown, baccarat.BurnCount more burned), are
// Banker wins that chance would not have given: before each round, with chance share,
// up to 50 draws of the round's cards from those left are tried, and the first that
// makes Banker win is kept. The cards are the same; only their order changes. cards is
// reordered in place and returned.
func Bias(cards []baccarat.Card, share float64, r *rand.Rand) []baccarat.Card {
	if len(cards) == 0 {
		return cards
	}
	for at := 1 + baccarat.BurnCount(cards[0]); len(cards)-at >= 6; {
		if r.Float64() < share {
			for range 50 {
				if c, _ := baccarat.CoupOf(cards[at:]...); c.Outcome().Winner == baccarat.BankerWins {
					break
				}
				for i := at; i < at+6; i++ { // six cards drawn from those left
					j := i + r.IntN(len(cards)-i)
					cards[i], cards[j] = cards[j], cards[i]
				}
			}
		}
		n, _ := RoundCards(cards[at:])
		at += n
	}
	return cards
}

// RoundCards is how many of cards, from the front, one round takes by the Table of Play
// (RWS Baccarat 3.10 to 3.12), and whether the round is complete with them; a round that
// needs more cards than there are takes them all and is not complete.
func RoundCards(cards []baccarat.Card) (n int, complete bool) {
	c, n := baccarat.CoupOf(cards...)
	return n, c.Complete()
}

// ReadOrders reads the sets' orders of Config.Orders from a file of cards: one set a
// line, its cards in the order the shoe deals them, separated by spaces ("AS TD 9H").
// Blank lines and lines starting with # are left out. A bad card is named with its
// line and place.
func ReadOrders(r io.Reader) ([][]baccarat.Card, error) {
	var out [][]baccarat.Card
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cards, err := baccarat.ParseCards(text)
		if err != nil {
			return nil, fmt.Errorf("orders: line %d: %w", line, err)
		}
		out = append(out, cards)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("orders: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("orders: no set's order in the file")
	}
	return out, nil
}
