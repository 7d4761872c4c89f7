package simulator

import (
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
)

// TestShoeStampsItsCards checks that the simulated shoe stamps every card with its own
// clock on the tablectl protocol (docs/protocol.md, "Shoe time"), at least the pace
// apart however late the driver reads them, and stamps none when told not to.
func TestShoeStampsItsCards(t *testing.T) {
	const pace = 20 * time.Millisecond
	steps := []Step{{Op: "shuffle"}, {Op: "deal", N: 1}}
	shoeEvs, _ := runScenario(t, Config{Seed: 5, Decks: 1, Pace: pace}, steps)
	var last uint32
	cards := 0
	for _, e := range shoeEvs {
		if e.Kind != device.CardDrawn {
			continue
		}
		if !e.HasShoeTime {
			t.Fatalf("card %v has no shoe time", e)
		}
		if cards > 0 && time.Duration(e.ShoeTime-last)*time.Millisecond < pace-time.Millisecond {
			t.Errorf("card %v stamped %d ms after the card before it, want at least %s", e, e.ShoeTime-last, pace)
		}
		last = e.ShoeTime
		cards++
	}
	if cards < 4 {
		t.Fatalf("%d cards dealt, want a round's", cards)
	}
	shoeEvs, _ = runScenario(t, Config{Seed: 5, Decks: 1, Unstamped: true}, steps)
	for _, e := range shoeEvs {
		if e.Kind == device.CardDrawn && e.HasShoeTime {
			t.Fatalf("card %v stamped by a shoe that does not stamp", e)
		}
	}
}

// TestDealerPausesAfterEachRound: the simulated dealer leaves RoundPause between a
// round's last card and the next round's first, by the shoe's own clock, so a board
// shows each result (board.result_hold) before the next round's cards come.
func TestDealerPausesAfterEachRound(t *testing.T) {
	const pace, pause = 2 * time.Millisecond, 80 * time.Millisecond
	shoeEvs, _ := runScenario(t, Config{Seed: 5, Decks: 1, Pace: pace, RoundPause: pause}, []Step{{Op: "shuffle"}, {Op: "deal", N: 3}})
	var cards []device.Event
	for _, e := range shoeEvs {
		if e.Kind == device.CardDrawn {
			cards = append(cards, e)
		}
	}
	if len(cards) == 0 {
		t.Fatal("no card dealt")
	}
	cards = cards[1+baccarat.BurnCount(cards[0].Card):]
	var coup baccarat.Coup
	rounds := 0
	for i, e := range cards {
		coup.Place(e.Card)
		if !coup.Complete() {
			continue
		}
		coup, rounds = baccarat.Coup{}, rounds+1
		if i+1 < len(cards) {
			if gap := time.Duration(cards[i+1].ShoeTime-e.ShoeTime) * time.Millisecond; gap < pause {
				t.Errorf("round %d's last card and the next round's first stamped %s apart, want at least %s", rounds, gap, pause)
			}
		}
	}
	if rounds != 3 {
		t.Fatalf("%d rounds dealt, want 3", rounds)
	}
}
