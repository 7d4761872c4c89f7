package deploy

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tablectl/tablectl/board"
	"github.com/tablectl/tablectl/internal/chromiumtest"
)

// freePort is a loopback port nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// serveBoard serves a display board on addr, as tablectl coming up does, until stop.
func serveBoard(t *testing.T, addr string) (stop func()) {
	t.Helper()
	b, err := board.New(board.Options{Broker: "tcp://127.0.0.1:1", Table: "t1", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: b.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return func() {
		b.Close()
		srv.Close()
	}
}

// TestKioskShowsTheBoardWhicheverStartsFirst opens the shipped kiosk page in Chromium, as
// the display Pi's autostart does (docs/board.md), before tablectl serves its board: the
// page says it waits for the table, and opens the board once it answers. Started after
// the board, it opens the board at once. It keeps
// testdata/artifacts/kiosk-waiting.png.
func TestKioskShowsTheBoardWhicheverStartsFirst(t *testing.T) {
	t.Parallel()
	page, err := filepath.Abs("kiosk.html")
	if err != nil {
		t.Fatal(err)
	}
	ctx := chromiumtest.New(t, 1280, 720)
	addr := freePort(t)
	board := "http://" + addr + "/"
	kiosk := "file://" + page + "#" + board
	// wait evaluates cond every 50 ms until it is true; an evaluation cut short by the
	// page navigating is tried again. The minute bounds a failure only.
	wait := func(what, cond string) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
			if err == nil && ok {
				t.Logf("%s: %s", what, time.Since(deadline.Add(-time.Minute)))
				return
			}
			if time.Now().After(deadline) {
				text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + '\n' + document.body.innerText`))
				t.Fatalf("%s: %v (%v)\nthe page is:\n%s", what, ok, err, text)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	isBoard := `location.href === '` + board + `' && document.getElementById('bead-plate') !== null && document.getElementById('link') !== null`

	// The kiosk first: it waits, and says so.
	if err := chromedp.Do(ctx, chromedp.Navigate(kiosk)); err != nil {
		t.Fatal(err)
	}
	wait("the waiting page", `document.getElementById('waiting') !== null && document.getElementById('board').textContent === '`+board+`'`)
	// It asks again and again, and waits. A refused question's link lives for a moment
	// only, so the page's own count is read, not the link.
	wait("a second question", `location.protocol === 'file:' && document.getElementById('waiting') !== null && Number(document.documentElement.dataset.questions) >= 2`)
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join("testdata", "artifacts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "artifacts", "kiosk-waiting.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	stop := serveBoard(t, addr)
	defer stop()
	wait("the board, once tablectl serves it", isBoard)

	// tablectl first: the kiosk opens the board at once.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(kiosk)); err != nil {
		t.Fatal(err)
	}
	wait("the board, served before the kiosk started", isBoard)
}
