package display_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/tablectl/tablectl/broker"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// guard bounds every wait in these tests. It is a failure guard only: no test asserts
// how long anything took.
const guard = 60 * time.Second

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testBroker is a broker a test talks to.
type testBroker struct {
	name string
	url  string
}

// embedded starts the embedded broker on a free loopback port.
func embedded(t testing.TB) testBroker {
	t.Helper()
	b, err := broker.Start(context.Background(), broker.Options{Listen: "127.0.0.1:0", OpenAccess: true, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return testBroker{name: "embedded", url: b.URL()}
}

// eachBroker runs f against the embedded broker and against Mosquitto (skipped when
// the binary is missing, see mosquittotest).
func eachBroker(t *testing.T, f func(t *testing.T, b testBroker)) {
	t.Run("embedded", func(t *testing.T) { f(t, embedded(t)) })
	t.Run("mosquitto", func(t *testing.T) {
		m := mosquittotest.Start(t, mosquittotest.Config{})
		f(t, testBroker{name: "mosquitto", url: m.URL()})
	})
}

// dial starts a display client and waits for its first connect. The returned channel
// receives after each later reconnect.
func dial(t testing.TB, opts display.Options) (*display.Client, <-chan struct{}) {
	t.Helper()
	if opts.Table == "" {
		opts.Table = "t1"
	}
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	if opts.MaxReconnectInterval == 0 {
		opts.MaxReconnectInterval = 500 * time.Millisecond
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = 30 * time.Second
	}
	connected := make(chan struct{}, 64)
	hook := opts.OnConnect
	opts.OnConnect = func(p display.Publisher) {
		if hook != nil {
			hook(p)
		}
		connected <- struct{}{}
	}
	c, err := display.Dial(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := c.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	<-connected // the first OnConnect, which WaitConnected waited for
	return c, connected
}

func waitFor(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(guard):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func waitResult(t testing.TB, res <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-res:
		return err
	case <-time.After(guard):
		t.Fatalf("no result for %s", what)
		return nil
	}
}

// sub is a plain MQTT subscriber, standing for a display board or pit system.
type sub struct {
	c       mqtt.Client
	msgs    chan mqtt.Message
	skipped []mqtt.Message // taken from msgs while looking for another topic
}

// subscribe connects a subscriber and subscribes it to filter at QoS 1. configure may
// change its options (user, TLS, persistent session).
func subscribe(t testing.TB, url, id, filter string, configure func(*mqtt.ClientOptions)) *sub {
	t.Helper()
	s := &sub{msgs: make(chan mqtt.Message, 100000)}
	o := mqtt.NewClientOptions().AddBroker(url).SetClientID(id).SetConnectTimeout(30 * time.Second).
		SetMaxReconnectInterval(200 * time.Millisecond).SetConnectRetryInterval(100 * time.Millisecond).
		SetKeepAlive(30 * time.Second)
	if configure != nil {
		configure(o)
	}
	s.c = mqtt.NewClient(o)
	if tok := s.c.Connect(); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatalf("subscriber %s connect to %s: %v", id, url, tok.Error())
	}
	t.Cleanup(func() { s.c.Disconnect(1000) })
	tok := s.c.Subscribe(filter, 1, func(_ mqtt.Client, m mqtt.Message) {
		s.msgs <- m // never blocks: the buffer is larger than any test sends
	})
	if !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatalf("subscriber %s subscribe %s: %v", id, filter, tok.Error())
	}
	return s
}

// nextRetained returns the payload of the next retained message on topic. Live copies
// before it must carry the same payload: they are the message the broker was still
// forwarding when the subscription arrived.
func (s *sub) nextRetained(t testing.TB, topic string) []byte {
	t.Helper()
	var live []byte
	for {
		m := s.next(t, topic)
		if m.Retained() {
			if live != nil && !bytes.Equal(live, m.Payload()) {
				t.Errorf("live copy on %s %q differs from the retained %q", topic, live, m.Payload())
			}
			return m.Payload()
		}
		live = m.Payload()
	}
}

// next returns the next message on topic. Messages on other topics are kept for later
// calls, in order.
func (s *sub) next(t testing.TB, topic string) mqtt.Message {
	t.Helper()
	for i, m := range s.skipped {
		if m.Topic() == topic {
			s.skipped = append(s.skipped[:i], s.skipped[i+1:]...)
			return m
		}
	}
	deadline := time.After(guard)
	for {
		select {
		case m := <-s.msgs:
			if m.Topic() == topic {
				return m
			}
			s.skipped = append(s.skipped, m)
		case <-deadline:
			t.Fatalf("no message on %s", topic)
			return nil
		}
	}
}

// none checks that no message on topic has arrived. It is used only after a message
// published later was seen, so the broker has already dealt with the one that must
// not arrive.
func (s *sub) none(t testing.TB, topic string) {
	t.Helper()
	for {
		select {
		case m := <-s.msgs:
			s.skipped = append(s.skipped, m)
			continue
		default:
		}
		break
	}
	for _, m := range s.skipped {
		if m.Topic() == topic {
			t.Fatalf("unexpected message on %s: %q", topic, m.Payload())
		}
	}
}

// cutProxy forwards TCP connections to a broker and can cut them all at once, the way
// a network fault does.
type cutProxy struct {
	ln      net.Listener
	target  string
	mu      sync.Mutex
	conns   []net.Conn
	blocked bool
	wg      sync.WaitGroup
}

func newCutProxy(t testing.TB, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *cutProxy) url() string { return "tcp://" + p.ln.Addr().String() }

func (p *cutProxy) accept() {
	defer p.wg.Done()
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		blocked := p.blocked
		p.mu.Unlock()
		if blocked {
			in.Close()
			continue
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(in, out)
		go p.pipe(out, in)
	}
}

func (p *cutProxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// cut closes every forwarded connection; new ones are accepted again.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// block cuts every connection and refuses new ones until unblock, like a broker
// that went away.
func (p *cutProxy) block() {
	p.mu.Lock()
	p.blocked = true
	p.mu.Unlock()
	p.cut()
}

func (p *cutProxy) unblock() {
	p.mu.Lock()
	p.blocked = false
	p.mu.Unlock()
}

func (p *cutProxy) close() {
	p.ln.Close()
	p.cut()
	p.wg.Wait()
}
