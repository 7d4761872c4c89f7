package display_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// streamer is the caller the package comment describes: a journal of messages with
// sequence numbers 1..n, the highest sequence number up to which every message was
// acknowledged, and re-publishing of the rest from Options.OnConnect.
type streamer struct {
	topic string

	mu      sync.Mutex
	journal [][]byte // seq i+1 is journal[i]
	next    int      // the next seq to publish
	acked   int      // every seq <= acked was acknowledged
	paused  bool     // the connection is down: publish nothing new until OnConnect
	resent  int      // messages re-published from OnConnect

	results  chan pendingSeq
	advanced chan struct{} // a signal each time acked moves on
	done     chan struct{}
}

type pendingSeq struct {
	seq int
	res <-chan error
}

func newStreamer(topic string) *streamer {
	s := &streamer{topic: topic, next: 1, results: make(chan pendingSeq, 1<<16), advanced: make(chan struct{}, 1), done: make(chan struct{})}
	go s.track()
	return s
}

// track advances acked over results in order; a failed one stops it until the message
// is re-published and acknowledged.
func (s *streamer) track() {
	defer close(s.done)
	for p := range s.results {
		err := <-p.res
		s.mu.Lock()
		moved := err == nil && p.seq == s.acked+1
		if moved {
			s.acked = p.seq
		}
		s.mu.Unlock()
		if moved {
			select {
			case s.advanced <- struct{}{}:
			default: // one waiting signal is enough: the waiter reads acked
			}
		}
	}
}

// append journals a message and publishes what may be published.
func (s *streamer) append(pub display.Publisher, payload []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.journal = append(s.journal, payload)
	s.pump(pub)
}

// pump publishes journal[next-1:]; the caller holds mu.
func (s *streamer) pump(pub display.Publisher) {
	for !s.paused && s.next <= len(s.journal) {
		res := pub.Publish(s.topic, s.journal[s.next-1], false)
		select {
		case err := <-res:
			if err != nil { // refused at once: the connection is down
				s.paused = true
				return
			}
			done := make(chan error, 1)
			done <- nil
			res = done
		default:
		}
		s.results <- pendingSeq{seq: s.next, res: res}
		s.next++
	}
}

// onConnect is the OnConnect hook: re-publish everything after acked, in order.
func (s *streamer) onConnect(resend display.Publisher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = s.acked + 1
	s.paused = false
	from := s.next
	s.pump(resend)
	s.resent += s.next - from
}

func (s *streamer) ackedUpTo() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acked
}

func (s *streamer) stop() {
	close(s.results)
	<-s.done
}

func seqPayload(seq int) []byte {
	return fmt.Appendf(nil, `{"schema":1,"table":"t1","shoe":1,"round":%d,"seq":%d,"at":"2026-01-01T00:00:00Z","pad":"%0200d"}`, 1+seq/10, seq, 0)
}

// runStream publishes n messages through a client dialled with opts. When half of
// them were handed over it calls down (the broker goes away), journals a tenth more
// while it is away, calls up and publishes the rest. It checks that the subscriber gets
// every message at least once and, dropping duplicates, exactly once and in order.
func runStream(t *testing.T, opts display.Options, s *sub, n int, down, up func()) {
	t.Helper()
	st := newStreamer("tablectl/v1/t1/result")
	opts.OnConnect = st.onConnect
	c, connected := dial(t, opts)
	for seq := 1; seq <= n; seq++ {
		st.append(c, seqPayload(seq))
		switch seq {
		case n / 2:
			down()
		case n/2 + n/10:
			up()
			waitFor(t, connected, "reconnect")
		}
	}
	giveUp := time.After(guard) // bounds a failure only
	for st.ackedUpTo() < n {
		select {
		case <-st.advanced:
		case <-giveUp:
			t.Fatalf("acknowledged up to %d of %d", st.ackedUpTo(), n)
		}
	}
	dups := checkStream(t, s, st.topic, n)
	c.Close()
	st.stop()
	if st.resent < n/10 {
		t.Errorf("%d messages re-published after the reconnect; at least the %d journalled while the broker was away must be", st.resent, n/10)
	}
	t.Logf("%d messages, %d re-published, %d duplicates dropped by the subscriber", n, st.resent, dups)
}

// TestRepublishAfterConnectionCut cuts the client's connection to the embedded broker
// in the middle of a stream and keeps it away for a while; the subscriber stays
// connected.
func TestRepublishAfterConnectionCut(t *testing.T) {
	t.Parallel()
	b := embedded(t)
	proxy := newCutProxy(t, b.url[len("tcp://"):])
	s := subscribe(t, b.url, "board", "tablectl/v1/t1/result", nil)
	runStream(t, display.Options{Broker: proxy.url()}, s, 2000, proxy.block, proxy.unblock)
}

// TestBrokerRestartMidStream stops Mosquitto in the middle of a stream and starts it
// again. The broker keeps its sessions across the restart (persistence) and the
// subscriber has a persistent session, as a pit system's should: a broker without
// them loses what it had not yet delivered, whatever the publisher does.
func TestBrokerRestartMidStream(t *testing.T) {
	t.Parallel()
	m := mosquittotest.Start(t, mosquittotest.Config{Persistence: true})
	s := subscribe(t, m.URL(), "pit-system", "tablectl/v1/t1/result", func(o *mqtt.ClientOptions) {
		o.SetCleanSession(false).SetAutoReconnect(true)
	})
	runStream(t, display.Options{Broker: m.URL()}, s, 2000, m.Stop, m.StartAgain)
}
