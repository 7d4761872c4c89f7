package console

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/tablectl/tablectl/api"
)

// Publisher sends a command to the broker: QoS 1, not retained, and returns once the
// broker has acknowledged it (or ctx ends).
type Publisher interface {
	Publish(ctx context.Context, topic string, payload []byte) error
}

// maxIDLength bounds a command id given by a client.
const maxIDLength = 64

// refusal is a command the console refuses before publishing anything: the status to
// answer and the reason.
type refusal struct {
	status int
	reason string
}

func (r *refusal) Error() string { return r.reason }

// statusOf is the HTTP status of a refusal; 500 for any other error.
func statusOf(err error) int {
	var r *refusal
	if errors.As(err, &r) {
		return r.status
	}
	return 500
}

func refuse(status int, format string, args ...any) error {
	return &refusal{status: status, reason: fmt.Sprintf(format, args...)}
}

// parseCommand reads a command object (api.Command): malformed JSON, an unknown field or
// a second value is refused, and first a control character or a byte that is not UTF-8
// in its text, with the table's words (api.CheckCommandText): the body is checked as
// sent, before decoding would replace such a byte.
func parseCommand(body []byte) (api.Command, error) {
	var c api.Command
	if err := api.CheckCommandText(body); err != nil {
		return c, refuse(400, "%s", err.Error())
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, refuse(400, "malformed command: %v", err)
	}
	if dec.More() {
		return c, refuse(400, "malformed command: more than one JSON value")
	}
	if len(c.ID) > maxIDLength {
		return c, refuse(400, "command id is longer than %d bytes", maxIDLength)
	}
	for i := 0; i < len(c.ID); i++ {
		if c.ID[i] < 0x21 || c.ID[i] > 0x7e {
			return c, refuse(400, "command id has byte %#x at %d (an id takes printable ASCII without spaces)", c.ID[i], i)
		}
	}
	return c, nil
}

// authorize checks that u may give c at table (in pit, with the held irregularity h),
// before anything is published. The table checks the command again when it takes it.
func authorize(u User, c api.Command, table, pit string, h held) error {
	if !u.Works(table, pit) {
		return refuse(403, "%s does not work table %s", u.Name, table)
	}
	if c.Actor != "" && c.Actor != u.Name {
		return refuse(403, "the actor is the person logged in (%s); a command cannot name another (%q)", u.Name, c.Actor)
	}
	c.Actor = u.Name // the command goes out in the person's name: its lowest role may depend on it
	need, ok := api.LowestRole(c)
	if !ok {
		return refuse(400, "unknown command %q: want one of %s", c.Cmd, api.CommandNames())
	}
	role, _ := api.ParseRole(u.Role)
	if c.Cmd == api.CmdDecide && h.id != 0 && h.id == c.Irregularity {
		if by, err := api.ParseRole(h.by); err == nil && by > need {
			need = by
		}
		if c.Choice != "" && len(h.choices) > 0 && !slices.Contains(h.choices, c.Choice) {
			return refuse(400, "irregularity #%d at table %s takes %v, not %q", h.id, table, h.choices, c.Choice)
		}
	}
	if role < need {
		what := fmt.Sprintf("%q", c.Cmd)
		if c.Cmd == api.CmdReport && c.Kind != "" {
			what = fmt.Sprintf("a report of %s", c.Kind)
		}
		return refuse(403, "a %s may not give %s: it takes a %s or above", role, what, need)
	}
	return nil
}

// waiter hands each command reply to the request waiting for it.
type waiter struct {
	mu      sync.Mutex
	pending map[string]chan []byte // by table and id
}

func newWaiter() *waiter { return &waiter{pending: map[string]chan []byte{}} }

func waitKey(table, id string) string { return table + "\x00" + id }

// expect registers a wait for the reply to id at table; done unregisters it.
func (w *waiter) expect(table, id string) (ch <-chan []byte, done func(), err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := waitKey(table, id)
	if _, busy := w.pending[k]; busy {
		return nil, nil, refuse(409, "a command with id %q is already waiting for table %s's answer", id, table)
	}
	c := make(chan []byte, 1)
	w.pending[k] = c
	return c, func() {
		w.mu.Lock()
		delete(w.pending, k)
		w.mu.Unlock()
	}, nil
}

// deliver gives a reply published by table to the request waiting for it, if any.
func (w *waiter) deliver(table string, payload []byte) {
	var r struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(payload, &r) != nil || r.ID == "" {
		return
	}
	w.mu.Lock()
	c, ok := w.pending[waitKey(table, r.ID)]
	w.mu.Unlock()
	if ok {
		select {
		case c <- append([]byte(nil), payload...):
		default: // a reply sent again: the first is kept
		}
	}
}

// newCommandID is an id for a command given without one.
func newCommandID() string {
	var b [9]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("console: crypto/rand: " + err.Error())
	}
	return "console-" + hex.EncodeToString(b[:])
}
