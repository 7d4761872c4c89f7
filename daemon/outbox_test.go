package daemon

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/tablectl/tablectl/drivers/display"
)

// pubFunc is a display.Publisher that answers each message with the channel it returns.
type pubFunc func(topic string) <-chan error

func (f pubFunc) Publish(topic string, _ []byte, _ bool) <-chan error { return f(topic) }

// bareOutbox is an outbox with no acknowledgement loop: what it drops, send dropped.
func bareOutbox(p display.Publisher) *outbox {
	return &outbox{log: slog.New(slog.DiscardHandler), retained: map[string][]byte{}, wake: make(chan struct{}, 1),
		quit: make(chan struct{}), done: make(chan struct{}), pub: p, up: true}
}

func TestOutboxDropsAMessageDeliveredAtOnce(t *testing.T) {
	t.Parallel()
	o := bareOutbox(pubFunc(func(string) <-chan error { return delivered }))
	for seq := uint64(1); seq <= 3; seq++ {
		o.add("t/card", seq, []byte("{}"), false)
		if n, acked := o.pending(); n != 0 || acked != seq {
			t.Fatalf("after message %d: %d waiting, %d acknowledged; want 0 and %d", seq, n, acked, seq)
		}
	}
	select {
	case <-o.wake:
		t.Fatal("the acknowledgement loop was woken for messages already delivered")
	default:
	}
}

func TestOutboxKeepsOrderBehindAMessageInFlight(t *testing.T) {
	t.Parallel()
	inFlight := make(chan error, 1)
	first := true
	o := bareOutbox(pubFunc(func(string) <-chan error {
		if first {
			first = false
			return inFlight // a broker that has not answered yet
		}
		return delivered
	}))
	o.add("t/card", 1, []byte("{}"), false)
	o.add("t/card", 2, []byte("{}"), false)
	if n, acked := o.pending(); n != 2 || acked != 0 {
		t.Fatalf("%d waiting, %d acknowledged; want both waiting behind the first", n, acked)
	}
	go o.ackLoop()
	defer o.close()
	inFlight <- nil
	if err := o.waitEmpty(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, acked := o.pending(); acked != 2 {
		t.Fatalf("acknowledged up to %d, want 2", acked)
	}
}

func TestOutboxLeavesAFailureToTheLoop(t *testing.T) {
	t.Parallel()
	failed := errors.New("broker gone")
	o := bareOutbox(pubFunc(func(string) <-chan error { return result1(failed) }))
	warned := warnings(make(chan string, 4))
	o.log = slog.New(warned)
	o.add("t/card", 1, []byte("{}"), false)
	if n, _ := o.pending(); n != 1 {
		t.Fatalf("%d waiting after a failed publish, want 1", n)
	}
	go o.ackLoop()
	defer o.close()
	if msg := <-warned; msg != "mqtt: publish failed; waiting for the connection" {
		t.Fatalf("warned %q", msg)
	}
	if o.connected() {
		t.Fatal("still taken to be connected after the failure")
	}
	if n, acked := o.pending(); n != 1 || acked != 0 {
		t.Fatalf("%d waiting, %d acknowledged after the failure; want 1 and 0", n, acked)
	}
}

// warnings is a slog.Handler that sends each warning's message to the channel.
type warnings chan string

func (w warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (w warnings) Handle(_ context.Context, r slog.Record) error {
	w <- r.Message
	return nil
}

func (w warnings) WithAttrs([]slog.Attr) slog.Handler { return w }

func (w warnings) WithGroup(string) slog.Handler { return w }

// result1 is a channel holding err, as a publisher answers at once.
func result1(err error) <-chan error {
	ch := make(chan error, 1)
	ch <- err
	return ch
}
