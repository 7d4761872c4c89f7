package round

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
)

func shuffledShoe(decks int, seed uint64) []baccarat.Card {
	cards := make([]baccarat.Card, 0, 52*decks)
	for d := 0; d < decks; d++ {
		for s := baccarat.Spades; s <= baccarat.Clubs; s++ {
			for r := baccarat.Ace; r <= baccarat.King; r++ {
				cards = append(cards, baccarat.Card{Rank: r, Suit: s})
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	rng.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
	return cards
}

// BenchmarkStep deals rounds through Step from shuffled 8-deck shoes: per round, bets
// closed, each card, and the dealer's confirmation, with every irregularity check on
// (sequence numbers, set counts, the simultaneous-draw window, the bad-shuffle watch).
// One op is one round.
func BenchmarkStep(b *testing.B) {
	for _, rules := range []string{"classic", "nc-insurance"} {
		b.Run(rules, func(b *testing.B) {
			cfg := DefaultConfig(baccarat.MustLookup(rules, baccarat.Options{}))
			cfg.Burn = BurnNone
			ctl, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			shoes := [][]baccarat.Card{shuffledShoe(8, 1), shuffledShoe(8, 2), shuffledShoe(8, 3)}
			shoe, pos := 0, 0
			at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
			ctl.Step(Event{Kind: NewShoe, Set: "B", Decks: 8, At: at})
			var seq uint64
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if pos > len(shoes[shoe])-6 {
					ctl.Step(Event{Kind: ShoeEnd, At: at})
					ctl.Step(Event{Kind: NewShoe, Set: "B", Decks: 8, At: at})
					shoe, pos = (shoe+1)%len(shoes), 0
				}
				ctl.Step(Event{Kind: BetsClosed, At: at})
				for n := 0; ; n++ {
					if n == 6 {
						b.Fatalf("round %d took more than six cards: %+v", i, ctl.State().Held)
					}
					seq++
					at = at.Add(2 * time.Second) // a dealer's pace: no two cards drawn together
					effs := ctl.Step(Event{Kind: CardDrawn, Card: shoes[shoe][pos], Seq: seq, At: at})
					pos++
					if len(effs) > 0 && effs[len(effs)-1].Kind == RoundComplete {
						break
					}
					if len(effs) > 0 && effs[len(effs)-1].Kind == InsuranceOffered {
						ctl.Step(Event{Kind: InsuranceWindowClosed, At: at})
					}
				}
				ctl.Step(Event{Kind: ConfirmResult, At: at})
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "rounds/s")
		})
	}
}
