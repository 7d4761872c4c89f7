package board

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/sse"
)

// retainedTopics are the last levels of the retained topics the board shows, in the
// order a browser that connects is given them (api.Picture): status, then the roads,
// then the state.
var retainedTopics = func() (names []string) {
	for _, t := range api.Picture() {
		names = append(names, t.String())
	}
	return names
}()

func retainedIndex(name string) int {
	for i, t := range retainedTopics {
		if t == name {
			return i
		}
	}
	return -1
}

// event is one SSE event: its name, the topic's last level, and its data, the
// message's JSON on one line ("null" when a retained topic was cleared).
type event struct {
	name string
	data []byte
}

// frame is the event in the SSE wire form.
func (e event) frame() []byte { return sse.Frame(e.name, e.data) }

// eventOf turns an MQTT message of the table into an event. A message on a command
// topic gives the zero event and no error: it is not for the board. A message the board
// cannot forward (a topic it cannot name an event after, a payload that is not JSON or
// is too large) is an error that names the topic and what is wrong. own says the
// payload is the table's own, in process (Options.Source): it is passed on as it is,
// checked only to be on one line, not parsed.
func (b *Board) eventOf(topic string, payload []byte, own bool) (event, error) {
	base := api.Prefix + "/" + b.topics.Table() + "/"
	rest, ok := strings.CutPrefix(topic, base)
	if !ok {
		return event{}, fmt.Errorf("board: topic %q is not under %s", topic, base)
	}
	if api.IsCommandLevel(rest) {
		return event{}, nil
	}
	name := rest[strings.LastIndexByte(rest, '/')+1:]
	if err := checkEventName(name); err != nil {
		return event{}, fmt.Errorf("board: topic %q: %w", topic, err)
	}
	if len(payload) == 0 {
		if retainedIndex(name) >= 0 {
			// An empty retained message clears the topic (MQTT 3.1.1, 3.3.1.3).
			return event{name: name, data: []byte("null")}, nil
		}
		return event{}, fmt.Errorf("board: topic %q: empty payload", topic)
	}
	if len(payload) > MaxPayload {
		return event{}, fmt.Errorf("board: topic %q: payload of %d bytes is larger than the %d forwarded", topic, len(payload), MaxPayload)
	}
	if own {
		if i := bytes.IndexAny(payload, "\r\n"); i >= 0 {
			return event{}, fmt.Errorf("board: topic %q: payload has a line break at byte %d", topic, i)
		}
		return event{name: name, data: payload}, nil
	}
	var buf bytes.Buffer
	buf.Grow(len(payload))
	// Compact checks the JSON and puts it on one line, as an SSE data field needs.
	if err := json.Compact(&buf, payload); err != nil {
		return event{}, fmt.Errorf("board: topic %q: payload of %d bytes is not JSON: %w", topic, len(payload), err)
	}
	return event{name: name, data: buf.Bytes()}, nil
}

// checkEventName accepts a topic level as an SSE event name: 1 to 32 lower-case
// letters, digits, "_" or "-", so it can neither break the stream nor be mistaken for
// another field.
func checkEventName(name string) error {
	if name == "" || len(name) > 32 {
		return fmt.Errorf("topic level %q is not 1 to 32 bytes long", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("topic level %q has %q at byte %d (an event name takes a-z, 0-9, _ and -)", name, c, i)
		}
	}
	return nil
}

// hub hands every event to every browser connected, and keeps the latest payload of the
// retained topics for the browsers that connect later. Publishing never waits: a
// browser whose buffer is full is dropped.
type hub struct {
	log      *slog.Logger
	size     int
	mu       sync.Mutex
	retained [][]byte // by retainedTopics; nil: nothing retained
	kept     kept
	clients  map[*client]struct{}
	closed   bool
	// change is closed at the hub's next change, for a caller waiting on it (changed);
	// nil while none waits.
	change chan struct{}
}

// client is one browser's stream. Its context ends when the browser leaves, is dropped
// or the hub closes.
type client struct {
	ch     chan event
	ctx    context.Context
	cancel context.CancelFunc
}

func newHub(size int, log *slog.Logger) *hub {
	return &hub{log: log, size: size, retained: make([][]byte, len(retainedTopics)), clients: make(map[*client]struct{})}
}

// join registers a browser whose request context is ctx and queues the retained picture
// for it. Events published after join returns reach it in order, after that picture.
func (h *hub) join(ctx context.Context) (*client, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	c := &client{ch: make(chan event, h.size+len(retainedTopics)+maxKept)}
	c.ctx, c.cancel = context.WithCancel(ctx)
	for i, data := range h.retained {
		if data != nil {
			c.ch <- event{name: retainedTopics[i], data: data}
		}
	}
	for _, ev := range h.kept.events() {
		c.ch <- ev
	}
	h.clients[c] = struct{}{}
	h.notify()
	return c, nil
}

// leave unregisters c, once its stream has ended.
func (h *hub) leave(c *client) {
	h.mu.Lock()
	delete(h.clients, c)
	h.notify()
	h.mu.Unlock()
	c.cancel()
}

// publish keeps ev if its topic is retained and queues it for every browser. A browser
// whose buffer is full is dropped: its stream ends, and it reconnects and gets the
// retained picture again.
func (h *hub) publish(ev event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	if i := retainedIndex(ev.name); i >= 0 {
		if string(ev.data) == "null" {
			h.retained[i] = nil
		} else {
			h.retained[i] = ev.data
		}
	}
	h.kept.note(ev)
	for c := range h.clients {
		select {
		case c.ch <- ev:
		default:
			delete(h.clients, c)
			c.cancel()
			h.log.Warn("dropping a browser that fell behind; it will reconnect", "buffer", h.size)
		}
	}
	h.notify()
}

// clientCount is the number of browsers connected.
func (h *hub) clientCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}

// close ends every stream; join refuses new ones.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for c := range h.clients {
		delete(h.clients, c)
		c.cancel()
	}
	h.notify()
}

// changed returns a channel closed at the hub's next change: a browser joining or
// leaving, an event published, the hub closing.
func (h *hub) changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.change == nil {
		h.change = make(chan struct{})
	}
	return h.change
}

// notify closes the channel changed gave out, if any. The caller holds h.mu.
func (h *hub) notify() {
	if h.change != nil {
		close(h.change)
		h.change = nil
	}
}
