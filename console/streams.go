package console

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// streams feeds the browsers' Server-Sent Events streams: the floor stream gets each
// changed table's summary, at most once a floorTick per table; a table's stream gets
// every message of that table as it arrives.
type streams struct {
	floor *floor
	log   *slog.Logger

	mu     sync.Mutex
	closed bool
	floors map[*floorClient]struct{}
	tables map[*tableClient]struct{}
	dirty  map[string]bool
	wake   chan struct{}
}

type floorClient struct {
	ch     chan []Summary
	ctx    context.Context
	cancel context.CancelFunc
}

type tableClient struct {
	table  string
	ch     chan sse
	ctx    context.Context
	cancel context.CancelFunc
}

// sse is one event of a stream.
type sse struct {
	name string
	data []byte
}

func (e sse) frame() []byte {
	return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", e.name, e.data)
}

func newStreams(f *floor, log *slog.Logger) *streams {
	return &streams{floor: f, log: log, floors: map[*floorClient]struct{}{}, tables: map[*tableClient]struct{}{},
		dirty: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// changed is the floor's hook: it runs after each message that changed a table.
func (st *streams) changed(table, event string, data []byte) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return
	}
	if event != "card" {
		st.dirty[table] = true
		select {
		case st.wake <- struct{}{}:
		default:
		}
	}
	if len(data) == 0 {
		data = []byte("null")
	}
	for c := range st.tables {
		if c.table != table {
			continue
		}
		select {
		case c.ch <- sse{name: event, data: data}:
		default:
			// Fallen too far behind: the browser reconnects and is given the table again.
			delete(st.tables, c)
			c.cancel()
		}
	}
}

// run sends the changed summaries to the floor streams every floorTick, until quit.
func (st *streams) run(quit <-chan struct{}) {
	t := time.NewTicker(floorTick)
	defer t.Stop()
	for {
		select {
		case <-quit:
			return
		case <-st.wake:
		}
		select {
		case <-quit:
			return
		case <-t.C:
		}
		st.mu.Lock()
		dirty := st.dirty
		st.dirty = map[string]bool{}
		st.mu.Unlock()
		batch := make([]Summary, 0, len(dirty))
		for table := range dirty {
			if s, ok := st.floor.summary(table); ok {
				batch = append(batch, s)
			}
		}
		st.mu.Lock()
		for c := range st.floors {
			select {
			case c.ch <- batch:
			default:
				delete(st.floors, c)
				c.cancel()
			}
		}
		st.mu.Unlock()
	}
}

func (st *streams) joinFloor(ctx context.Context) (*floorClient, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil, false
	}
	c := &floorClient{ch: make(chan []Summary, 64)}
	c.ctx, c.cancel = context.WithCancel(ctx)
	st.floors[c] = struct{}{}
	return c, true
}

func (st *streams) joinTable(ctx context.Context, table string) (*tableClient, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil, false
	}
	c := &tableClient{table: table, ch: make(chan sse, streamBurst)}
	c.ctx, c.cancel = context.WithCancel(ctx)
	st.tables[c] = struct{}{}
	return c, true
}

func (st *streams) leave(fc *floorClient, tc *tableClient) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if fc != nil {
		delete(st.floors, fc)
		fc.cancel()
	}
	if tc != nil {
		delete(st.tables, tc)
		tc.cancel()
	}
}

func (st *streams) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.closed = true
	for c := range st.floors {
		c.cancel()
	}
	for c := range st.tables {
		c.cancel()
	}
	st.floors, st.tables = map[*floorClient]struct{}{}, map[*tableClient]struct{}{}
}

// eventWriter writes SSE frames to one browser.
type eventWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func startStream(w http.ResponseWriter) eventWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return eventWriter{w: w, rc: http.NewResponseController(w)}
}

func (e eventWriter) send(frame []byte) bool {
	_ = e.rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := e.w.Write(frame); err != nil {
		return false
	}
	return e.rc.Flush() == nil
}

// alive reports whether the session behind a stream is still valid, without counting
// the stream as use: an open page does not keep an idle session alive.
func (s *Server) alive(token string) bool {
	s.sess.mu.Lock()
	defer s.sess.mu.Unlock()
	ss, ok := s.sess.byID[token]
	return ok && s.opts.Now().Sub(ss.lastSeen) <= s.sess.idle
}

// floorEvents streams the floor: "tables" with every table at once, then "table" with
// each table that changed.
func (s *Server) floorEvents(w http.ResponseWriter, r *http.Request, ss session) {
	c, ok := s.streams.joinFloor(r.Context())
	if !ok {
		writeError(w, http.StatusServiceUnavailable, "the console is closing")
		return
	}
	defer s.streams.leave(c, nil)
	ew := startStream(w)
	stop := context.AfterFunc(c.ctx, func() { _ = ew.rc.SetWriteDeadline(time.Now()) })
	defer stop()
	all, _ := json.Marshal(s.floor.summaries())
	if !ew.send([]byte("retry: 1000\n\n")) || !ew.send(sse{name: "tables", data: all}.frame()) {
		return
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case batch := <-c.ch:
			for _, sum := range batch {
				b, _ := json.Marshal(sum)
				if !ew.send(sse{name: "table", data: b}.frame()) {
					return
				}
			}
		case <-tick.C:
			if !s.alive(ss.token) {
				ew.send(sse{name: "expired", data: []byte(`{}`)}.frame())
				return
			}
			if !ew.send([]byte(": ping\n\n")) {
				return
			}
		}
	}
}

// tableEvents streams one table: "detail" with everything known of it, then each of its
// messages as an event named after the topic's last level.
func (s *Server) tableEvents(w http.ResponseWriter, r *http.Request, ss session) {
	table := r.PathValue("table")
	c, ok := s.streams.joinTable(r.Context(), table)
	if !ok {
		writeError(w, http.StatusServiceUnavailable, "the console is closing")
		return
	}
	defer s.streams.leave(nil, c)
	ew := startStream(w)
	stop := context.AfterFunc(c.ctx, func() { _ = ew.rc.SetWriteDeadline(time.Now()) })
	defer stop()
	d, _ := s.floor.detail(table)
	d.Summary.Table = table
	b, _ := json.Marshal(d)
	if !ew.send([]byte("retry: 1000\n\n")) || !ew.send(sse{name: "detail", data: b}.frame()) {
		return
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case ev := <-c.ch:
			if !ew.send(ev.frame()) {
				return
			}
		case <-tick.C:
			if !s.alive(ss.token) {
				ew.send(sse{name: "expired", data: []byte(`{}`)}.frame())
				return
			}
			if !ew.send([]byte(": ping\n\n")) {
				return
			}
		}
	}
}
