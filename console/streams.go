package console

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/sse"
)

// streams feeds the browsers' Server-Sent Events streams: the floor stream gets each
// changed table's summary, at most once a floorTick per table; a table's stream gets
// every message of that table as it arrives.
type streams struct {
	floor *floor
	log   *slog.Logger
	// perSession and total bound the streams open at once.
	perSession, total int

	mu     sync.Mutex
	closed bool
	open   map[string]int // the streams open by session token
	floors map[*floorClient]struct{}
	tables map[*tableClient]struct{}
	dirty  map[string]bool
	wake   chan struct{}
}

type floorClient struct {
	token  string
	ch     chan []Summary
	note   chan streamEvent // the broker's state
	ctx    context.Context
	cancel context.CancelFunc
}

type tableClient struct {
	token  string
	table  string
	ch     chan streamEvent
	ctx    context.Context
	cancel context.CancelFunc
}

// streamEvent is one event of a stream.
type streamEvent struct {
	name string
	data []byte
}

func (e streamEvent) frame() []byte { return sse.Frame(e.name, e.data) }

func newStreams(f *floor, log *slog.Logger, perSession, total int) *streams {
	return &streams{floor: f, log: log, perSession: perSession, total: total, open: map[string]int{},
		floors: map[*floorClient]struct{}{}, tables: map[*tableClient]struct{}{},
		dirty: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// errJoin says why a stream is not opened.
type errJoin string

const (
	joinClosing errJoin = "the console is closing"
)

// admit counts a new stream of session token, or says why it is refused: the console
// closing, or a limit reached. The caller holds st.mu.
func (st *streams) admit(token string) (errJoin, int) {
	switch {
	case st.closed:
		return joinClosing, http.StatusServiceUnavailable
	case st.open[token] >= st.perSession:
		return errJoin(fmt.Sprintf("too many event streams: this session has %d open, the limit (console.streams_per_session); close a page", st.perSession)), http.StatusTooManyRequests
	case len(st.floors)+len(st.tables) >= st.total:
		return errJoin(fmt.Sprintf("too many event streams: the console has %d open, its limit (console.streams); try again later", st.total)), http.StatusTooManyRequests
	}
	st.open[token]++
	return "", 0
}

// release uncounts a stream of session token. The caller holds st.mu.
func (st *streams) release(token string) {
	if st.open[token] <= 1 {
		delete(st.open, token)
		return
	}
	st.open[token]--
}

// changed is the floor's hook: it runs after each message that changed a table.
func (st *streams) changed(table, event string, data []byte) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return
	}
	if event != api.TopicCard.String() {
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
		case c.ch <- streamEvent{name: event, data: data}:
		default:
			// Fallen too far behind: the browser reconnects and is given the table again.
			delete(st.tables, c)
			st.release(c.token)
			c.cancel()
		}
	}
}

// brokerChanged sends the broker's state to every stream.
func (st *streams) brokerChanged(b BrokerState) {
	data, _ := json.Marshal(b)
	st.noteAll(streamEvent{name: "broker", data: data}, true)
}

// note sends ev to every floor stream.
func (st *streams) note(ev streamEvent) { st.noteAll(ev, false) }

// noteAll sends ev to every floor stream, and with tables to every table's stream too.
// A stream too far behind to take it is closed: its browser reconnects.
func (st *streams) noteAll(ev streamEvent, tables bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return
	}
	for c := range st.floors {
		select {
		case c.note <- ev:
		default:
			delete(st.floors, c)
			st.release(c.token)
			c.cancel()
		}
	}
	if !tables {
		return
	}
	for c := range st.tables {
		select {
		case c.ch <- ev:
		default:
			delete(st.tables, c)
			st.release(c.token)
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
				st.release(c.token)
				c.cancel()
			}
		}
		st.mu.Unlock()
	}
}

// joinFloor opens a floor stream for session token, or says why not and with which
// status.
func (st *streams) joinFloor(ctx context.Context, token string) (*floorClient, errJoin, int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if why, status := st.admit(token); why != "" {
		return nil, why, status
	}
	c := &floorClient{token: token, ch: make(chan []Summary, 64), note: make(chan streamEvent, 8)}
	c.ctx, c.cancel = context.WithCancel(ctx)
	st.floors[c] = struct{}{}
	return c, "", 0
}

