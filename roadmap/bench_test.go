package roadmap

import (
	"math/rand/v2"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

// dealShoe deals a shuffled shoe of eight decks by the Table of Play until about 14
// cards are left (where a cut card would stop it), giving a real shoe's results: about
// 80 rounds, with their points, pairs and naturals.
func dealShoe(rng *rand.Rand) []Round {
	cards := make([]baccarat.Card, 0, 8*52)
	for range 8 {
		for s := baccarat.Spades; s <= baccarat.Clubs; s++ {
			for r := baccarat.Ace; r <= baccarat.King; r++ {
				cards = append(cards, baccarat.NewCard(r, s))
			}
		}
	}
	rng.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
	var rounds []Round
	for len(cards) > 14 {
		var c baccarat.Coup
		for !c.Complete() {
			c.Place(cards[0])
			cards = cards[1:]
		}
		rounds = append(rounds, FromOutcome(baccarat.OutcomeOf(c)))
	}
	return rounds
}

// BenchmarkUpdate measures one round's update of the bead plate, the Big Road, the three
// derived roads, the predictions and the statistics, over real shoes of about 80 rounds,
// with the map reset at each new shoe (its cost shared among the shoe's rounds). One op
// is one round.
func BenchmarkUpdate(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 11))
	shoes := make([][]Round, 64)
	total := 0
	for i := range shoes {
		shoes[i] = dealShoe(rng)
		total += len(shoes[i])
	}
	m, err := New(Settings{})
	if err != nil {
		b.Fatal(err)
	}
	for _, shoe := range shoes { // size the grids
		m.Reset()
		for _, r := range shoe {
			if err := m.Add(r); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	s, i := 0, 0
	m.Reset()
	for b.Loop() {
		if i == len(shoes[s]) {
			s, i = (s+1)%len(shoes), 0
			m.Reset()
		}
		if err := m.Add(shoes[s][i]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(total)/float64(len(shoes)), "rounds/shoe")
}

// TestDealShoe checks the benchmark's shoes are what it claims: about 80 rounds, every
// result valid, ties about one round in ten.
func TestDealShoe(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	rounds, ties := 0, 0
	for range 50 {
		shoe := dealShoe(rng)
		if len(shoe) < 70 || len(shoe) > 90 {
			t.Fatalf("a shoe of %d rounds", len(shoe))
		}
		for _, r := range shoe {
			if err := r.check(); err != nil {
				t.Fatal(err)
			}
			if r.Winner == baccarat.Tie {
				ties++
			}
		}
		rounds += len(shoe)
	}
	if ties*100 < rounds*5 || ties*100 > rounds*15 {
		t.Fatalf("%d ties in %d rounds", ties, rounds)
	}
}
