package simulator

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
)

// ackingHost reads a shoe driver's events and acknowledges each card as it reads it, as
// the table does once it has recorded the card.
type ackingHost struct {
	drv  *device.Driver
	done chan struct{}

	mu     sync.Mutex
	events []device.Event
	acked  []uint16 // the cards whose ack was written
	cards  int
	last   uint16 // the number of the last card read
}

func startHost(t *testing.T, link string) *ackingHost {
	t.Helper()
	drv, err := shoe.Start(shoe.Config{Format: shoe.Tablectl, Port: device.Config{Path: link, ReadTimeout: 50 * time.Millisecond}},
		device.Options{Logger: quiet, MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h := &ackingHost{drv: drv, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		for e := range drv.Events() {
			h.mu.Lock()
			h.events = append(h.events, e)
			if e.Kind == device.CardDrawn {
				h.cards++
				h.last = e.CardNo
				if drv.Ack(e) == nil {
					h.acked = append(h.acked, e.CardNo)
				}
			} else if e.Numbered() {
				drv.Ack(e)
			}
			h.mu.Unlock()
		}
	}()
	return h
}

// stop closes the driver, as when tablectl stops, and waits until its events are read.
func (h *ackingHost) stop() {
	h.drv.Close()
	<-h.done
}

func (h *ackingHost) lastCard() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return int(h.last)
}

func (h *ackingHost) cardsRead() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cards
}

// cardsSent is the number of the last card the simulated shoe sent.
func (s *Simulator) cardsSent() int {
	s.shoeEnc.mu.Lock()
	defer s.shoeEnc.mu.Unlock()
	return int(s.shoeEnc.framed.CardNo)
}

// dropLineInput throws away what waits unread on the shoe's line, as a real serial line
// does with what the shoe sends while no program has the port open.
func dropLineInput(t *testing.T, p *Port) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	n, err := inputQueued(p.slave)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("nothing waits on the line: the shoe sent no card while the host was away")
	}
	if err := flushInput(p.slave); err != nil {
		t.Fatal(err)
	}
}

// TestHostRestartLosesNoCard stops the host's shoe driver twice in the middle of dealing,
// as a restart of tablectl does, while the shoe goes on dealing at its pace, and starts a
// new driver later (docs/protocol.md, "Acknowledgement and resend"). Every card dealt
// reaches a host, with its number and the card the shuffler's order has there. After
// each new driver's hello the shoe sends again exactly the cards not acknowledged: the
// first card after the Hello is the one after the last acknowledged, and the numbers go
// on one by one from there, with no sequence gap and nothing unreadable. This holds
// whether the line kept what the shoe sent meanwhile (a pseudo-terminal does; the new
// driver reads it before the Hello) or lost it, as a serial line does.
func TestHostRestartLosesNoCard(t *testing.T) {
	for _, drop := range []bool{false, true} {
		name := "line keeps bytes"
		if drop {
			name = "line loses bytes"
		}
		t.Run(name, func(t *testing.T) { hostRestarts(t, drop) })
	}
}

