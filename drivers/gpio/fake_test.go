package gpio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
)

// fakeClock is a clock that moves only when the test advances it, so debounce decisions
// depend on the times the test sets and not on how fast the machine runs.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newPin is a gpiotest pin whose edges the test sends on EdgesChan. The channel is
// unbuffered, so a send returns only once the driver has taken the edge.
func newPin(name string) *gpiotest.Pin {
	return &gpiotest.Pin{N: name, EdgesChan: make(chan gpio.Level)}
}

// recPin is a gpiotest pin that records every level written to it and every Halt.
type recPin struct {
	*gpiotest.Pin
	mu      sync.Mutex
	levels  []gpio.Level
	halts   int
	failOut error // when set, Out fails with it
	changed chan struct{}
}

func newRecPin(name string) *recPin {
	return &recPin{Pin: newPin(name), changed: make(chan struct{}, 1)}
}

func (p *recPin) Out(l gpio.Level) error {
	p.mu.Lock()
	if p.failOut != nil {
		p.mu.Unlock()
		return p.failOut
	}
	p.levels = append(p.levels, l)
	p.mu.Unlock()
	select {
	case p.changed <- struct{}{}:
	default:
	}
	return p.Pin.Out(l)
}

func (p *recPin) setFailOut(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failOut = err
}

func (p *recPin) Halt() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.halts++
	return nil
}

// Levels is a copy of the levels written so far.
func (p *recPin) Levels() []gpio.Level {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]gpio.Level(nil), p.levels...)
}

func (p *recPin) Halts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.halts
}

// fakeTimer is an output's blink timer that the test fires (fire): it keeps every time
// the output set it, and whether it is set. A blink that goes on shows itself as the
// timer set again, not as levels that might come if the test waited long enough.
type fakeTimer struct {
	c       chan time.Time
	mu      sync.Mutex
	armed   bool
	sets    []time.Duration
	changed chan struct{}
}

func newFakeTimer() *fakeTimer {
	return &fakeTimer{c: make(chan time.Time), changed: make(chan struct{}, 1)}
}

// make is Config.newTimer: the one output of the test gets this timer.
func (f *fakeTimer) make() blinkTimer { return f }

func (f *fakeTimer) C() <-chan time.Time { return f.c }

func (f *fakeTimer) Reset(d time.Duration) {
	f.mu.Lock()
	f.armed = true
	f.sets = append(f.sets, d)
	f.mu.Unlock()
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

func (f *fakeTimer) Stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed = false
}

// state is whether the timer is set, and every time it was set, in order.
func (f *fakeTimer) state() (bool, []time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.armed, append([]time.Duration(nil), f.sets...)
}

// fire waits until the output has set the timer, then delivers its tick, as the time
// set has passed. It returns once the output has taken the tick.
func (f *fakeTimer) fire(t *testing.T) {
	t.Helper()
	giveUp := time.After(60 * time.Second)
	for {
		f.mu.Lock()
		armed := f.armed
		if armed {
			f.armed = false
		}
		f.mu.Unlock()
		if armed {
			break
		}
		select {
		case <-f.changed:
		case <-giveUp:
			t.Fatal("the blink timer was never set")
		}
	}
	select {
	case f.c <- time.Time{}:
	case <-giveUp:
		t.Fatal("the output never took the blink timer's tick")
	}
}

// waitLevels waits until n levels have been written to p. It fails the test after ten
// seconds, a bound far above any correct run and no statement about speed.
func waitLevels(t *testing.T, p *recPin, n int) []gpio.Level {
	t.Helper()
	giveUp := time.After(60 * time.Second)
	for {
		if ls := p.Levels(); len(ls) >= n {
			return ls
		}
		select {
		case <-p.changed:
		case <-giveUp:
			t.Fatalf("%s: waited for %d levels, have %v", p.N, n, p.Levels())
		}
	}
}

// openTest opens a driver on pins with clock as its clock, and closes it when the test
// ends.
func openTest(t *testing.T, cfg Config, clock *fakeClock, pins PinMap) *Driver {
	t.Helper()
	cfg.Now = clock.Now
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	d, err := OpenPins(context.Background(), cfg, pins.ByName)
	if err != nil {
		t.Fatalf("OpenPins: %v", err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return d
}

// nextEvent advances the fake clock in small steps until the driver delivers an event.
// It fails the test after ten seconds of real time.
func nextEvent(t *testing.T, d *Driver, clock *fakeClock) Event {
	t.Helper()
	giveUp := time.After(60 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case ev, ok := <-d.Events():
			if !ok {
				t.Fatal("events closed while waiting for an event")
			}
			return ev
		case <-tick.C:
			clock.Advance(5 * time.Millisecond)
		case <-giveUp:
			t.Fatal("no event after 10s")
		}
	}
}

// closeAndDrain closes d and returns the events still undelivered; it fails the test if
// the events channel is not closed by Close.
func closeAndDrain(t *testing.T, d *Driver) []Event {
	t.Helper()
	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	var rest []Event
	for {
		select {
		case ev, ok := <-d.Events():
			if !ok {
				return rest
			}
			rest = append(rest, ev)
		default:
			t.Fatal("events channel still open after Close")
		}
	}
}

// chatter sends levels to pin as edges, advancing clock by gap between them, and returns
// the clock's time at the last edge.
func chatter(clock *fakeClock, pin *gpiotest.Pin, gap time.Duration, levels ...gpio.Level) time.Time {
	for i, l := range levels {
		if i > 0 {
			clock.Advance(gap)
		}
		pin.EdgesChan <- l
	}
	return clock.Now()
}

// fakeImpl is a periph driver.Impl that only has a name, for driverreg.State values.
type fakeImpl string

func (f fakeImpl) String() string          { return string(f) }
func (f fakeImpl) Prerequisites() []string { return nil }
func (f fakeImpl) After() []string         { return nil }
func (f fakeImpl) Init() (bool, error)     { return false, errors.New("not for use") }

// syncBuffer is a bytes.Buffer safe for a logger writing from the driver's goroutines
// while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
