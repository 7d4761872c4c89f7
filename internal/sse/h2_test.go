package sse

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// h2Server serves handler over HTTPS with HTTP/2, as the console serves its pages with
// tls_cert and tls_key; it fails the test for a request that came over anything else.
func h2Server(t *testing.T, handler http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			t.Errorf("%s %s came over %s, not HTTP/2", r.Method, r.URL.Path, r.Proto)
		}
		handler(w, r)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// openStream opens path's stream on srv and reads up to its retry frame; cancel drops it.
func openStream(t *testing.T, srv *httptest.Server, path string) (drop func(), rest *bufio.Reader, ok bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+path, nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		cancel()
		t.Errorf("GET %s: %v", path, err)
		return nil, nil, false
	}
	if resp.ProtoMajor != 2 {
		t.Errorf("GET %s: answered over %s, not HTTP/2", path, resp.Proto)
	}
	r := bufio.NewReader(resp.Body)
	line, err := r.ReadString('\n')
	if err != nil || line != "retry: 1000\n" {
		cancel()
		resp.Body.Close()
		t.Errorf("GET %s: first line %q, %v", path, line, err)
		return nil, nil, false
	}
	return func() { cancel(); resp.Body.Close() }, r, true
}

// TestStreamsOverHTTP2 opens and drops streams many times, several at once, over a real
// HTTP/2 TLS server: dropped by the browser (its request canceled, the stream reset),
// and ended by the server (the stream's context canceled as its handler returns). An
// HTTP/2 response writer must not be touched once its handler has returned: a deadline
// set then panics (net/http's http2responseWriter.SetWriteDeadline), or, under -race,
// is a data race. The server must serve on after all of them.
func TestStreamsOverHTTP2(t *testing.T) {
	var handlers sync.WaitGroup
	srv := h2Server(t, func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		ctx, cancel := context.WithCancel(r.Context())
		ew, ok := Start(ctx, w, time.Second)
		defer ew.Close()
		// The server's end of a stream, as the console's leave and the board's hub end
		// theirs: the context canceled while the handler returns.
		defer cancel()
		if !ok {
			return
		}
		if r.URL.Path == "/server-ends" {
			ew.Send(Frame("bye", []byte(`{}`)))
			return
		}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if !ew.Send(Ping) {
					return
				}
			}
		}
	})
	const rounds, together = 150, 8
	for range rounds {
		var wg sync.WaitGroup
		for i := range together {
			wg.Add(1)
			go func() {
				defer wg.Done()
				path := "/browser-drops"
				if i%2 == 1 {
					path = "/server-ends"
				}
				drop, r, ok := openStream(t, srv, path)
				if !ok {
					return
				}
				if path == "/server-ends" {
					rest, _ := r.ReadString(0) // to the stream's end
					if !strings.Contains(rest, "event: bye\n") {
						t.Errorf("%s: the stream ended without its last frame: %q", path, rest)
					}
				} else if _, err := r.ReadString('\n'); err != nil { // a ping: the stream is live
					t.Errorf("%s: %v", path, err)
				}
				drop()
			}()
		}
		wg.Wait()
		if t.Failed() {
			break
		}
	}
	// Every handler returned, and the server still answers.
	srv.Client().CloseIdleConnections()
	handlers.Wait()
	drop, _, ok := openStream(t, srv, "/browser-drops")
	if ok {
		drop()
	}
}

// enteredWriter tells when a write of a frame of at least size bytes has begun.
type enteredWriter struct {
	http.ResponseWriter
	size    int
	entered chan struct{}
}

func (w enteredWriter) Write(p []byte) (int, error) {
	if len(p) >= w.size {
		close(w.entered)
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the HTTP/2 writer's deadline and flush.
func (w enteredWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestDoneContextEndsABlockedWrite: over HTTP/2, a write to a browser that reads
// nothing blocks once the stream's flow-control window is full; the stream's context
// done ends that write at once, well before WriteTimeout.
func TestDoneContextEndsABlockedWrite(t *testing.T) {
	const window, size = 64 << 10, 1 << 20 // the frame is 16 windows: its write blocks
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	entered, ended := make(chan struct{}), make(chan time.Duration, 1)
	srv := h2Server(t, func(w http.ResponseWriter, r *http.Request) {
		ew, ok := Start(ctx, enteredWriter{ResponseWriter: w, size: size, entered: entered}, time.Second)
		defer ew.Close()
		if !ok {
			t.Error("Start failed")
			return
		}
		start := time.Now()
		if ew.Send(Frame("big", []byte(strings.Repeat("x", size)))) {
			t.Error("a frame of 16 windows was written to a browser that read none of it")
		}
		ended <- time.Since(start)
	})
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.HTTP2 = &http.HTTP2Config{MaxReceiveBufferPerConnection: window, MaxReceiveBufferPerStream: window}
	srv.Client().Transport = tr
	drop, _, ok := openStream(t, srv, "/stuck")
	if !ok {
		return
	}
	defer drop()
	<-entered // the write has begun; it cannot end until the browser reads
	cancel()
	select {
	case d := <-ended:
		if d >= WriteTimeout {
			t.Errorf("the blocked write ended after %v, not at once", d)
		}
	case <-time.After(2 * WriteTimeout):
		t.Fatal("the context done did not end the blocked write")
	}
}
