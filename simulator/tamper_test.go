package simulator

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
)

// TestTamperTakesOutAndPutsIn: a tampered set is the shuffled one with one copy of each
// card to remove taken out and each card to add put in, all among the cards dealt
// (past the burn, before the cut card); a card with no copy there is named.
func TestTamperTakesOutAndPutsIn(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		cards := NewDecks(1)
		Shuffle(cards, r)
		end := len(cards) - 16
		remove := cards[TamperFrom+r.IntN(end-TamperFrom)]
		add := baccarat.Card{Rank: baccarat.King, Suit: baccarat.Hearts}
		tp := Tamper{Set: 1, Remove: []baccarat.Card{remove}, Add: []baccarat.Card{add}}
		got, err := tp.apply(cards, end, r)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(cards) {
			t.Fatalf("%d cards after one out and one in, want %d", len(got), len(cards))
		}
		if !slices.Equal(got[:TamperFrom], cards[:TamperFrom]) || !slices.Equal(got[end:], cards[end:]) {
			t.Fatalf("the burn or the cards behind the cut card changed:\n%v\n%v", cards, got)
		}
		count := func(cs []baccarat.Card, c baccarat.Card) int {
			n := 0
			for _, x := range cs {
				if x == c {
					n++
				}
			}
			return n
		}
		if count(got, remove) != count(cards, remove)-1+b2i(remove == add) || count(got, add) != count(cards, add)+1-b2i(remove == add) {
			t.Fatalf("removed %s, added %s: %v", remove, add, got)
		}
	}
	_, err := Tamper{Set: 1, Remove: []baccarat.Card{{Rank: baccarat.Ace, Suit: baccarat.Spades}}}.apply(NewDecks(1)[:20], 20, r)
	if err == nil || !strings.Contains(err.Error(), "AS") {
		t.Errorf("a card with no copy to take out: %v, want it named", err)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTamperedSetIsNotTheReportedOne: over the pseudo-terminals, the shuffler reports the
// second set whole, and the shoe deals it with the card taken out and the card put in;
// the first set is dealt as reported.
func TestTamperedSetIsNotTheReportedOne(t *testing.T) {
	out, in := baccarat.Card{Rank: baccarat.Seven, Suit: baccarat.Hearts}, baccarat.Card{Rank: baccarat.Ace, Suit: baccarat.Spades}
	cfg := Config{Seed: 11, Decks: 1, Cut: 16, HostAcks: false,
		Tamper: Tamper{Set: 2, Remove: []baccarat.Card{out}, Add: []baccarat.Card{in}}}
	shoeEvs, shufEvs := runScenario(t, cfg, []Step{{Op: "shuffle"}, {Op: "deal"}, {Op: "shuffle"}, {Op: "deal"}})
	var orders [][]baccarat.Card
	for _, e := range shufEvs {
		if e.Kind == device.ShuffleComplete {
			orders = append(orders, e.Order)
		}
	}
	if len(orders) != 2 || len(orders[0]) != 52 || len(orders[1]) != 52 {
		t.Fatalf("the shuffler reported %d sets, want two of 52 cards", len(orders))
	}
	var sets [][]baccarat.Card
	var cur []baccarat.Card
	for _, e := range shoeEvs {
		switch e.Kind {
		case device.CardDrawn:
			cur = append(cur, e.Card)
		case device.ShoeEmpty, device.LidOpened:
			if cur != nil {
				sets, cur = append(sets, cur), nil
			}
		}
	}
	if cur != nil {
		sets = append(sets, cur)
	}
	if len(sets) != 2 {
		t.Fatalf("the shoe dealt %d sets, want 2", len(sets))
	}
	if !slices.Equal(sets[0], orders[0][:len(sets[0])]) {
		t.Errorf("the first set was not dealt as reported")
	}
	if slices.Equal(sets[1], orders[1][:len(sets[1])]) {
		t.Fatalf("the tampered set was dealt as reported")
	}
	want := slices.Clone(orders[1])
	i := slices.Index(want, out)
	want = slices.Delete(want, i, i+1)
	found := false
	for j, c := range sets[1] {
		if c == in && j >= TamperFrom && slices.Equal(slices.Delete(slices.Clone(sets[1]), j, j+1), want[:len(sets[1])-1]) {
			found = true
		}
	}
	if !found {
		t.Errorf("the tampered set dealt %v, want the reported %v without %s and with %s", sets[1], orders[1], out, in)
	}
}

// TestCountOnlyReportsNoOrder: a shuffler of CountOnly reports each set's count and no
// order; the shoe deals the set all the same.
func TestCountOnlyReportsNoOrder(t *testing.T) {
	shoeEvs, shufEvs := runScenario(t, Config{Seed: 3, Decks: 1, Cut: 16, CountOnly: true}, []Step{{Op: "shuffle"}, {Op: "deal"}})
	n := 0
	for _, e := range shufEvs {
		if e.Kind == device.ShuffleComplete {
			n++
			if e.Order != nil || e.Cards != 52 {
				t.Errorf("the set reported with %d cards and an order of %d, want 52 and none", e.Cards, len(e.Order))
			}
		}
	}
	if n != 1 || len(cardsOf(shoeEvs)) < 36 {
		t.Errorf("%d sets reported, %d cards dealt", n, len(cardsOf(shoeEvs)))
	}
}
