package deploy

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tablectl/tablectl/board"
	"github.com/tablectl/tablectl/internal/artifacts"
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
// test-artifacts/deploy/kiosk-waiting.png.
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
	// wait waits until cond is true on the page: the page tries it at each of its
	// animation frames (chromedp.Poll). A cond that throws counts as false; the page
	// navigating ends its try, and it starts again on the new page. The minute bounds a
	// failure only.
	wait := func(what, cond string) {
		t.Helper()
		start := time.Now()
		deadline := start.Add(time.Minute)
		pred := "(() => { try { return !!(" + cond + "); } catch (e) { return false; } })()"
		var err error
		for left := time.Until(deadline); left > 0; left = time.Until(deadline) {
			if err = chromedp.Do(ctx, chromedp.Poll[chromedp.Void](pred, chromedp.WithPollingTimeout(left))); err == nil {
				t.Logf("%s: %s", what, time.Since(start))
				return
			}
		}
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + '\n' + document.body.innerText`))
		t.Fatalf("%s: not so after a minute (%v)\nthe page is:\n%s", what, err, text)
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
	artifacts.Write(t, "kiosk-waiting.png", png)
	stop := serveBoard(t, addr)
	defer stop()
	wait("the board, once tablectl serves it", isBoard)

	// tablectl first: the kiosk opens the board at once.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(kiosk)); err != nil {
		t.Fatal(err)
	}
	wait("the board, served before the kiosk started", isBoard)
}
