package board

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/broker"
)

func TestNewRefusesBadOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"no table", Options{Broker: "tcp://127.0.0.1:1883"}, "table id is empty"},
		{"table with a slash", Options{Broker: "tcp://127.0.0.1:1883", Table: "t/1"}, `contains '/'`},
		{"table with a wildcard", Options{Broker: "tcp://127.0.0.1:1883", Table: "t#"}, `contains '#'`},
		{"no broker", Options{Table: "t1"}, "broker URL is empty"},
		{"http broker", Options{Broker: "http://127.0.0.1:80", Table: "t1"}, `unknown scheme "http"`},
		{"broker without host", Options{Broker: "tcp://", Table: "t1"}, "has no host"},
		{"password without user", Options{Broker: "tcp://127.0.0.1:1883", Table: "t1", Password: "x"}, "without a username"},
		{"negative buffer", Options{Broker: "tcp://127.0.0.1:1883", Table: "t1", ClientBuffer: -1}, "client buffer -1 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := New(tc.opts)
			if err == nil {
				b.Close()
				t.Fatalf("New(%+v) = nil error, want one containing %q", tc.opts, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New(%+v) = %v, want an error containing %q", tc.opts, err, tc.want)
			}
		})
	}
}

// TestRetainedTopicsMatchMessages: the board keeps, for a browser that connects, the
// last message of exactly the retained topics a display shows, in the order the topic
// table gives (api.Picture), for every row of the table.
func TestRetainedTopicsMatchMessages(t *testing.T) {
	t.Parallel()
	for _, tp := range api.AllTopics() {
		want := tp.Retained() && tp.Shown()
		if got := retainedIndex(tp.String()) >= 0; got != want {
			t.Errorf("topic %s: the board keeps it %v, the topic table says retained %v, shown %v", tp, got, tp.Retained(), tp.Shown())
		}
	}
	for i, tp := range api.Picture() {
		if i >= len(retainedTopics) || retainedTopics[i] != tp.String() {
			t.Errorf("the board gives a browser %v, the topic table's picture is %v", retainedTopics, api.Picture())
			break
		}
	}
}

func TestEventOf(t *testing.T) {
	t.Parallel()
	topics, err := api.NewTopics("t1")
	if err != nil {
		t.Fatal(err)
	}
	b := &Board{topics: topics}
	for _, tc := range []struct {
		topic   string
		payload string
		name    string // "" with wantErr "": ignored
		data    string
		wantErr string
	}{
		{topic: "tablectl/v1/t1/state", payload: "{\n  \"phase\": \"dealing\",\n  \"cards\": []\n}", name: "state", data: `{"phase":"dealing","cards":[]}`},
		{topic: "tablectl/v1/t1/card", payload: `{"slot":"P1","card":"9S"}`, name: "card", data: `{"slot":"P1","card":"9S"}`},
		{topic: "tablectl/v1/t1/future", payload: `[1,2]`, name: "future", data: `[1,2]`},
		{topic: "tablectl/v1/t1/roadmap", payload: "", name: "roadmap", data: "null"},
		{topic: "tablectl/v1/t1/cmd/dealer", payload: `{"cmd":"close-betting"}`},
		{topic: "tablectl/v1/t1/cmd/reply", payload: `{"ok":true}`},
		{topic: "tablectl/v1/t1/card", payload: "\x00\xff garbage", wantErr: `topic "tablectl/v1/t1/card": payload of 10 bytes is not JSON: invalid character`},
		{topic: "tablectl/v1/t1/result", payload: `{"winner":"banker"`, wantErr: `topic "tablectl/v1/t1/result": payload of 18 bytes is not JSON: unexpected end of JSON input`},
		{topic: "tablectl/v1/t1/card", payload: "", wantErr: `topic "tablectl/v1/t1/card": empty payload`},
		{topic: "tablectl/v1/t1/Card", payload: `{}`, wantErr: `topic level "Card" has 'C' at byte 0`},
		{topic: "tablectl/v1/t1/ca\nrd", payload: `{}`, wantErr: `has '\n' at byte 2`},
		{topic: "tablectl/v1/t2/card", payload: `{}`, wantErr: `topic "tablectl/v1/t2/card" is not under tablectl/v1/t1/`},
		{topic: "tablectl/v1/t1/state", payload: `"` + strings.Repeat("x", MaxPayload) + `"`, wantErr: "larger than the 1048576 forwarded"},
	} {
		ev, err := b.eventOf(tc.topic, []byte(tc.payload), false)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("eventOf(%q, %.20q) = %v, want an error containing %q", tc.topic, tc.payload, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("eventOf(%q, %.20q): %v", tc.topic, tc.payload, err)
			continue
		}
		if ev.name != tc.name || string(ev.data) != tc.data {
			t.Errorf("eventOf(%q, %.20q) = %q %s, want %q %s", tc.topic, tc.payload, ev.name, ev.data, tc.name, tc.data)
		}
	}
}

