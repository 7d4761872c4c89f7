package simulator

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/drivers/shoe"
)

// said is a log handler that hands each message on to a channel.
type said chan string

func (s said) Enabled(context.Context, slog.Level) bool { return true }
func (s said) Handle(_ context.Context, r slog.Record) error {
	s <- r.Message
	return nil
}
func (s said) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s said) WithGroup(string) slog.Handler      { return s }

// TestDealerStopsWhileHeld checks that the simulated dealer draws no card while the
// table's tower light is red (the table held for a decision), says so, and deals on when
// it goes out, as a dealer at a real table does.
func TestDealerStopsWhileHeld(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	logged := make(said, 16)
	light := NewTowerLight(slog.New(logged))
	if err := light.Set(ctx, gpio.Command{Role: gpio.LightRed, Mode: gpio.ModeOn}); err != nil {
		t.Fatal(err)
	}
	sim, err := New(Config{Dir: t.TempDir(), Seed: 3, Decks: 1, NoShuffler: true, Light: light, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	drv, err := shoe.Start(shoe.Config{Format: shoe.Tablectl, Port: device.Config{Path: sim.Shoe.Link, ReadTimeout: 50 * time.Millisecond}},
		device.Options{Logger: quiet, MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var evs []device.Event
	wg.Add(1)
	go collect(drv, 1, &evs, &wg)
	if err := sim.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	dealt := make(chan error, 1)
	go func() { dealt <- sim.Run(ctx, []Step{{Op: "shuffle"}, {Op: "round", N: 1}}) }()

	select {
	case m := <-logged:
		if !strings.Contains(m, "stops dealing") {
			t.Fatalf("logged %q, want the dealer stopping", m)
		}
	case err := <-dealt:
		t.Fatalf("the round was dealt under a red light (%v)", err)
	case <-ctx.Done():
		t.Fatal("the dealer never said it stopped")
	}
	sim.shoeEnc.mu.Lock()
	drawn := sim.shoeEnc.framed.CardNo
	sim.shoeEnc.mu.Unlock()
	if drawn != 0 {
		t.Fatalf("%d cards drawn under a red light, want 0", drawn)
	}
	if err := light.Set(ctx, gpio.Command{Role: gpio.LightRed, Mode: gpio.ModeOff}); err != nil {
		t.Fatal(err)
	}
	if err := <-dealt; err != nil {
		t.Fatal(err)
	}
	if m := <-logged; !strings.Contains(m, "deals on") {
		t.Errorf("logged %q, want the dealer dealing on", m)
	}
	if err := sim.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sim.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	drv.Close()
	if n := len(cardsOf(evs)); n < 4 {
		t.Errorf("%d cards after the light went out, want a round's", n)
	}
}
