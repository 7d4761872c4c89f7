// Package sse writes server-sent event streams (text/event-stream) to a browser: the
// headers, each frame written with a deadline and flushed, and the frame format. The
// display board and the console stream through it.
package sse

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// WriteTimeout bounds one frame's write: a browser that reads nothing for this long
// ends its stream.
const WriteTimeout = 10 * time.Second

// Ping is a comment frame: it keeps a stream's connection open and finds a browser
// that went away.
var Ping = []byte(": ping\n\n")

// Frame is one event named name with data, which must hold no newline (JSON does not).
func Frame(name string, data []byte) []byte {
	f := make([]byte, 0, len(name)+len(data)+16)
	f = append(f, "event: "...)
	f = append(f, name...)
	f = append(f, "\ndata: "...)
	f = append(f, data...)
	return append(f, "\n\n"...)
}

// Writer is one stream to one browser. Send is for the handler's goroutine alone;
// Close must be called before the handler returns.
type Writer struct {
	ctx  context.Context
	w    http.ResponseWriter
	rc   *http.ResponseController
	stop func() bool

	// mu is held wherever the deadline is set: by Send, by the context's end, and by
	// Close, which sets closed. So nothing touches w once Close has returned: an HTTP/2
	// response writer panics when touched after its handler has returned.
	mu     sync.Mutex
	closed bool
}

// Start writes a stream's headers and tells the browser to reconnect after retry. A
// stream ends at its first failed write; ctx done ends a write in progress at once (a
// browser that reads nothing must not hold the handler). Call Close before the handler
// returns.
func Start(ctx context.Context, w http.ResponseWriter, retry time.Duration) (*Writer, bool) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // no buffering in a reverse proxy
	w.WriteHeader(http.StatusOK)
	s := &Writer{ctx: ctx, w: w, rc: http.NewResponseController(w)}
	s.stop = context.AfterFunc(ctx, s.expire)
	ok := s.Send([]byte("retry: " + strconv.FormatInt(retry.Milliseconds(), 10) + "\n\n"))
	return s, ok
}

// expire runs once ctx is done: a deadline in the past ends the write in progress.
func (s *Writer) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		_ = s.rc.SetWriteDeadline(time.Now())
	}
}

// Send writes one frame and flushes it; false means the stream is over: its context
// done, the browser gone, or the Writer closed.
func (s *Writer) Send(frame []byte) bool {
	s.mu.Lock()
	// ctx done after this check: expire waits for mu, then ends the write below.
	if s.closed || s.ctx.Err() != nil {
		s.mu.Unlock()
		return false
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(WriteTimeout)) // not every writer has deadlines
	s.mu.Unlock()
	if _, err := s.w.Write(frame); err != nil {
		return false
	}
	return s.rc.Flush() == nil
}

// Close lets go of the stream's context. Once it returns the Writer never touches the
// response writer again: the context's end, had it begun, has finished.
func (s *Writer) Close() {
	s.stop()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}
