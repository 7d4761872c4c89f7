package simulator

import (
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
)

// TestReshuffleEachRoundDeals: with ReshuffleEachRound (Royal Baccarat, End of round:
// cards dealt face up are reshuffled after every round) each deal is one set's burn and
// one round: the shuffler reports a new set, whose recorded order the cards then follow
// from its first card: the burn (the first card and as many as it shows), one round by
// the Table of Play (RWS Baccarat 3.10 to 3.12), and the lid opened and closed to take the
// rest of the set out.
func TestReshuffleEachRoundDeals(t *testing.T) {
	const sets = 12
	var steps []Step
	for range sets {
		steps = append(steps, Step{Op: "shuffle"}, Step{Op: "deal"})
	}
	shoeEvs, shufEvs := runScenario(t, Config{Seed: 7, Decks: 2, Cut: 16, ReshuffleEachRound: true}, steps)

	var orders [][]baccarat.Card
	for _, e := range shufEvs {
		if e.Kind == device.ShuffleComplete {
			if e.Cards != 104 || len(e.Order) != 104 {
				t.Fatalf("set %d of %d cards, order of %d; want 104", e.SetID, e.Cards, len(e.Order))
			}
			orders = append(orders, e.Order)
		}
	}
	if len(orders) != sets {
		t.Fatalf("%d sets reported, want %d", len(orders), sets)
	}
	// Split the shoe's cards at each lid opening: one set's cards each.
	var dealt [][]baccarat.Card
	var cur []baccarat.Card
	for _, e := range shoeEvs {
		switch e.Kind {
		case device.CardDrawn:
			cur = append(cur, e.Card)
		case device.LidOpened:
			dealt, cur = append(dealt, cur), nil
		case device.CutCard, device.ShoeEmpty:
			t.Fatalf("%v: a set gives one round, far from its cut card", e)
		}
	}
	if len(dealt) != sets || len(cur) != 0 {
		t.Fatalf("%d lid openings with %d cards after the last, want %d and none", len(dealt), len(cur), sets)
	}
	for i, cards := range dealt {
		burn := 1 + burnt(cards[0])
		var coup baccarat.Coup
		for _, c := range cards[burn:] {
			if coup.Complete() {
				t.Fatalf("set %d: %s drawn after the round was complete", i+1, c)
			}
			coup.Place(c)
		}
		if !coup.Complete() {
			t.Fatalf("set %d: the round is incomplete after %d cards", i+1, len(cards))
		}
		for j, c := range cards {
			if c != orders[i][j] {
				t.Fatalf("set %d card %d is %s, its recorded order has %s", i+1, j+1, c, orders[i][j])
			}
		}
	}
}
