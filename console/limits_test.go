package console

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// openStream opens an event stream for the agent and returns its response once the
// console has answered (200 and the first event, or a refusal), and a function closing
// it.
func (a *agent) openStream(t *testing.T, path string) (*http.Response, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", a.tc.http.URL+path, nil)
	req.AddCookie(a.cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK {
		// The stream is counted before its first event is written.
		if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
			t.Fatalf("stream %s: %v", path, err)
		}
	}
	return resp, func() { cancel(); resp.Body.Close() }
}

// refusalBody reads the body of a stream's refusal; a stream opened instead is a failure
// (its body would never end).
func refusalBody(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	if resp.StatusCode == http.StatusOK {
		resp.Body.Close()
		t.Fatal("a stream past the limit was opened")
	}
	b, _ := io.ReadAll(resp.Body)
	return b
}

// TestEventStreamsAreCapped: one session opens at most StreamsPerSession event streams at
// once, and the console at most Streams in all; one more is answered 429, and a stream
// closed makes room for another.
func TestEventStreamsAreCapped(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	// The console is served again through a handler that says each time a request for
	// an event stream is over: the stream's handler has returned and given back its
	// place.
	ended := make(chan string, 64)
	h := tc.srv.Handler()
	tc.http.Close()
	tc.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if strings.HasSuffix(r.URL.Path, "/events") {
			ended <- r.URL.Path
		}
	}))
	if tc.srv.opts.StreamsPerSession != DefaultStreamsPerSession || DefaultStreamsPerSession != 8 || DefaultStreams != 2000 {
		t.Fatalf("defaults: %d a session, %d in all", tc.srv.opts.StreamsPerSession, tc.srv.opts.Streams)
	}
	a := tc.login(t, "S17", "supervisor-pass-17")
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	for i := range DefaultStreamsPerSession {
		path := "/api/events"
		if i%2 == 1 {
			path = "/api/tables/t1/events"
		}
		resp, closeIt := a.openStream(t, path)
		closers = append(closers, closeIt)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d", i+1, resp.StatusCode)
		}
	}
	resp, closeIt := a.openStream(t, "/api/events")
	b := refusalBody(t, resp)
	closeIt()
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), "too many event streams") ||
		!strings.Contains(string(b), "streams_per_session") || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("stream past the limit: %d %s", resp.StatusCode, b)
	}
	// Another session is not held back by this one's streams.
	other := tc.login(t, "D4", "dealer-password-4")
	resp, closeIt = other.openStream(t, "/api/tables/t1/events")
	closers = append(closers, closeIt)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("another session's stream: %d", resp.StatusCode)
	}
	// One closed, the session may open another, once the console has let it go: two
	// requests for streams are over then, the one refused and the one closed.
	closers[0]()
	closers[0] = func() {}
	giveUp := time.After(30 * time.Second) // bounds a failure only
	for range 2 {
		select {
		case <-ended:
		case <-giveUp:
			t.Fatal("the closed stream's request never ended")
		}
	}
	resp, closeIt = a.openStream(t, "/api/events")
	closers = append(closers, closeIt)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a closed stream made no room: %d", resp.StatusCode)
	}
	if !strings.Contains(tc.log.String(), "too many event streams") {
		t.Errorf("the refusal is not in the audit log:\n%s", tc.log.String())
	}

	// In all: a console of three streams.
	tc2 := newTestConsole(t)
	tc2.srv.streams.total = 3
	a2, d2 := tc2.login(t, "S17", "supervisor-pass-17"), tc2.login(t, "D4", "dealer-password-4")
	for _, ag := range []*agent{a2, a2, d2} {
		resp, closeIt := ag.openStream(t, "/api/tables/t1/events")
		closers = append(closers, closeIt)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream within the console's limit: %d", resp.StatusCode)
		}
	}
	resp, closeIt = d2.openStream(t, "/api/tables/t1/events")
	b = refusalBody(t, resp)
	closeIt()
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), "console.streams") {
		t.Fatalf("stream past the console's limit: %d %s", resp.StatusCode, b)
	}
}

// TestUnknownHostIsRefused: a request naming a host the console is not served as (a page
// of another site, its name made to resolve to the console's address) is refused before
// anything else; an IP address, localhost and the configured names are served.
func TestUnknownHostIsRefused(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	tc.srv.opts.Hosts = []string{"pit-console.casino.lan"}
	_, port, _ := strings.Cut(strings.TrimPrefix(tc.http.URL, "http://"), ":")
	get := func(host, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", tc.http.URL+path, nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, host := range []string{"rebind.evil.example:" + port, "rebind.evil.example", "pit-console.casino.lan.evil.example"} {
		for _, path := range []string{"/api/session", "/", "/api/events"} {
			if code, body := get(host, path); code != http.StatusMisdirectedRequest || !strings.Contains(body, "console.hosts") {
				t.Errorf("Host %s, %s: %d %s", host, path, code, body)
			}
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "pit-console.casino.lan:" + port, "PIT-CONSOLE.casino.lan.", "[::1]:" + port, "10.1.2.3"} {
		if code, body := get(host, "/api/session"); code != http.StatusUnauthorized {
			t.Errorf("Host %s: %d %s, want the API's own answer (not logged in)", host, code, body)
		}
	}
	if !strings.Contains(tc.log.String(), "unknown Host header") {
		t.Errorf("the refusal is not in the audit log:\n%s", tc.log.String())
	}
}
