package sse

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"
)

func TestFrame(t *testing.T) {
	if got := string(Frame("result", []byte(`{"a":1}`))); got != "event: result\ndata: {\"a\":1}\n\n" {
		t.Errorf("Frame: %q", got)
	}
}

// TestStream: a stream has its headers and the retry first, then each frame as sent; once
// its context is done, Send writes nothing and reports the stream over.
func TestStream(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rec := httptest.NewRecorder()
	w, ok := Start(ctx, rec, 1500*time.Millisecond)
	defer w.Close()
	if !ok {
		t.Fatal("Start: the retry was not written")
	}
	if !w.Send(Frame("state", []byte(`{}`))) || !w.Send(Ping) {
		t.Fatal("Send failed on an open stream")
	}
	cancel()
	if w.Send(Frame("late", []byte(`{}`))) {
		t.Error("Send after the context was done reported success")
	}
	h := rec.Header()
	if h.Get("Content-Type") != "text/event-stream" || h.Get("Cache-Control") != "no-store" || h.Get("X-Accel-Buffering") != "no" {
		t.Errorf("headers: %v", h)
	}
	want := "retry: 1500\n\nevent: state\ndata: {}\n\n: ping\n\n"
	if got := rec.Body.String(); got != want || !rec.Flushed {
		t.Errorf("body %q (flushed %v), want %q", got, rec.Flushed, want)
	}
}

// TestSendAfterClose: a closed Writer writes nothing, its context still live.
func TestSendAfterClose(t *testing.T) {
	rec := httptest.NewRecorder()
	w, ok := Start(context.Background(), rec, time.Second)
	if !ok {
		t.Fatal("Start: the retry was not written")
	}
	w.Close()
	if w.Send(Ping) {
		t.Error("Send after Close reported success")
	}
	if got := rec.Body.String(); got != "retry: 1000\n\n" {
		t.Errorf("body %q after Close", got)
	}
}
