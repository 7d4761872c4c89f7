package display

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"
)

// CommandPolicy orders and bounds the commands the client takes, so that a flood on one
// command topic cannot keep another's commands out. Each role has a queue of its own of
// Options.CommandQueue commands. The roles in Ahead are taken before any other, in
// the order given; the commands of every other role (a dealer's, or a role the table does
// not know) are taken after them and bounded in rate: Burst at once, then Rate a second.
// A command that finds its queue full, or that comes over the rate, is answered "busy"
// with its id.
type CommandPolicy struct {
	Ahead []string
	Rate  float64
	Burst int
}

// DefaultCommandPolicy puts the managers' and the supervisor's commands ahead of a
// dealer's, and bounds a dealer's to 20 at once, then 5 a second: more than a dealer's
// buttons or console give, far less than the table can take.
var DefaultCommandPolicy = CommandPolicy{Ahead: []string{"shift_manager", "pit_manager", "supervisor"}, Rate: 5, Burst: 20}

// MaxReplyIDLen bounds the id a refusal repeats, in bytes: a longer one is not repeated.
const MaxReplyIDLen = 64

// CommandID returns the "id" of a command payload, for a reply: "" when the payload is
// not a JSON object or has no id that is a string of at most MaxReplyIDLen bytes. The rest
// of the payload is not checked.
func CommandID(payload []byte) string {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(payload, &v) != nil || len(v.ID) == 0 {
		return ""
	}
	var id string
	if json.Unmarshal(v.ID, &id) != nil || len(id) > MaxReplyIDLen {
		return ""
	}
	return id
}

// cmdQueue holds the commands received and not yet taken, a queue for each role, and
// hands them to the Commands channel by the policy: the roles ahead first, then the
// others in the order they came.
type cmdQueue struct {
	policy   CommandPolicy
	capacity int
	now      func() time.Time

	mu      sync.Mutex
	byRole  map[string][]Command
	others  []string // the roles not ahead, in the order their first queued command came
	tokens  float64  // the rate bucket of the roles not ahead
	filled  time.Time
	closed  bool
	pending int
	wake    chan struct{}
	// moved is closed when pending next changes, for a caller waiting on it (movedOn);
	// nil while none waits.
	moved chan struct{}
	// retained are the retained commands already logged, by topic and payload digest.
	retained map[[sha256.Size]byte]bool

	out chan Command
}

func newCmdQueue(policy CommandPolicy, capacity int, now func() time.Time) *cmdQueue {
	return &cmdQueue{policy: policy, capacity: capacity, now: now, byRole: map[string][]Command{},
		tokens: float64(policy.Burst), filled: now(), wake: make(chan struct{}, 1),
		retained: map[[sha256.Size]byte]bool{}, out: make(chan Command)}
}

// ahead reports the rank of role among Ahead (0 the first), or -1.
func (q *cmdQueue) ahead(role string) int { return slices.Index(q.policy.Ahead, role) }

// add queues cmd, or says why it is not taken ("" when it is queued).
func (q *cmdQueue) add(cmd Command) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return "busy: the table controller is closing; the command was not taken, send it again"
	}
	if q.ahead(cmd.Role) < 0 {
		now := q.now()
		q.tokens = min(float64(q.policy.Burst), q.tokens+now.Sub(q.filled).Seconds()*q.policy.Rate)
		q.filled = now
		if q.tokens < 1 {
			return fmt.Sprintf("busy: %s commands come faster than %d at once and %g a second; the command was not taken, send it again",
				cmd.Role, q.policy.Burst, q.policy.Rate)
		}
	}
	if len(q.byRole[cmd.Role]) >= q.capacity {
		return fmt.Sprintf("busy: %d %s commands wait already; the command was not taken, send it again", q.capacity, cmd.Role)
	}
	if q.ahead(cmd.Role) < 0 {
		q.tokens--
		if len(q.byRole[cmd.Role]) == 0 {
			q.others = append(q.others, cmd.Role)
		}
	}
	q.byRole[cmd.Role] = append(q.byRole[cmd.Role], cmd)
	q.pending++
	q.notify()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return ""
}

// next returns the command to hand over now, without taking it from its queue.
func (q *cmdQueue) next() (Command, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, role := range q.policy.Ahead {
		if cs := q.byRole[role]; len(cs) > 0 {
			return cs[0], true
		}
	}
	for _, role := range q.others {
		if cs := q.byRole[role]; len(cs) > 0 {
			return cs[0], true
		}
	}
	return Command{}, false
}

// taken takes the first command of role's queue, handed over.
func (q *cmdQueue) taken(role string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	cs := q.byRole[role]
	q.byRole[role] = cs[1:]
	q.pending--
	q.notify()
	if len(cs) == 1 {
		delete(q.byRole, role)
		if i := slices.Index(q.others, role); i >= 0 {
			q.others = slices.Delete(q.others, i, i+1)
		}
	}
}

// run hands the commands over to out, the most urgent first, until quit; then it closes
// out. A command more urgent than the one offered, arriving while it waits, is offered
// in its place.
func (q *cmdQueue) run(quit <-chan struct{}) {
	defer close(q.out)
	for {
		cmd, ok := q.next()
		if !ok {
			select {
			case <-q.wake:
				continue
			case <-quit:
				return
			}
		}
		select {
		case q.out <- cmd:
			q.taken(cmd.Role)
		case <-q.wake:
		case <-quit:
			return
		}
	}
}

// close refuses any further command; what is queued is dropped with the client.
func (q *cmdQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
}

// Pending is how many commands were received and not yet taken from Commands.
func (q *cmdQueue) Pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pending
}

// movedOn is how many commands are pending, and a channel closed when that next
// changes.
func (q *cmdQueue) movedOn() (int, <-chan struct{}) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.moved == nil {
		q.moved = make(chan struct{})
	}
	return q.pending, q.moved
}

// notify closes the channel movedOn gave out, if any. The caller holds q.mu.
func (q *cmdQueue) notify() {
	if q.moved != nil {
		close(q.moved)
		q.moved = nil
	}
}

// firstRetained reports whether a retained command is seen for the first time (by topic
// and payload), so that it is logged once however often a reconnect delivers it again.
func (q *cmdQueue) firstRetained(topic string, payload []byte) bool {
	d := sha256.New()
	d.Write([]byte(topic))
	d.Write([]byte{0})
	d.Write(payload)
	var k [sha256.Size]byte
	d.Sum(k[:0])
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.retained[k] {
		return false
	}
	if len(q.retained) >= 256 {
		clear(q.retained) // bounded: a flood of distinct retained commands is logged again
	}
	q.retained[k] = true
	return true
}

// refusal is the payload of a reply refusing a command: {"schema":2,"table":...,"at":...,
// "role":...,"id":...,"ok":false,"error":...}, with "request" when request is given.
func refusal(table, role, id, why string, request []byte, at time.Time) []byte {
	var b bytes.Buffer
	// Encode cannot fail on a struct of strings, a bool and an int.
	_ = json.NewEncoder(&b).Encode(struct {
		Schema  int    `json:"schema"`
		Table   string `json:"table"`
		At      string `json:"at"`
		Role    string `json:"role"`
		ID      string `json:"id,omitempty"`
		OK      bool   `json:"ok"`
		Error   string `json:"error"`
		Request string `json:"request,omitempty"`
	}{2, table, at.UTC().Format(time.RFC3339Nano), role, id, false, why, string(request)})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
