package board

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestStreamLimiter(t *testing.T) {
	t.Parallel()
	l := NewStreamLimiter(2, 3)
	take := func(addr string, want int) func() {
		t.Helper()
		release, err := l.Acquire(addr)
		var le *LimitError
		switch {
		case want == 0 && err != nil:
			t.Fatalf("%s refused: %v", addr, err)
		case want != 0 && (!errors.As(err, &le) || le.Status != want):
			t.Fatalf("%s: %v, want status %d", addr, err, want)
		}
		return release
	}
	a1 := take("192.0.2.1:1000", 0)
	take("192.0.2.1:1001", 0)
	take("192.0.2.1:1002", http.StatusTooManyRequests) // the address has its share
	take("192.0.2.2:1000", 0)
	take("192.0.2.3:1000", http.StatusServiceUnavailable) // all are taken
	a1()
	a1() // twice gives back one
	if l.Open() != 2 {
		t.Fatalf("%d open after one release", l.Open())
	}
	take("192.0.2.3:1000", 0)
	take("192.0.2.3:1001", http.StatusServiceUnavailable)
}

// TestEventStreamsAreLimited: a board refuses a stream past its limit per address with
// 429 and takes one again once a stream closes.
func TestEventStreamsAreLimited(t *testing.T) {
	t.Parallel()
	br := startBroker(t)
	b := newBoard(t, Options{Broker: br.URL(), Table: "t1", MaxStreamsPerAddress: 2, MaxStreams: 10})
	// ended says each time a request for /events is over: its handler has returned,
	// and given back its stream.
	ended := make(chan struct{}, 8)
	h := b.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.URL.Path == "/events" {
			ended <- struct{}{}
		}
	}))
	t.Cleanup(func() {
		b.Close()
		srv.Close()
	})
	first := openStream(t, srv.URL)
	openStream(t, srv.URL)
	resp, err := http.Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a third stream from one address: %s", resp.Status)
	}
	first.close()
	// Two requests for /events are over: the third stream's, refused, and the first's.
	giveUp := time.After(guard) // bounds a failure only
	for range 2 {
		select {
		case <-ended:
		case <-giveUp:
			t.Fatal("the closed stream was not given back")
		}
	}
	if n := b.streams.Open(); n != 1 {
		t.Fatalf("%d streams open once the first was closed, want 1", n)
	}
	openStream(t, srv.URL)
	if _, err := New(Options{Broker: br.URL(), Table: "t1", MaxStreams: -1}); err == nil {
		t.Error("a negative limit was taken")
	}
}
