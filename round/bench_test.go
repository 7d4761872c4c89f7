package round

import (
	"encoding/json"
	"math/rand/v2"
	"os"
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
// closed, each card, the Insurance window closed where one opens, and the dealer's
// confirmation, with every irregularity check on (sequence numbers, set counts, the
// simultaneous-draw window, the bad-shuffle watch); a new shoe when fewer than 6 cards
// are left. One op is one round. The events are made before the timer starts (see
// stepRounds), so the figure is Step's alone. With TABLECTL_BENCH_SHOES set, it writes
// the shoes it deals to that file as JSON, for bench/engines to deal them with another
// engine.
func BenchmarkStep(b *testing.B) {
	for _, rules := range []string{"classic", "nc-insurance"} {
		b.Run(rules, func(b *testing.B) {
			cfg := DefaultConfig(baccarat.MustLookup(rules, baccarat.Options{}))
			cfg.Burn = BurnNone
			shoes := [][]baccarat.Card{shuffledShoe(8, 1), shuffledShoe(8, 2), shuffledShoe(8, 3)}
			if path := os.Getenv("TABLECTL_BENCH_SHOES"); path != "" {
				data, err := json.Marshal(shoes)
				if err == nil {
					err = os.WriteFile(path, data, 0o644)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			rounds := stepRounds(b, cfg, shoes)
			ctl, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			ctl.Step(Event{Kind: NewShoe, Set: "B", Decks: 8})
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			r := 0
			for i := 0; i < b.N; i++ {
				effs := applyRound(ctl, rounds[r])
				if len(effs) == 0 || effs[0].Kind != RoundSettled {
					b.Fatalf("round %d of the shoes: %v, want it settled", r, effs)
				}
				if r++; r == len(rounds) {
					r = 0
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "rounds/s")
		})
	}
}

// applyRound applies a round's events in order and returns the effects of the last. It
// is a function of its own, not inlined, so that its loop keeps its few values in
// registers: inlined in the benchmark's loop, it reloaded a dozen of the benchmark's own
// values from the stack after every event.
//
//go:noinline
func applyRound(ctl *Controller, evs []Event) []Effect {
	var effs []Effect
	for k := range evs {
		effs = ctl.Apply(&evs[k])
	}
	return effs
}

// stepRounds deals the shoes once through a controller with cfg and returns each
// round's events, in order: a shoe's first round begins with the end of the shoe before
// and the new shoe, and the first begins with the end of the last, so that they play
// over and over from a controller with a shoe in play. The cards are numbered one by one
// and read two seconds apart, a dealer's pace; numbers starting again at each pass over
// the shoes are no gap (only a number past the next one is).
func stepRounds(b testing.TB, cfg Config, shoes [][]baccarat.Card) [][]Event {
	ctl, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var seq uint64
	var rounds [][]Event
	for shoe, cards := range shoes {
		evs := []Event{{Kind: ShoeEnd, At: at}, {Kind: NewShoe, Set: "B", Decks: 8, At: at}}
		ctl.Step(Event{Kind: ShoeEnd, At: at}) // refused before the first shoe
		ctl.Step(evs[1])
		for pos := 0; pos <= len(cards)-6; {
			evs = append(evs, Event{Kind: BetsClosed, At: at})
			ctl.Step(evs[len(evs)-1])
			for n := 0; ; n++ {
				if n == 6 {
					b.Fatalf("shoe %d: a round took more than six cards: %+v", shoe, ctl.State().Held)
				}
				seq++
				at = at.Add(2 * time.Second)
				ev := Event{Kind: CardDrawn, Card: cards[pos], Seq: seq, At: at}
				pos++
				evs = append(evs, ev)
				effs := ctl.Step(ev)
				if len(effs) > 0 && effs[len(effs)-1].Kind == RoundComplete {
					break
				}
				if len(effs) > 0 && effs[len(effs)-1].Kind == InsuranceOffered {
					evs = append(evs, Event{Kind: InsuranceWindowClosed, At: at})
					ctl.Step(evs[len(evs)-1])
				}
			}
			evs = append(evs, Event{Kind: ConfirmResult, At: at})
			ctl.Step(evs[len(evs)-1])
			rounds, evs = append(rounds, evs), nil
		}
	}
	return rounds
}

// TestStepAllocatesNothing deals the benchmark's shoes through Step and through Apply,
// with every check on, and finds no allocation in any round: an event that escaped to
// the heap, or an effect that boxed a value, would cost one for each card.
func TestStepAllocatesNothing(t *testing.T) {
	cfg := DefaultConfig(baccarat.MustLookup("classic", baccarat.Options{}))
	cfg.Burn = BurnNone
	rounds := stepRounds(t, cfg, [][]baccarat.Card{shuffledShoe(8, 1), shuffledShoe(8, 2)})
	ctl, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctl.Step(Event{Kind: NewShoe, Set: "B", Decks: 8})
	byValue := func(ev *Event) []Effect { return ctl.Step(*ev) }
	for name, step := range map[string]func(*Event) []Effect{"Step": byValue, "Apply": ctl.Apply} {
		r := 0
		allocs := testing.AllocsPerRun(2*len(rounds), func() {
			for k := range rounds[r] {
				step(&rounds[r][k])
			}
			r = (r + 1) % len(rounds)
		})
		if allocs != 0 {
			t.Errorf("%s: %.2f allocations a round, want none", name, allocs)
		}
	}
}
