package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/drivers/shoe"
)

// TestNewShoeButtonWithoutShuffler: at a table with a shoe and no shuffler whose dealer
// starts each shoe (dealer.shoe_start: dealer), the new_shoe button ends the shoe in play
// and starts the next, of the table's deck count; no shuffler is there to report a set.
func TestNewShoeButtonWithoutShuffler(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.TempDir())
	cfg.Shoe = &shoe.Config{Format: shoe.BeeTek}
	cfg.Round.Decks = 6
	p := NewFakePanel()
	r := startWith(t, cfg, func(d *Daemon) { d.SetPanel(p) })
	waitState := func(want string) {
		t.Helper()
		waitFor(t, "a state with "+want, r.rec.Changed, func() bool {
			pub := r.rec.Published()
			for i := len(pub) - 1; i >= 0; i-- {
				if strings.HasSuffix(pub[i].Topic, "/state") {
					return strings.Contains(string(pub[i].Payload), want)
				}
			}
			return false
		})
	}
	p.In <- gpio.Event{Role: gpio.NewShoe, Kind: gpio.Pressed, At: time.Now()}
	waitState(`"shoe":1,`)
	r.f.cards(t, "9H 5C KS KD")
	r.settle(t)
	p.In <- gpio.Event{Role: gpio.NewShoe, Kind: gpio.Pressed, At: time.Now()}
	waitState(`"shoe":2,`)
	r.close(t)
	if st := r.d.State(); st.Decks != 6 || st.Shoe != 2 {
		t.Fatalf("shoe %d of %d decks, want shoe 2 of 6", st.Shoe, st.Decks)
	}
}
