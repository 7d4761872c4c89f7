package daemon

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/tablectl/tablectl/drivers/display"
)

// Transport is what the daemon needs of the MQTT client: publishing, commands and
// closing. display.Client is the real one; display.Recorder the test double.
type Transport interface {
	display.Publisher
	Commands() <-chan display.Command
	Close() error
}

// NoBroker is a Transport for a table that publishes nowhere (tablectl watch): every
// message is taken as delivered at once, and no command comes.
type NoBroker struct{}

var delivered = func() chan error { c := make(chan error); close(c); return c }()

// Publish implements Transport: it drops the message.
func (NoBroker) Publish(string, []byte, bool) <-chan error { return delivered }

// Commands implements Transport: none.
func (NoBroker) Commands() <-chan display.Command { return nil }

// Close implements Transport.
func (NoBroker) Close() error { return nil }

// outMsg is a message waiting for the broker's acknowledgement.
type outMsg struct {
	seq      uint64
	topic    string
	payload  []byte
	result   <-chan error // nil: not handed to the transport yet
	retained bool
}

// outbox publishes the event messages in order and keeps each until the broker
// acknowledged it; after a reconnect it re-publishes from the first one not acknowledged
// (the contract of drivers/display). Retained messages are kept by topic, latest only,
// and published again on every connect. The journal is the source of everything here:
// after a restart the daemon rebuilds the messages of the shoe from it.
type outbox struct {
	log *slog.Logger

	mu       sync.Mutex
	pub      display.Publisher // nil until connected
	up       bool
	queue    []*outMsg // event messages not yet acknowledged, in order
	retained map[string][]byte
	order    []string // retained topics in the order first set
	acked    uint64   // every event message up to this sequence number is acknowledged
	wake     chan struct{}
	empty    []chan struct{} // closed when the queue is next empty
	quit     chan struct{}
	done     chan struct{}
}

func newOutbox(log *slog.Logger) *outbox {
	o := &outbox{log: log, retained: map[string][]byte{}, wake: make(chan struct{}, 1),
		quit: make(chan struct{}), done: make(chan struct{})}
	go o.ackLoop()
	return o
}

// attach sets the transport to publish through; publishing starts at the next connect.
func (o *outbox) attach(p display.Publisher) {
	o.mu.Lock()
	o.pub = p
	o.mu.Unlock()
}

// add queues an event message, or replaces a retained topic's message, and publishes it
// at once when connected.
func (o *outbox) add(topic string, seq uint64, payload []byte, retained bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if retained {
		if _, ok := o.retained[topic]; !ok {
			o.order = append(o.order, topic)
		}
		o.retained[topic] = payload
		if o.up {
			o.pub.Publish(topic, payload, true) // refreshed on every connect; no need to track
		}
		return
	}
	m := &outMsg{seq: seq, topic: topic, payload: payload}
	o.queue = append(o.queue, m)
	if o.up {
		o.send(m, o.pub)
	}
}

// prepend puts event messages before those queued, as if added first.
func (o *outbox) prepend(msgs []*outMsg) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.queue = append(msgs, o.queue...)
}

// send hands m to p; the caller holds the lock. A message at the head of the queue whose
// delivery p confirms at once (a broker in process) is dropped here. The acknowledgement
// loop is not woken for it: waking it would hand the processor to it just as the
// broker's writers wait to take the message to the subscribers.
func (o *outbox) send(m *outMsg, p display.Publisher) {
	m.result = p.Publish(m.topic, m.payload, false)
	if len(o.queue) > 0 && o.queue[0] == m {
		select {
		case err := <-m.result:
			if err == nil {
				o.delivered(m)
				return
			}
			// A failure is the loop's to handle, as any other: it gets the error back.
			res := make(chan error, 1)
			res <- err
			m.result = res
		default:
		}
	}
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// delivered drops head, the queue's first message, now acknowledged; the caller holds
// the lock.
func (o *outbox) delivered(head *outMsg) {
	o.acked = head.seq
	o.queue[0] = nil
	o.queue = o.queue[1:]
	if len(o.queue) == 0 {
		for _, w := range o.empty {
			close(w)
		}
		o.empty = nil
	}
}

// onConnect is the transport's OnConnect hook: re-publish every message not
// acknowledged, in order, then the retained picture, through resend.
func (o *outbox) onConnect(resend display.Publisher) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, m := range o.queue {
		o.send(m, resend)
	}
	for _, t := range o.order {
		resend.Publish(t, o.retained[t], true)
	}
	o.up = true
	o.log.Info("mqtt: connected; re-published", "messages", len(o.queue), "acked_up_to", o.acked)
}

// ackLoop waits for the acknowledgement of the oldest message and drops it; an error
// means the connection is down: publishing stops until the next connect.
func (o *outbox) ackLoop() {
	defer close(o.done)
	for {
		o.mu.Lock()
		var head *outMsg
		var ch <-chan error
		if len(o.queue) > 0 && o.queue[0].result != nil {
			head, ch = o.queue[0], o.queue[0].result
		}
		o.mu.Unlock()
		if head == nil {
			select {
			case <-o.wake:
				continue
			case <-o.quit:
				return
			}
		}
		var err error
		select {
		case err = <-ch:
		case <-o.quit:
			return
		}
		o.mu.Lock()
		switch {
		case len(o.queue) == 0 || o.queue[0] != head || head.result != ch:
			// Re-published meanwhile: wait for the new result.
		case err == nil:
			o.delivered(head)
		default:
			if o.up && !errors.Is(err, display.ErrClosed) {
				o.log.Warn("mqtt: publish failed; waiting for the connection", "seq", head.seq, "err", err)
			}
			o.up = false
			head.result = nil
		}
		o.mu.Unlock()
	}
}

// connected reports whether the outbox takes the transport to be connected.
func (o *outbox) connected() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.up
}

// pending is how many event messages wait for an acknowledgement, and the last one
// acknowledged.
func (o *outbox) pending() (n int, acked uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.queue), o.acked
}

// waitEmpty waits until every event message queued is acknowledged, or until ctx is
// done.
func (o *outbox) waitEmpty(ctx context.Context) error {
	o.mu.Lock()
	if len(o.queue) == 0 {
		o.mu.Unlock()
		return nil
	}
	w := make(chan struct{})
	o.empty = append(o.empty, w)
	o.mu.Unlock()
	select {
	case <-w:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close stops the acknowledgement loop.
func (o *outbox) close() {
	close(o.quit)
	<-o.done
}
