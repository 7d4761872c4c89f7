package board

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/broker"
	"github.com/tablectl/tablectl/drivers/display"
)

// guard bounds every wait in these tests. It is a failure guard only: no test asserts
// how long anything took.
const guard = 60 * time.Second

func quietLogger() *slog.Logger { return slogTo(io.Discard) }

// slogTo is a logger that writes text to w.
func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// startBroker starts the embedded broker on a free loopback port.
func startBroker(t testing.TB) *broker.Broker {
	t.Helper()
	b, err := broker.Start(context.Background(), broker.Options{Listen: "127.0.0.1:0", OpenAccess: true, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// publisher is the table's side: a display client that publishes on the broker.
type publisher struct {
	t *testing.T
	c *display.Client
}

func newPublisher(t *testing.T, url, table string) *publisher {
	t.Helper()
	c, err := display.Dial(display.Options{Broker: url, Table: table, Logger: quietLogger(),
		MaxReconnectInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := c.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	return &publisher{t: t, c: c}
}

// newOnlinePublisher is newPublisher, returned once its online status has gone to every
// subscriber there was: a board made after it gets the status once, retained. A status
// published while a board subscribes could reach it twice, live and retained, the second
// after a browser's retained picture. The embedded broker acknowledges a publish before
// it hands it on to the subscribers, but it takes a client's publishes one after
// another: once a second one is acknowledged, the status has been handed on.
func newOnlinePublisher(t *testing.T, url, table string) *publisher {
	t.Helper()
	p := newPublisher(t, url, table)
	p.publish(p.c.Topics().Reply(), []byte(`{}`), false)
	return p
}

// publish sends one message and waits for the broker's acknowledgement, so the messages
// of a test reach the broker one after another, in order.
func (p *publisher) publish(topic string, payload []byte, retained bool) {
	p.t.Helper()
	select {
	case err := <-p.c.Publish(topic, payload, retained):
		if err != nil {
			p.t.Fatalf("publish %s: %v", topic, err)
		}
	case <-time.After(guard):
		p.t.Fatalf("publish %s: no acknowledgement", topic)
	}
}

// newBoard starts a Board with opts (a quiet logger unless one is given) and closes it
// when the test ends.
func newBoard(t *testing.T, opts Options) *Board {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	b, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// serve serves board b on a loopback port until the test ends; wrap, when not nil,
// wraps its listener. The board is closed first, which ends the event streams the
// server's Close waits for.
func serve(t *testing.T, b *Board, wrap func(net.Listener) net.Listener) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(b.Handler())
	if wrap != nil {
		srv.Listener = wrap(srv.Listener)
	}
	srv.Start()
	t.Cleanup(func() {
		b.Close()
		srv.Close()
	})
	return srv
}

// startBoard starts a Board for table on the broker at url and serves it.
func startBoard(t *testing.T, url, table string, buffer int) (*Board, *httptest.Server) {
	t.Helper()
	b := newBoard(t, Options{Broker: url, Table: table, ClientBuffer: buffer})
	return b, serve(t, b, nil)
}

// sseEvent is an event as a browser reads it.
type sseEvent struct {
	name string
	data string
}

// stream is a browser's event stream, read by its own goroutine.
type stream struct {
	t      *testing.T
	events chan sseEvent
	body   io.Closer
	done   chan struct{} // closed when the server ended the stream
}

// openStream connects to the board's event stream at base.
func openStream(t *testing.T, base string) *stream {
	t.Helper()
	resp, err := http.Get(base + "/events")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("GET /events: %s", resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("GET /events: Content-Type %q, want text/event-stream", ct)
	}
	s := &stream{t: t, events: make(chan sseEvent, 4096), body: resp.Body, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		readSSE(resp.Body, func(e sseEvent) { s.events <- e })
	}()
	t.Cleanup(s.close)
	return s
}

func (s *stream) close() {
	s.body.Close()
	<-s.done
}

// next returns the next event.
func (s *stream) next() sseEvent {
	s.t.Helper()
	select {
	case e := <-s.events:
		return e
	case <-s.done:
		select {
		case e := <-s.events:
			return e
		default:
		}
		s.t.Fatal("the event stream ended")
	case <-time.After(guard):
		s.t.Fatal("timed out waiting for an event")
	}
	return sseEvent{}
}

// readSSE parses an event stream, calling f for each event, until the stream ends.
func readSSE(r io.Reader, f func(sseEvent)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*MaxPayload)
	var ev sseEvent
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data != nil {
				ev.data = strings.Join(data, "\n")
				f(ev)
			}
			ev, data = sseEvent{}, nil
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		}
	}
}

// compact is payload on one line, as the stream carries it.
func compact(t testing.TB, payload []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, payload); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// lastLevel is the last level of topic.
func lastLevel(topic string) string { return topic[strings.LastIndexByte(topic, '/')+1:] }

// waitUntil waits until cond, which reads the board's hub (its browsers, what it
// retains), holds: cond is tried again at each change of the hub, never on a clock. The
// guard bounds a failure only.
func (b *Board) waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	giveUp := time.After(guard)
	for {
		changed := b.hub.changed()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-giveUp:
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// retainedNow is what the board keeps of the retained topic name.
func (b *Board) retainedNow(name string) []byte {
	b.hub.mu.Lock()
	defer b.hub.mu.Unlock()
	return b.hub.retained[retainedIndex(name)]
}

// lastRetained is the last payload published on each retained topic of d.
func (d dealtShoe) lastRetained() map[string][]byte {
	m := map[string][]byte{}
	for _, msg := range d.msgs {
		if msg.retained {
			m[lastLevel(msg.topic)] = msg.payload
		}
	}
	return m
}

// syncBuffer is a bytes.Buffer safe for concurrent use, for a logger's output.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