func hostRestarts(t *testing.T, drop bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sim, err := New(Config{Dir: t.TempDir(), Seed: 7, Cut: 16, Pace: 3 * time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	shufDrv, err := shuffler.Start(device.Config{Path: sim.Shuffler.Link, ReadTimeout: 50 * time.Millisecond},
		device.Options{Logger: quiet, MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var order []baccarat.Card
	shufDone := make(chan struct{})
	go func() {
		defer close(shufDone)
		for e := range shufDrv.Events() {
			if e.Kind == device.ShuffleComplete {
				order = e.Order
			}
		}
	}()

	hosts := []*ackingHost{startHost(t, sim.Shoe.Link)}
	fail := func(err error) {
		t.Helper()
		cancel()
		sim.Close()
		for _, h := range hosts {
			h.stop()
		}
		shufDrv.Close()
		<-shufDone
		t.Fatal(err)
	}
	if err := sim.Connect(ctx); err != nil {
		fail(err)
	}
	// The dealer deals from this goroutine, a round at a time, so that each restart
	// happens at the same point of the shoe however fast the machine is: never after the
	// last card, nor with no card dealt while the host is away.
	deal := func(cards int) {
		t.Helper()
		from := sim.cardsSent()
		for sim.cardsSent() < from+cards {
			if err := sim.Run(ctx, []Step{{Op: "round", N: 1}}); err != nil {
				fail(err)
			}
		}
	}
	if err := sim.Run(ctx, []Step{{Op: "shuffle"}, {Op: "burn"}}); err != nil {
		fail(err)
	}
	for range 2 { // two restarts in the middle of dealing
		h := hosts[len(hosts)-1]
		read := h.cardsRead()
		deal(8)
		if err := waitUntil(ctx, "the host reads 8 cards", func() bool { return h.cardsRead() >= read+8 }); err != nil {
			fail(err)
		}
		h.stop()
		deal(6) // while no host reads the line
		if drop {
			dropLineInput(t, sim.Shoe)
		}
		hosts = append(hosts, startHost(t, sim.Shoe.Link))
	}
	if err := sim.Run(ctx, []Step{{Op: "round", N: 10}}); err != nil {
		fail(err)
	}
	if err := sim.Drain(ctx); err != nil {
		fail(err)
	}
	sent := sim.cardsSent()
	last := hosts[len(hosts)-1]
	if err := waitUntil(ctx, "the host has read the last card", func() bool { return last.lastCard() == sent }); err != nil {
		fail(err)
	}
	if err := sim.Close(); err != nil {
		t.Error(err)
	}
	for _, h := range hosts {
		h.stop()
	}
	shufDrv.Close()
	<-shufDone

	if len(order) < sent {
		t.Fatalf("the shuffler's order has %d cards, the shoe sent %d", len(order), sent)
	}
	seen := make(map[uint16]bool)
	lastAcked := 0
	for i, h := range hosts {
		helloAt := -1
		for j, e := range h.events {
			if e.Kind == device.Hello {
				helloAt = j
				break
			}
		}
		if helloAt < 0 {
			t.Fatalf("host %d: no hello in %v", i+1, h.events)
		}
		// The shoe takes the acks it has read when it answers the hello: those of the
		// hosts before, and those this host wrote for cards it read before the Hello.
		taken := map[int]bool{lastAcked: true}
		for _, e := range h.events[:helloAt] {
			if e.Kind == device.CardDrawn && slices.Contains(h.acked, e.CardNo) {
				taken[int(e.CardNo)] = true
			}
		}
		next, resends, fresh := -1, 0, 0
		for _, e := range h.events[helloAt+1:] {
			switch e.Kind {
			case device.Unreadable, device.SeqGap:
				t.Fatalf("host %d: %v after the hello", i+1, e)
			case device.CardDrawn:
				if next < 0 && !taken[int(e.CardNo)-1] {
					t.Fatalf("host %d: the first card after the hello is %v, but card %d was not acknowledged (the last acknowledged before was %d)",
						i+1, e, e.CardNo-1, lastAcked)
				}
				if next >= 0 && int(e.CardNo) != next {
					t.Fatalf("host %d: card number %d after the hello, want %d", i+1, e.CardNo, next)
				}
				next = int(e.CardNo) + 1
				if !e.Resent {
					fresh++
				} else if resends++; fresh > 0 {
					t.Fatalf("host %d: %v is resent after a card sent for the first time", i+1, e)
				}
			}
		}
		if i == 0 && resends > 0 || drop && i > 0 && resends == 0 {
			t.Fatalf("host %d: %d cards resent after the hello", i+1, resends)
		}
		for _, e := range h.events {
			if e.Kind != device.CardDrawn {
				continue
			}
			if e.CardNo == 0 || int(e.CardNo) > sent || e.Card != order[e.CardNo-1] {
				t.Fatalf("host %d: %v, the shuffler's order has card %d as %s", i+1, e, e.CardNo, order[max(int(e.CardNo), 1)-1])
			}
			seen[e.CardNo] = true
		}
		for _, no := range h.acked {
			lastAcked = max(lastAcked, int(no))
		}
		if i < len(hosts)-1 && len(h.acked) == 0 {
			t.Fatalf("host %d acknowledged no card", i+1)
		}
	}
	for no := 1; no <= sent; no++ {
		if !seen[uint16(no)] {
			t.Fatalf("card %d of %d reached no host", no, sent)
		}
	}
	if lastAcked != sent {
		t.Fatalf("the last host acknowledged up to card %d, the shoe sent %d (events %v)", lastAcked, sent, last.events)
	}
}
