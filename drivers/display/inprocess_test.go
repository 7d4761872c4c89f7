package display_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/broker"
	"github.com/tablectl/tablectl/drivers/display"
)

// inProcess stands for the embedded broker's Publish: it counts its calls, fails the
// payload "fail", drops the payload "drop" and hands the rest to the broker.
type inProcess struct {
	b     *broker.Broker
	mu    sync.Mutex
	calls int
}

var errInjected = errors.New("injected")

func (p *inProcess) publish(topic string, payload []byte, retained bool) error {
	p.mu.Lock()
	p.calls++
	p.mu.Unlock()
	switch string(payload) {
	case "fail":
		return errInjected
	case "drop":
		return nil
	}
	return p.b.Publish(topic, payload, retained)
}

func (p *inProcess) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

// TestInProcessPublishing: with InProcess, Publish and OnConnect's re-publishing go to
// it, not through the connection, and its error is the result; while the connection
// is down Publish is refused as without it.
func TestInProcessPublishing(t *testing.T) {
	t.Parallel()
	b, err := broker.Start(context.Background(), broker.Options{Listen: "127.0.0.1:0", OpenAccess: true, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	proxy := newCutProxy(t, b.Addr())
	s := subscribe(t, b.URL(), "board", "tablectl/v1/t1/result", nil)
	ip := &inProcess{b: b}
	var resendMu sync.Mutex
	var resent []<-chan error
	c, connected := dial(t, display.Options{Broker: proxy.url(), InProcess: ip.publish, OnConnect: func(p display.Publisher) {
		resendMu.Lock()
		defer resendMu.Unlock()
		resent = append(resent, p.Publish("tablectl/v1/t1/result", []byte("resent"), false))
	}})
	const topic = "tablectl/v1/t1/result"

	if err := waitResult(t, c.Publish(topic, []byte("drop"), false), "drop"); err != nil {
		t.Fatal(err)
	}
	if err := waitResult(t, c.Publish(topic, []byte("one"), false), "one"); err != nil {
		t.Fatal(err)
	}
	if got := s.next(t, topic); string(got.Payload()) != "resent" {
		t.Fatalf("first message %q, want the one OnConnect re-published", got.Payload())
	}
	if got := s.next(t, topic); string(got.Payload()) != "one" {
		t.Fatalf("got %q, want one: a message InProcess dropped went another way", got.Payload())
	}
	if err := waitResult(t, c.Publish(topic, []byte("fail"), false), "fail"); !errors.Is(err, errInjected) {
		t.Fatalf("result %v, want InProcess's error", err)
	}

	proxy.block() // the connection is lost: Publish is refused once the client sees it
	deadline := time.Now().Add(guard)
	for {
		if err := waitResult(t, c.Publish(topic, []byte("drop"), false), "while down"); errors.Is(err, display.ErrNotConnected) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Publish still accepted long after the connection was cut")
		}
	}
	before := ip.count()
	if err := waitResult(t, c.Publish(topic, []byte("two"), false), "two"); !errors.Is(err, display.ErrNotConnected) {
		t.Fatalf("while down: %v, want ErrNotConnected", err)
	}
	if ip.count() != before {
		t.Fatal("a Publish refused for the connection still reached InProcess")
	}

	proxy.unblock()
	waitFor(t, connected, "the reconnect")
	resendMu.Lock()
	last := resent[len(resent)-1]
	resendMu.Unlock()
	if err := waitResult(t, last, "the re-published message"); err != nil {
		t.Fatal(err)
	}
	if got := s.next(t, topic); string(got.Payload()) != "resent" {
		t.Fatalf("after the reconnect: got %q, want the re-published message", got.Payload())
	}
	if ip.count() != before+1 {
		t.Fatalf("InProcess called %d times for the re-publish, want 1", ip.count()-before)
	}
}