func TestFrame(t *testing.T) {
	t.Parallel()
	got := string(event{name: "state", data: []byte(`{"a":1}`)}.frame())
	if want := "event: state\ndata: {\"a\":1}\n\n"; got != want {
		t.Errorf("frame %q, want %q", got, want)
	}
}

// TestHubDropsSlowClient checks the fan-out itself: a client that reads nothing is
// dropped once its buffer is full, while the others get every event in order.
func TestHubDropsSlowClient(t *testing.T) {
	t.Parallel()
	h := newHub(3, quietLogger())
	h.publish(event{name: "state", data: []byte(`{"n":0}`)})
	slow, err := h.join(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fast, err := h.join(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := (<-fast.ch).name; got != "state" {
		t.Fatalf("first event %q, want the retained state", got)
	}
	for i := 1; i <= 10; i++ {
		h.publish(event{name: "card", data: fmt.Appendf(nil, `{"n":%d}`, i)})
		if got, want := string((<-fast.ch).data), fmt.Sprintf(`{"n":%d}`, i); got != want {
			t.Fatalf("fast client got %s, want %s", got, want)
		}
	}
	if slow.ctx.Err() == nil {
		t.Error("the slow client was not dropped")
	}
	if fast.ctx.Err() != nil {
		t.Error("the fast client was dropped")
	}
	if n := h.clientCount(); n != 1 {
		t.Errorf("%d clients, want 1", n)
	}
	// Dropped, it reconnects and gets the retained picture again.
	again, err := h.join(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := string((<-again.ch).data); got != `{"n":0}` {
		t.Errorf("rejoined client got %s first, want the retained state", got)
	}
	h.close()
	if fast.ctx.Err() == nil || again.ctx.Err() == nil {
		t.Error("close left a client open")
	}
	if _, err := h.join(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("join after close: %v, want ErrClosed", err)
	}
}

// TestHubRetainedClear checks that an empty retained message (sent on as null) clears
// what a late browser is given.
func TestHubRetainedClear(t *testing.T) {
	t.Parallel()
	h := newHub(8, quietLogger())
	h.publish(event{name: "state", data: []byte(`{"n":1}`)})
	h.publish(event{name: "status", data: []byte(`{"state":"online"}`)})
	h.publish(event{name: "state", data: []byte("null")})
	c, err := h.join(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer h.leave(c)
	if len(c.ch) != 1 {
		t.Fatalf("%d events queued for a late client, want 1 (status only)", len(c.ch))
	}
	if e := <-c.ch; e.name != "status" {
		t.Errorf("late client got %s, want status", e.name)
	}
}

// TestLateBrowserGetsRetainedPicture deals a shoe on the broker, then checks that a
// browser connecting late is given the latest status, roadmap and state at once, first
// by a board that was running throughout, then by a board started after the shoe (which
// has them from the broker's retained messages).
func TestLateBrowserGetsRetainedPicture(t *testing.T) {
	t.Parallel()
	br := startBroker(t)
	d := dealShoe(t, "t1")
	want := d.lastRetained()
	if len(want) != 2 {
		t.Fatalf("the shoe has retained %d topics, want state and roadmap", len(want))
	}
	want["status"] = d.status

	// The publisher's own online status is retained before the running board
	// subscribes: it cannot come to the board after the shoe's status (newOnlinePublisher).
	pub := newOnlinePublisher(t, br.URL(), "t1")
	early, earlySrv := startBoard(t, br.URL(), "t1", 0)
	pub.publish(pub.c.Topics().Status(), d.status, true)
	for _, m := range d.msgs {
		pub.publish(m.topic, m.payload, m.retained)
	}
	late, lateSrv := startBoard(t, br.URL(), "t1", 0)

	// The running board saw the shoe's messages: it keeps the last result and the
	// warnings that do not hold the table, for a page that reloads. MQTT retains
	// neither, so a board started late has only the retained picture.
	var result sseEvent
	var warnings []sseEvent
	for _, m := range d.msgs {
		name := lastLevel(m.topic)
		switch {
		case name == "result":
			result = sseEvent{name: name, data: compact(t, m.payload)}
		case name == "irregularity" && (strings.Contains(string(m.payload), `"dealer_warning"`) || strings.Contains(string(m.payload), `"action":"continue"`)):
			warnings = append(warnings, sseEvent{name: name, data: compact(t, m.payload)})
		}
	}
	if result.name == "" || len(warnings) == 0 {
		t.Fatalf("the shoe has result %v and warnings %v, want both", result, warnings)
	}
	kept := append([]sseEvent{result}, warnings[max(0, len(warnings)-maxWarnings):]...)
	for _, tc := range []struct {
		name  string
		board *Board
		url   string
		kept  []sseEvent
	}{{"running board", early, earlySrv.URL, kept}, {"board started late", late, lateSrv.URL, nil}} {
		t.Run(tc.name, func(t *testing.T) {
			tc.board.waitUntil(t, "the board has the latest state", func() bool {
				return string(tc.board.retainedNow("state")) == compact(t, want["state"])
			})
			s := openStream(t, tc.url)
			for _, name := range retainedTopics {
				e := s.next()
				if e.name != name {
					t.Fatalf("event %q, want %q (the retained picture: status, roadmap, state)", e.name, name)
				}
				if e.data != compact(t, want[name]) {
					t.Errorf("%s event:\n got %s\nwant %s", name, e.data, want[name])
				}
			}
			for _, k := range tc.kept {
				if e := s.next(); e != k {
					t.Errorf("kept event %s %s,\nwant %s %s", e.name, e.data, k.name, k.data)
				}
			}
			select {
			case e := <-s.events:
				t.Errorf("an event beyond the retained picture: %s %s", e.name, e.data)
			case <-time.After(50 * time.Millisecond):
			}
		})
	}
}

// TestEventsInOrder checks that a browser gets every message of a dealt shoe, in the
// order it was published, with its payload, and nothing of the command topics or of
// messages that are not JSON.
func TestEventsInOrder(t *testing.T) {
	t.Parallel()
	br := startBroker(t)
	logs := &syncBuffer{}
	pub := newOnlinePublisher(t, br.URL(), "t1")
	b := newBoard(t, Options{Broker: br.URL(), Table: "t1", Logger: slogTo(logs)})
	srv := serve(t, b, nil)
	b.waitUntil(t, "the board has the online status", func() bool { return b.retainedNow("status") != nil })
	s := openStream(t, srv.URL)
	if e := s.next(); e.name != "status" {
		t.Fatalf("first event %q, want the retained status", e.name)
	}

	d := dealShoe(t, "t1")
	topics := pub.c.Topics()
	dealer, err := topics.Command("dealer")
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range d.msgs {
		pub.publish(m.topic, m.payload, m.retained)
		if i == 10 {
			pub.publish(dealer, []byte(`{"id":"a1","cmd":"close-betting"}`), false)
			pub.publish(topics.Card(), []byte("\x00garbage"), false)
		}
	}
	for i, m := range d.msgs {
		e := s.next()
		if e.name != lastLevel(m.topic) || e.data != compact(t, m.payload) {
			t.Fatalf("event %d: got %s %.80s\nwant %s %.80s", i, e.name, e.data, lastLevel(m.topic), m.payload)
		}
	}
	select {
	case e := <-s.events:
		t.Errorf("an event beyond the published ones: %s %.80s", e.name, e.data)
	case <-time.After(50 * time.Millisecond):
	}
	if !strings.Contains(logs.String(), `topic \"tablectl/v1/t1/card\": payload of 8 bytes is not JSON`) {
		t.Errorf("the refused message is not logged with its topic:\n%s", logs.String())
	}
}

// smallBuffers wraps a listener so that each accepted connection has a small kernel
// send buffer: a browser that reads nothing then holds the server up after a few
// kilobytes, as a stalled browser on a real network does.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// TestSlowBrowserDropped checks that a browser that stops reading does not hold up the
// others: they keep getting every event while it is dropped and its stream ended.
func TestSlowBrowserDropped(t *testing.T) {
	t.Parallel()
	br := startBroker(t)
	pub := newOnlinePublisher(t, br.URL(), "t1")
	b := newBoard(t, Options{Broker: br.URL(), Table: "t1", ClientBuffer: 8})
	srv := serve(t, b, func(l net.Listener) net.Listener { return smallBuffers{l} })
	b.waitUntil(t, "the board has the online status", func() bool { return b.retainedNow("status") != nil })

	// The slow browser sends its request and never reads.
	slow, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	_ = slow.(*net.TCPConn).SetReadBuffer(4096)
	if _, err := fmt.Fprintf(slow, "GET /events HTTP/1.1\r\nHost: board\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	b.waitUntil(t, "the slow browser is connected", func() bool { return b.hub.clientCount() == 1 })
	fast := openStream(t, srv.URL)
	b.waitUntil(t, "both browsers are connected", func() bool { return b.hub.clientCount() == 2 })
	if e := fast.next(); e.name != "status" {
		t.Fatalf("first event %q, want the retained status", e.name)
	}

	pad := strings.Repeat("x", 16<<10)
	const n = 60
	for i := 1; i <= n; i++ {
		payload := fmt.Sprintf(`{"seq":%d,"pad":%q}`, i, pad)
		pub.publish(pub.c.Topics().Card(), []byte(payload), false)
		// The fast browser gets each event while the slow one reads nothing.
		if e := fast.next(); e.data != payload {
			t.Fatalf("fast browser, event %d: got %.40s, want %.40s", i, e.data, payload)
		}
	}
	b.waitUntil(t, "the slow browser is dropped", func() bool { return b.hub.clientCount() == 1 })
	// Its stream was ended: what it had in flight drains, then the connection closes.
	_ = slow.SetReadDeadline(time.Now().Add(guard))
	got, err := io.Copy(io.Discard, slow)
	if err != nil {
		t.Fatalf("the slow browser's connection did not end: %v (after %d bytes)", err, got)
	}
	if got >= n*int64(len(pad)) {
		t.Errorf("the slow browser got %d bytes, as much as every event: it was not dropped", got)
	}
}

// TestCloseEndsStreams checks that Close ends the browsers' streams, refuses new ones,
// and stops (goleak in TestMain checks that no goroutine is left behind).
func TestCloseEndsStreams(t *testing.T) {
	t.Parallel()
	br := startBroker(t)
	b, srv := startBoard(t, br.URL(), "t1", 0)
	s := openStream(t, srv.URL)
	b.waitUntil(t, "the browser is connected", func() bool { return b.hub.clientCount() == 1 })
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(guard):
		t.Fatal("the stream did not end on Close")
	}
	resp, err := http.Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET /events after Close: %s, want 503", resp.Status)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestReconnectsToBroker stops the broker under a running board and starts another on
// the same address: the board reconnects by itself, and a browser that stayed connected
// gets what is published afterwards.
func TestReconnectsToBroker(t *testing.T) {
	t.Parallel()
	first, err := broker.Start(context.Background(), broker.Options{Listen: "127.0.0.1:0", OpenAccess: true, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	addr := first.Addr()
	_, srv := startBoard(t, first.URL(), "t1", 0)
	s := openStream(t, srv.URL)
	pub := newPublisher(t, first.URL(), "t1")
	if e := s.next(); e.name != "status" {
		t.Fatalf("first event %q, want status", e.name)
	}
	pub.c.Close()
	first.Close()

	// Close has closed the first broker's listener and its connections: the address is
	// free at once.
	second, err := broker.Start(context.Background(), broker.Options{Listen: addr, OpenAccess: true, Logger: quietLogger()})
	if err != nil {
		t.Fatalf("a broker again on %s: %v", addr, err)
	}
	defer second.Close()
	pub2 := newPublisher(t, second.URL(), "t1")
	state := []byte(`{"schema":1,"table":"t1","phase":"betting-open","round":7}`)
	// The board may still be waiting to reconnect: publish retained, and it gets the
	// state when it subscribes again.
	pub2.publish(pub2.c.Topics().State(), state, true)
	for {
		e := s.next()
		if e.name == "state" {
			if e.data != string(state) {
				t.Errorf("state after the reconnect: %s, want %s", e.data, state)
			}
			break
		}
	}
}

// TestPageServed checks that the page, its style sheet and its script are served from
// the binary and refer to nothing outside it.
func TestPageServed(t *testing.T) {
	t.Parallel()
	b := newBoard(t, Options{Broker: "tcp://127.0.0.1:1", Table: "t1"})
	srv := serve(t, b, nil)
	for _, tc := range []struct{ path, ctype, contains string }{
		{"/", "text/html", `<script src="board.js"`},
		{"/board.js", "text/javascript", "new EventSource('events')"},
		{"/board.css", "text/css", "--banker"},
	} {
		resp, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.ctype) {
			t.Errorf("GET %s: %s %q, want 200 %s", tc.path, resp.Status, resp.Header.Get("Content-Type"), tc.ctype)
		}
		if !strings.Contains(string(body), tc.contains) {
			t.Errorf("GET %s does not contain %q", tc.path, tc.contains)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy %q", tc.path, csp)
		}
	}
	// Nothing is loaded from elsewhere: the only URL in the files is the SVG namespace.
	err := fs.WalkDir(static, "static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := static.ReadFile(path)
		if err != nil {
			return err
		}
		text := strings.ReplaceAll(string(data), "http://www.w3.org/2000/svg", "")
		if i := strings.Index(text, "://"); i >= 0 {
			t.Errorf("%s refers to an outside URL: %q", path, text[max(0, i-20):min(len(text), i+30)])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