// joinTable opens a table's stream for session token, or says why not and with which
// status.
func (st *streams) joinTable(ctx context.Context, token, table string) (*tableClient, errJoin, int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if why, status := st.admit(token); why != "" {
		return nil, why, status
	}
	c := &tableClient{token: token, table: table, ch: make(chan streamEvent, streamBurst)}
	c.ctx, c.cancel = context.WithCancel(ctx)
	st.tables[c] = struct{}{}
	return c, "", 0
}

func (st *streams) leave(fc *floorClient, tc *tableClient) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if fc != nil {
		if _, ok := st.floors[fc]; ok {
			delete(st.floors, fc)
			st.release(fc.token)
		}
		fc.cancel()
	}
	if tc != nil {
		if _, ok := st.tables[tc]; ok {
			delete(st.tables, tc)
			st.release(tc.token)
		}
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
	clear(st.open)
}

// refuseStream answers a stream refused, and logs a refusal for its limit (thinned).
func (s *Server) refuseStream(w http.ResponseWriter, r *http.Request, ss session, why errJoin, status int) {
	if status == http.StatusTooManyRequests {
		if ok, leftOut := s.quiet.Allow("streams " + ss.user.Name); ok {
			s.audit("refused", "user", ss.user.Name, "remote", remote(r), "request", r.Method+" "+r.URL.Path,
				"reason", string(why), "not_logged_since_last", leftOut)
		}
		w.Header().Set("Retry-After", "10")
	}
	writeError(w, status, string(why))
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
	c, why, status := s.streams.joinFloor(r.Context(), ss.token)
	if why != "" {
		s.refuseStream(w, r, ss, why, status)
		return
	}
	defer s.streams.leave(c, nil)
	ew, ok := sse.Start(c.ctx, w, time.Second)
	defer ew.Close()
	if !ok {
		return
	}
	all, _ := json.Marshal(s.floor.summaries())
	bs, _ := json.Marshal(s.brokerState())
	as, _ := json.Marshal(s.alerts.views(s.opts.Now()))
	if !ew.Send(streamEvent{name: "tables", data: all}.frame()) ||
		!ew.Send(streamEvent{name: "broker", data: bs}.frame()) ||
		!ew.Send(streamEvent{name: "alerts", data: as}.frame()) {
		return
	}
	tick := time.NewTicker(s.opts.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case ev := <-c.note:
			if !ew.Send(ev.frame()) {
				return
			}
		case batch := <-c.ch:
			for _, sum := range batch {
				b, _ := json.Marshal(sum)
				if !ew.Send(streamEvent{name: "table", data: b}.frame()) {
					return
				}
			}
		case <-tick.C:
			if !s.alive(ss.token) {
				ew.Send(streamEvent{name: "expired", data: []byte(`{}`)}.frame())
				return
			}
			if !ew.Send(sse.Ping) {
				return
			}
		}
	}
}

// tableEvents streams one table: "detail" with everything known of it, then each of its
// messages as an event named after the topic's last level.
func (s *Server) tableEvents(w http.ResponseWriter, r *http.Request, ss session) {
	table := r.PathValue("table")
	c, why, status := s.streams.joinTable(r.Context(), ss.token, table)
	if why != "" {
		s.refuseStream(w, r, ss, why, status)
		return
	}
	defer s.streams.leave(nil, c)
	ew, ok := sse.Start(c.ctx, w, time.Second)
	defer ew.Close()
	if !ok {
		return
	}
	d, _ := s.floor.detail(table)
	d.Summary.Table = table
	b, _ := json.Marshal(d)
	bs, _ := json.Marshal(s.brokerState())
	if !ew.Send(streamEvent{name: "detail", data: b}.frame()) ||
		!ew.Send(streamEvent{name: "broker", data: bs}.frame()) {
		return
	}
	tick := time.NewTicker(s.opts.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case ev := <-c.ch:
			if !ew.Send(ev.frame()) {
				return
			}
		case <-tick.C:
			if !s.alive(ss.token) {
				ew.Send(streamEvent{name: "expired", data: []byte(`{}`)}.frame())
				return
			}
			if !ew.Send(sse.Ping) {
				return
			}
		}
	}
}
