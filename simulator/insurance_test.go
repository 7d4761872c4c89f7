package simulator

import (
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
)

// slowClock is a machine so busy that each card leaves the dealer's goroutine a second
// later than the one before, whatever the dealer meant.
type slowClock struct {
	mu     sync.Mutex
	behind time.Duration
}

func (c *slowClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.behind += time.Second
	return time.Now().Add(c.behind)
}

// stampsAfterOffers deals rounds at an Insurance table and returns, for each card drawn
// after a card that opened an Insurance offer (NC Insurance 3.12), how long after that
// card the shoe stamped it; also whether the stamps ever went back.
func stampsAfterOffers(t *testing.T, cfg Config) (after []time.Duration, back bool) {
	t.Helper()
	shoeEvs, _ := runScenario(t, cfg, []Step{{Op: "shuffle"}, {Op: "deal", N: 8}})
	var cards []device.Event
	for _, e := range shoeEvs {
		if e.Kind == device.CardDrawn {
			if !e.HasShoeTime {
				t.Fatalf("card %v has no shoe time", e)
			}
			if len(cards) > 0 && int32(e.ShoeTime-cards[len(cards)-1].ShoeTime) < 0 {
				back = true
			}
			cards = append(cards, e)
		}
	}
	if len(cards) == 0 {
		t.Fatal("no card dealt")
	}
	cards = cards[1+baccarat.BurnCount(cards[0].Card):]
	var coup baccarat.Coup
	for i, e := range cards {
		coup.Place(e.Card)
		if coup.Complete() {
			coup = baccarat.Coup{}
			continue
		}
		if len(baccarat.InsuranceOffers(nil, coup)) > 0 && i+1 < len(cards) {
			after = append(after, time.Duration(cards[i+1].ShoeTime-e.ShoeTime)*time.Millisecond)
		}
	}
	if len(after) == 0 {
		t.Fatal("no Insurance offer in the rounds dealt")
	}
	return after, back
}

// TestDealerDrawsOverOfferByStamps: the simulated dealer that draws over an open
// Insurance offer draws half the pause after the card that opened it by the shoe's own
// clock, which the shoe stamps on the card, however late a busy machine lets it go out;
// so the table, judging by the stamps, finds the offer neglected (NC Insurance 5.13) on
// any machine. A dealer who waits draws the pause and a half after it.
func TestDealerDrawsOverOfferByStamps(t *testing.T) {
	const pause = 60 * time.Millisecond
	clock := &slowClock{}
	after, back := stampsAfterOffers(t, Config{Seed: 1, Decks: 1, Insurance: Insurance{Pause: pause, OneIn: 1}, Clock: clock.now})
	for _, d := range after {
		if d != pause/2 {
			t.Errorf("card drawn over an offer stamped %s after the card that opened it, want %s (all: %v)", d, pause/2, after)
		}
	}
	if back {
		t.Error("the shoe's stamps went back")
	}
	after, back = stampsAfterOffers(t, Config{Seed: 1, Decks: 1, Insurance: Insurance{Pause: pause}})
	for _, d := range after {
		if d < pause+pause/2 {
			t.Errorf("card after an offer the dealer waited for stamped %s after the card that opened it, want at least %s", d, pause+pause/2)
		}
	}
	if back {
		t.Error("the shoe's stamps went back")
	}
}
