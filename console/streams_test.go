package console

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// eventStream reads one Server-Sent Events stream.
type eventStream struct {
	events chan [2]string // name, data
	cancel context.CancelFunc
}

func openStream(t *testing.T, a *agent, path string) *eventStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", a.tc.http.URL+path, nil)
	req.AddCookie(a.cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		t.Fatalf("%s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &eventStream{events: make(chan [2]string, 100), cancel: cancel}
	go func() {
		defer resp.Body.Close()
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var name string
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			} else if v, ok := strings.CutPrefix(line, "data: "); ok {
				s.events <- [2]string{name, v}
			}
		}
	}()
	t.Cleanup(cancel)
	return s
}

// next waits for the next event called name whose data contains want.
func (s *eventStream) next(t *testing.T, name, want string) string {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatalf("the stream ended before a %s event with %q", name, want)
			}
			if ev[0] == name && strings.Contains(ev[1], want) {
				return ev[1]
			}
		case <-deadline:
			t.Fatalf("no %s event with %q", name, want)
		}
	}
}

func TestFloorAndTableStreams(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":1,"table":"t1","state":"online"}`))
	a := tc.login(t, "S17", "supervisor-pass-17")

	floor := openStream(t, a, "/api/events")
	floor.next(t, "tables", `"table":"t1"`)
	table := openStream(t, a, "/api/tables/t1/events")
	table.next(t, "detail", `"status":{"schema":1,"table":"t1","state":"online"}`)

	tc.srv.Ingest("tablectl/v1/t1/state", []byte(heldState))
	floor.next(t, "table", `"held":{"id":3`)
	table.next(t, "state", `"held":{"id":3`)
	tc.srv.Ingest("tablectl/v1/t1/card", []byte(`{"schema":1,"table":"t1","shoe":2,"round":7,"seq":41,"slot":"P1","card":"AS"}`))
	table.next(t, "card", `"card":"AS"`)
	tc.srv.Ingest("tablectl/v1/t2/status", []byte(`{"schema":1,"table":"t2","state":"online"}`))
	floor.next(t, "table", `"table":"t2"`)

	// Closing the server ends the streams.
	tc.srv.Close()
	for _, s := range []*eventStream{floor, table} {
		select {
		case <-drain(s.events):
		case <-time.After(60 * time.Second):
			t.Fatal("a stream is still open after Close")
		}
	}
	// Without a session there is no stream.
	code, _, _ := tc.do(t, "GET", "/api/events", "", nil, nil)
	if code != 401 {
		t.Errorf("stream without a session: %d", code)
	}
}

// drain reads ch to its end and then closes the channel it returns.
func drain(ch <-chan [2]string) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		for range ch {
		}
		close(done)
	}()
	return done
}
