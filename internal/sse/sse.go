// Package sse writes server-sent event streams (text/event-stream) to a browser: the
// headers, each frame written with a deadline and flushed, and the frame format. The
// display board and the console stream through it.
package sse

import (
	"context"
	"net/http"
	"strconv"
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

// Writer is one stream to one browser.
type Writer struct {
	ctx  context.Context
	w    http.ResponseWriter
	rc   *http.ResponseController
	stop func() bool
}

// Start writes a stream's headers and tells the browser to reconnect after retry. A
// stream ends at its first failed write; ctx done ends a write in progress at once (a
// browser that reads nothing must not hold the handler). Call Close when done.
func Start(ctx context.Context, w http.ResponseWriter, retry time.Duration) (*Writer, bool) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // no buffering in a reverse proxy
	w.WriteHeader(http.StatusOK)
	s := &Writer{ctx: ctx, w: w, rc: http.NewResponseController(w)}
	s.stop = context.AfterFunc(ctx, func() { _ = s.rc.SetWriteDeadline(time.Now()) })
	ok := s.Send([]byte("retry: " + strconv.FormatInt(retry.Milliseconds(), 10) + "\n\n"))
	return s, ok
}

// Send writes one frame and flushes it; false means the stream is over, its context
// done or the browser gone.
func (s *Writer) Send(frame []byte) bool {
	if s.ctx.Err() != nil {
		return false
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(WriteTimeout)) // not every writer has deadlines
	if _, err := s.w.Write(frame); err != nil {
		return false
	}
	return s.rc.Flush() == nil
}

// Close lets go of the stream's context.
func (s *Writer) Close() { s.stop() }
