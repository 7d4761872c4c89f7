package simulator

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

// sorted is cards in Index order, to compare two sets as multisets.
func sorted(cards []baccarat.Card) []int {
	out := make([]int, len(cards))
	for i, c := range cards {
		out[i] = c.Index()
	}
	slices.Sort(out)
	return out
}

// kept counts the cards of next that follow the same card as in prev, place by place
// in prev (the physical neighbours: prev has each card at one place here).
func kept(prev, next []baccarat.Card) int {
	at := map[baccarat.Card]int{}
	for i, c := range prev {
		at[c] = i
	}
	n := 0
	for i := 1; i < len(next); i++ {
		if at[next[i]] == at[next[i-1]]+1 {
			n++
		}
	}
	return n
}

// TestRiffleKeepsTheCardsAndMostNeighbours: a riffle changes only the order; one keeps
// about half of a deck's neighbours, where a thorough shuffle keeps about one.
func TestRiffleKeepsTheCardsAndMostNeighbours(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	deck := NewDecks(1)
	once := Riffle(deck, r)
	if !slices.Equal(sorted(once), sorted(deck)) {
		t.Fatal("a riffle changed the cards")
	}
	if !slices.Equal(deck, NewDecks(1)) {
		t.Fatal("Riffle changed its argument")
	}
	total := 0
	for range 200 {
		total += kept(deck, Riffle(deck, r))
	}
	if avg := float64(total) / 200; avg < 20 || avg > 32 {
		t.Errorf("one riffle of 52 cards kept %.1f neighbours on average, want about 25", avg)
	}
	shuffled := slices.Clone(deck)
	Shuffle(shuffled, r)
	if n := kept(deck, shuffled); n > 6 {
		t.Errorf("a thorough shuffle kept %d neighbours", n)
	}
}

// TestBiasMakesBankerWin deals the rounds of biased and unbiased 8-deck sets after the
// burn: Banker wins about 46% unbiased, and far more with a third of the rounds
// arranged.
func TestBiasMakesBankerWin(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	share := func(bias float64) float64 {
		wins, rounds := 0, 0
		for range 200 {
			cards := NewDecks(8)
			Shuffle(cards, r)
			before := sorted(cards)
			if bias > 0 {
				cards = Bias(cards, bias, r)
			}
			if !slices.Equal(sorted(cards), before) {
				t.Fatal("Bias changed the cards")
			}
			for at := 1 + baccarat.BurnCount(cards[0]); len(cards)-at >= 6; {
				c, n := baccarat.CoupOf(cards[at:]...)
				if c.Outcome().Winner == baccarat.BankerWins {
					wins++
				}
				rounds++
				at += n
			}
		}
		return float64(wins) / float64(rounds)
	}
	honest, biased := share(0), share(1.0/3)
	if honest < 0.43 || honest > 0.49 {
		t.Errorf("Banker won %.3f of unbiased rounds, want about 0.459", honest)
	}
	if want := 1.0/3 + 2.0/3*0.459; biased < want-0.03 || biased > want+0.03 {
		t.Errorf("Banker won %.3f of rounds with a third arranged, want about %.3f", biased, want)
	}
}

// TestSetsFollowOrdersThenRiffles: the sets come in the orders given, then each is the
// one before it riffled; a bad card in the file of orders is named with its line.
func TestSetsFollowOrdersThenRiffles(t *testing.T) {
	orders, err := ReadOrders(strings.NewReader("# two sets\nAS 2S 3S 4S\n\n" + strings.Repeat("KD ", 52) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	sim, err := New(Config{Dir: t.TempDir(), Seed: 5, Decks: 1, NoShuffler: true, Orders: orders, Riffles: 1, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	if got := sim.newSet(true); !slices.Equal(got, orders[0]) {
		t.Fatalf("first set %v, want %v", got, orders[0])
	}
	if got := sim.newSet(true); !slices.Equal(got, orders[1]) {
		t.Fatalf("second set %v, want the second order", got)
	}
	deck := NewDecks(1)
	sim.cards = deck
	next := sim.newSet(true)
	if !slices.Equal(sorted(next), sorted(deck)) || slices.Equal(next, deck) || kept(deck, next) < 15 {
		t.Errorf("past the orders, a riffle of the last set: kept %d neighbours of %v", kept(deck, next), next)
	}
	if _, err := ReadOrders(strings.NewReader("AS 2S\nAS XX\n")); err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "card 2") {
		t.Errorf("a bad card: %v, want its line and place", err)
	}
	if _, err := New(Config{Dir: t.TempDir(), BankerBias: 1.5}); err == nil {
		t.Error("a bias of 1.5 accepted")
	}
}
