package simulator

import (
	"context"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
)

// TestShufflerRepeatsReportAfterHello: a host that connects again (after a restart) gets
// the shuffler's Hello and its latest report on a set once more, so a set reported while
// the host was down is not lost.
func TestShufflerRepeatsReportAfterHello(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sim, err := New(Config{Dir: t.TempDir(), Protocol: shoe.ASCII, Seed: 3, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	opt := device.Options{Logger: quiet, MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond}
	port := device.Config{Path: sim.Shuffler.Link, ReadTimeout: 50 * time.Millisecond}
	next := func(d *device.Driver, want device.Kind) device.Event {
		t.Helper()
		for {
			select {
			case e := <-d.Events():
				if e.Kind == want {
					return e
				}
			case <-ctx.Done():
				t.Fatalf("no %s", want)
			}
		}
	}
	first, err := shuffler.Start(port, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sim.Run(ctx, []Step{{Op: "shuffle"}}); err != nil {
		t.Fatal(err)
	}
	if e := next(first, device.ShuffleComplete); e.SetID != 1 || e.Cards != 416 {
		t.Fatalf("report %v", e)
	}
	first.Close()

	second, err := shuffler.Start(port, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	next(second, device.Hello)
	if e := next(second, device.ShuffleComplete); e.SetID != 1 || e.Decks != 8 {
		t.Errorf("repeated report %v", e)
	}
}
