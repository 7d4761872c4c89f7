package daemon

import (
	"hash/fnv"
	"sync"
	"time"

	"github.com/tablectl/tablectl/drivers/display"
)

// DefaultEchoGrace is how long a publish acknowledged by the broker may take to come
// back on tablectl's own subscription before the broker is taken to have dropped it.
const DefaultEchoGrace = 5 * time.Second

// maxEchoPending bounds the publishes watched at once; more are not watched until some
// come back or expire.
const maxEchoPending = 4096

// EchoWatch notices a broker that takes tablectl's publishes and does not deliver them:
// Mosquitto with MQTT 3.1.1 acknowledges a publish its ACL refuses and drops it, so the
// acknowledgement proves nothing. tablectl subscribes to its own topics
// (display.Options.OnEcho); every message it publishes must come back within the grace
// time. Check reports the publishes that did not, and Denied stays true until one comes
// back again.
//
// Sent, Failed and Echo are safe for concurrent use (the transport's goroutines call
// Echo); Check is called from one goroutine.
type EchoWatch struct {
	grace time.Duration
	now   func() time.Time

	mu      sync.Mutex
	pending map[uint64]*echoEntry
	// okSent and lostSent are when the latest publish that came back, and the latest
	// that did not, were sent; the broker is taken to deny while the latest that did
	// not come back is not older than the latest that did. topic is a topic of the
	// latest that did not.
	okSent, lostSent time.Time
	lost             bool
	topic            string
	denied           bool
}

type echoEntry struct {
	topic string
	n     int       // publishes of this topic and payload not yet back
	first time.Time // when the oldest of them was sent
	acked time.Time // when the broker first acknowledged one of them; zero before
}

// NewEchoWatch returns a watch with the grace time (DefaultEchoGrace when zero) and
// clock (time.Now when nil).
func NewEchoWatch(grace time.Duration, now func() time.Time) *EchoWatch {
	if grace <= 0 {
		grace = DefaultEchoGrace
	}
	if now == nil {
		now = time.Now
	}
	return &EchoWatch{grace: grace, now: now, pending: map[uint64]*echoEntry{}}
}

func echoKey(topic string, payload []byte) uint64 {
	h := fnv.New64a()
	h.Write([]byte(topic))
	h.Write([]byte{0})
	h.Write(payload)
	return h.Sum64()
}

// Sent notes a message handed to the broker.
func (w *EchoWatch) Sent(topic string, payload []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := echoKey(topic, payload)
	if e, ok := w.pending[k]; ok {
		e.n++
		return
	}
	if len(w.pending) >= maxEchoPending {
		return
	}
	w.pending[k] = &echoEntry{topic: topic, n: 1, first: w.now()}
}

// Acked notes the broker's acknowledgement of a message: its echo is due within the
// grace time from now. A message is never taken as lost before it is acknowledged, so
// a broker that is away raises no alarm (its publishes fail instead).
func (w *EchoWatch) Acked(topic string, payload []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e, ok := w.pending[echoKey(topic, payload)]; ok && e.acked.IsZero() {
		e.acked = w.now()
	}
}

// Failed notes a message the broker did not take (not acknowledged): no echo is due.
func (w *EchoWatch) Failed(topic string, payload []byte) { w.take(topic, payload, false) }

// Echo notes a message received on tablectl's own subscription.
func (w *EchoWatch) Echo(topic string, payload []byte) { w.take(topic, payload, true) }

func (w *EchoWatch) take(topic string, payload []byte, echoed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := echoKey(topic, payload)
	e, ok := w.pending[k]
	if !ok {
		return // a retained message from before, or one published by someone else
	}
	if e.n--; e.n <= 0 {
		delete(w.pending, k)
	}
	if echoed && e.first.After(w.okSent) {
		w.okSent = e.first
	}
}

// Reset forgets what is in flight: after a lost connection, what was sent on it may
// never come back, and is sent again.
func (w *EchoWatch) Reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.pending)
}

// Check drops the publishes acknowledged longer than the grace time ago that did not come
// back, and reports how many there were (lost). denied says whether the broker is taken
// to deny tablectl's publishes: the latest publish that did not come back is not older
// than the latest that did. changed says whether denied changed since the last Check.
// topic is that of a publish that did not come back. A broker that drops some topics only raises the alarm each
// time it drops one, and clears it when a later publish comes back.
func (w *EchoWatch) Check() (lost int, denied, changed bool, topic string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	for k, e := range w.pending {
		if !e.acked.IsZero() && now.Sub(e.acked) >= w.grace {
			lost += e.n
			if !w.lost || !e.first.Before(w.lostSent) {
				w.lostSent, w.lost, w.topic = e.first, true, e.topic
			}
			delete(w.pending, k)
		}
	}
	was := w.denied
	w.denied = w.lost && !w.lostSent.Before(w.okSent)
	return lost, w.denied, w.denied != was, w.topic
}

// Publisher wraps p so that what goes through it is watched.
func (w *EchoWatch) Publisher(p display.Publisher) display.Publisher {
	return echoPublisher{w: w, p: p}
}

type echoPublisher struct {
	w *EchoWatch
	p display.Publisher
}

// Publish notes the message before it is handed on, since its echo may come before its
// acknowledgement, and takes it back if the broker does not acknowledge it.
func (e echoPublisher) Publish(topic string, payload []byte, retained bool) <-chan error {
	e.w.Sent(topic, payload)
	res := e.p.Publish(topic, payload, retained)
	select {
	case err := <-res: // already decided (not connected, say): no goroutine needed
		e.w.settled(topic, payload, err)
		return result(err)
	default:
	}
	out := make(chan error, 1)
	go func() {
		err := <-res
		e.w.settled(topic, payload, err)
		out <- err
	}()
	return out
}

// settled notes the broker's answer to a publish.
func (w *EchoWatch) settled(topic string, payload []byte, err error) {
	if err != nil {
		w.Failed(topic, payload)
	} else {
		w.Acked(topic, payload)
	}
}

func result(err error) <-chan error {
	ch := make(chan error, 1)
	ch <- err
	return ch
}
