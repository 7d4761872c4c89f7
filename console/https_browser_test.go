package console

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/internal/chromiumtest"
)

// streamWatch tells when each event stream of the console goes live (its first frame
// flushed) and when its handler returns, and keeps the protocol of every request.
type streamWatch struct {
	live, ended chan string

	mu     sync.Mutex
	protos map[string]int // requests by protocol
}

// liveWriter tells once, at its first flush, that its stream is live.
type liveWriter struct {
	http.ResponseWriter
	once *sync.Once
	live func()
}

func (w liveWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	w.once.Do(w.live)
}

// Unwrap lets http.ResponseController reach the HTTP/2 writer's deadline.
func (w liveWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (sw *streamWatch) handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw.mu.Lock()
		sw.protos[r.Proto]++
		sw.mu.Unlock()
		if !strings.HasSuffix(r.URL.Path, "/events") {
			h.ServeHTTP(w, r)
			return
		}
		defer func() { sw.ended <- r.URL.Path }()
		h.ServeHTTP(liveWriter{ResponseWriter: w, once: &sync.Once{}, live: func() { sw.live <- r.URL.Path }}, r)
	})
}

// TestStreamsOverHTTPSInBrowser serves the console over HTTPS with HTTP/2, as
// tls_cert and tls_key do, to headless Chromium. A supervisor goes through the floor, a
// table's page and History, and the page changes and reloads drop and reopen the event
// streams over and over: 36 page changes, each of six steps six times. Every request came over HTTP/2. The console
// serves on, each stream dropped has ended, and the session is still good. An event
// stream that touched its response after its handler returned panicked the console
// (net/http's http2responseWriter.SetWriteDeadline) at the first page change.
func TestStreamsOverHTTPSInBrowser(t *testing.T) {
	t.Parallel()
	r, err := archive.OpenReader(context.Background(), historyArchive(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	tc := newTestConsoleWith(t, nil, func(o *Options) { o.History = r; o.SecureCookie = true })
	for table, pit := range map[string]string{"t1": "pit3", "t2": "pit4"} {
		tc.srv.Ingest("casino/lv1/"+pit+"/tablectl/v1/"+table+"/status", []byte(`{"schema":2,"table":"`+table+`","state":"online","rules":"rws","decks":8}`))
		tc.srv.Ingest("casino/lv1/"+pit+"/tablectl/v1/"+table+"/state", []byte(dealing(table, "rws")))
	}
	sw := &streamWatch{live: make(chan string, 1024), ended: make(chan string, 1024), protos: map[string]int{}}
	srv := httptest.NewUnstartedServer(sw.handler(tc.srv.Handler()))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	base := srv.URL
	sc := screen{"1920", 1920, 1080}
	ctx := chromiumtest.NewTrusting(t, sc.w, sc.h, srv.Certificate())

	opened, ended := 0, 0
	// streams waits for n streams to go live, and names them.
	streams := func(what string, n int) {
		t.Helper()
		deadline := time.After(60 * time.Second) // bounds a failure only
		for i := 0; i < n; {
			select {
			case <-sw.live:
				opened++
				i++
			case <-sw.ended:
				ended++
			case <-deadline:
				t.Fatalf("%s: %d of %d event streams went live", what, i, n)
			}
		}
	}
	floor := `location.pathname === "/" && document.body.dataset.ready === "1" && document.querySelectorAll(".tile").length === 2`
	tablePage := `location.pathname === "/table.html" && document.body.dataset.ready === "1"`
	history := `location.pathname === "/history.html" && document.body.dataset.ready === "1" && !document.getElementById("search-form").hidden`

	loginPage(t, ctx, base, "S17", "supervisor-pass-17")
	until(t, ctx, "the floor", floor)
	streams("the floor", 1)
	if got := evaluate[string](t, ctx, `performance.getEntriesByType("navigation")[0].nextHopProtocol`); got != "h2" {
		t.Fatalf("the floor came over %q, not h2", got)
	}
	shot(t, ctx, sc, "https-floor")

	// Each step is a page change or a reload: the streams of the page left are dropped,
	// those of the page come open.
	steps := []struct {
		what    string
		do      func()
		page    string
		streams int // the page's: the floor's; a table's page has its table's too
	}{
		{"open t1 from the floor", func() { click(t, ctx, `.tile[data-table="t1"]`) }, tablePage, 2},
		{"reload t1's page", func() { do(t, ctx, chromedp.Reload()) }, tablePage, 2},
		{"back to the floor", func() { click(t, ctx, "#back") }, floor, 1},
		{"reload the floor", func() { do(t, ctx, chromedp.Reload()) }, floor, 1},
		{"open History", func() { click(t, ctx, "#history-link") }, history, 0},
		{"back to the floor from History", func() { click(t, ctx, "#back") }, floor, 1},
	}
	const changes = 36 // the last step is back to the floor
	for i := range changes {
		st := steps[i%len(steps)]
		what := fmt.Sprintf("page change %d: %s", i+1, st.what)
		// Something to send on the streams as they are dropped.
		tc.srv.Ingest("casino/lv1/pit3/tablectl/v1/t1/state", []byte(strings.Replace(dealing("t1", "rws"), `"seq":500`, fmt.Sprintf(`"seq":%d`, 501+i), 1)))
		st.do()
		until(t, ctx, what, st.page)
		streams(what, st.streams)
		switch i {
		case 0:
			shot(t, ctx, sc, "https-table")
		case 4:
			shot(t, ctx, sc, "https-history")
		}
	}
	// The last page is the floor, with its one stream: every other has ended.
	for opened-ended > 1 {
		select {
		case <-sw.ended:
			ended++
		case <-time.After(60 * time.Second): // bounds a failure only
			t.Fatalf("%d event streams opened, %d ended: a dropped stream was not ended", opened, ended)
		}
	}
	if opened < changes {
		t.Errorf("%d event streams opened over %d page changes", opened, changes)
	}
	// The console serves on, and the session is still good.
	until(t, ctx, "the floor at the end", floor)
	status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(async () => (await fetch("/api/session")).status)()`, chromedp.EvalAwaitPromise))
	if err != nil || status != http.StatusOK {
		t.Errorf("GET /api/session at the end: %d, %v", status, err)
	}
	if got := evaluate[string](t, ctx, `document.getElementById("link").textContent`); got != "Live" {
		t.Errorf("the floor's link says %q at the end", got)
	}
	shot(t, ctx, sc, "https-floor-after")
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if len(sw.protos) != 1 || sw.protos["HTTP/2.0"] == 0 {
		t.Errorf("requests by protocol: %v, want HTTP/2.0 alone", sw.protos)
	}
	t.Logf("%d page changes, %d event streams opened and %d ended; requests by protocol %v", changes, opened, ended, sw.protos)
}
