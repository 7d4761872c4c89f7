package simulator

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
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

// TestNextSetWaitsForAcks: a shoe whose host acknowledges (Config.HostAcks) shuffles the
// next set only once the host has acknowledged every card and signal of the last one,
// as a dealer waits for the result before the cards go back, however late the host's
// first acknowledgement comes. Shuffled sooner, a set's report would overtake the cards
// of the set before it, and at a table that reshuffles after every round a later set's
// report could take the place of the one the shoe deals next. Without HostAcks the shoe
// waits only until the host has read the cards.
func TestNextSetWaitsForAcks(t *testing.T) {
	for _, acks := range []bool{true, false} {
		t.Run(fmt.Sprintf("HostAcks=%v", acks), func(t *testing.T) { nextSetWaits(t, acks) })
	}
}

func nextSetWaits(t *testing.T, hostAcks bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sim, err := New(Config{Dir: t.TempDir(), Seed: 5, Decks: 1, ReshuffleEachRound: true, HostAcks: hostAcks, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	opt := device.Options{Logger: quiet, MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond}
	port := device.Config{Path: sim.Shoe.Link, ReadTimeout: 50 * time.Millisecond}
	shoeDrv, err := shoe.Start(shoe.Config{Format: shoe.Tablectl, Port: port}, opt)
	if err != nil {
		t.Fatal(err)
	}
	port.Path = sim.Shuffler.Link
	shufDrv, err := shuffler.Start(port, opt)
	if err != nil {
		t.Fatal(err)
	}
	// The host reads every card and signal, and acknowledges none until ack is closed;
	// then all it read, and each one after as it reads it.
	ack := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		var unacked []device.Event
		release := ack
		for {
			select {
			case e, ok := <-shoeDrv.Events():
				if !ok {
					return
				}
				if e.Numbered() {
					unacked = append(unacked, e)
				}
			case <-release:
				release = nil
			}
			if release == nil {
				for _, e := range unacked {
					_ = shoeDrv.Ack(e)
				}
				unacked = nil
			}
		}
	}()
	reports := make(chan uint32, 8)
	go func() {
		defer wg.Done()
		for e := range shufDrv.Events() {
			if e.Kind == device.ShuffleComplete {
				reports <- e.SetID
			}
		}
	}()
	defer func() {
		cancel()
		sim.Close()
		shoeDrv.Close()
		shufDrv.Close()
		wg.Wait()
	}()

	if err := sim.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sim.Run(ctx, []Step{{Op: "shuffle"}, {Op: "deal"}}); err != nil {
		t.Fatal(err)
	}
	if set := <-reports; set != 1 {
		t.Fatalf("set %d reported first, want 1", set)
	}
	shuffled := make(chan error, 1)
	go func() { shuffled <- sim.Run(ctx, []Step{{Op: "shuffle"}}) }()
	if !hostAcks {
		// Read is all the shoe waits for.
		if err := <-shuffled; err != nil {
			t.Fatal(err)
		}
		if set := <-reports; set != 2 {
			t.Fatalf("set %d reported, want 2", set)
		}
		return
	}
	// Nothing the shoe does can show it waits: the wait is bounded, and only a shoe that
	// does not wait fails within it.
	select {
	case err := <-shuffled:
		t.Fatalf("the next set was shuffled (%v) while the host had acknowledged none of the last set's %v", err, sim.Unacknowledged())
	case set := <-reports:
		t.Fatalf("set %d reported while the host had acknowledged none of the last set's %v", set, sim.Unacknowledged())
	case <-time.After(300 * time.Millisecond):
	}
	close(ack)
	if err := <-shuffled; err != nil {
		t.Fatal(err)
	}
	if set := <-reports; set != 2 {
		t.Fatalf("set %d reported, want 2", set)
	}
	if u := sim.Unacknowledged(); len(u) != 0 {
		t.Fatalf("set 2 shuffled with %v unacknowledged", u)
	}
}
