package table

import (
	"slices"
	"time"

	"github.com/tablectl/tablectl/round"
)

// RememberedCommands is how many recent command ids a node remembers with their replies.
const RememberedCommands = 1024

// CommandID is what an event's journal record holds of the command that stepped it: the
// role that gave it, the id its sender gave it, and when it was taken (its reply's
// time). Every record a command with an id steps carries it.
type CommandID struct {
	Role string    `json:"role"`
	ID   string    `json:"id"`
	At   time.Time `json:"at"`
}

// Answer is the reply to a command with an id, as the node remembers it and a snapshot
// holds it. At is zero for a reply kept by no journal (Node.Remember).
type Answer struct {
	Role    string    `json:"role"`
	ID      string    `json:"id"`
	At      time.Time `json:"at"`
	OK      bool      `json:"ok"`
	Error   string    `json:"error,omitempty"`
	Effects []string  `json:"effects,omitempty"`
}

type commandKey struct{ role, id string }

// answers are the replies to the most recent command ids, oldest first.
type answers struct {
	order []commandKey
	by    map[commandKey]*Answer
}

// remember keeps a, as the most recent, and forgets the oldest past RememberedCommands.
func (m *answers) remember(a Answer) *Answer {
	if m.by == nil {
		m.by = map[commandKey]*Answer{}
	}
	k := commandKey{a.Role, a.ID}
	if _, ok := m.by[k]; !ok {
		m.order = append(m.order, k)
	}
	m.by[k] = &a
	for len(m.order) > RememberedCommands {
		delete(m.by, m.order[0])
		m.order = m.order[1:]
	}
	return &a
}

// list is every answer remembered, oldest first.
func (m *answers) list() []Answer {
	out := make([]Answer, 0, len(m.order))
	for _, k := range m.order {
		out = append(out, *m.by[k])
	}
	return out
}

// Remember takes answers kept outside the table's journal, oldest first, and ranks them
// older than every answer the node remembers. An id it remembers already keeps its own
// answer. The daemon gives it the answers of a separate journal of command ids, when
// the journal's directory holds one.
func (n *Node) Remember(old []Answer) {
	var m answers
	for _, a := range old {
		if _, ok := n.answers.by[commandKey{a.Role, a.ID}]; !ok {
			m.remember(a)
		}
	}
	for _, a := range n.answers.list() {
		m.remember(a)
	}
	n.answers = m
}

// Command steps a command's event and asks for its reply, under ref. The reply is OK
// unless the controller refused it. A command with an id (the sender's, unique per
// command) acts once: every record it steps carries the id (CommandID), and a command
// with an id the node remembers is not stepped again; its reply is the first one
// (Reply.Repeat), rebuilt from the journal after a restart. A command that recorded
// nothing is not remembered: its repeat acts.
func (n *Node) Command(ref uint64, id string, ev round.Event) {
	role := ev.Role.String()
	if id != "" {
		if a, ok := n.answers.by[commandKey{role, id}]; ok {
			n.rd.Replies = append(n.rd.Replies, Reply{Ref: ref, At: a.At, OK: a.OK, Error: a.Error,
				Effects: slices.Clone(a.Effects), Repeat: true})
			return
		}
	}
	r := Reply{Ref: ref, OK: true, At: ev.At}
	from := len(n.rd.Records)
	n.capture = &r
	switch {
	case ev.Kind == round.NewShoe && ev.Set == "" && ev.Decks == 0 && !n.cfg.DealerStartsShoes && n.ctl.State().Phase == round.NoShoe:
		r.OK, r.Error = false, "no shoe is in play and no set was given: the next set loads when the shuffler reports it"
	case ev.Kind == round.NewShoe:
		n.NewShoe(ev)
	default:
		n.Step(ev)
	}
	n.capture = nil
	if id != "" && len(n.rd.Records) > from {
		cid := &CommandID{Role: role, ID: id, At: ev.At}
		for i := from; i < len(n.rd.Records); i++ {
			n.rd.Records[i].Command = cid
		}
		n.answers.remember(Answer{Role: role, ID: id, At: ev.At, OK: r.OK, Error: r.Error, Effects: slices.Clone(r.Effects)})
		if n.rd.Snapshot != nil {
			n.rd.Snapshot.Commands = n.answers.list() // the snapshot holds this reply too
		}
	}
	n.rd.Replies = append(n.rd.Replies, r)
}

// replayCommands rebuilds, record by record, the replies to the commands with ids from
// their records' effects, as Command made them.
type replayCommands struct {
	m    *answers
	cur  commandKey // the command whose records are being read
	skip bool       // its reply is known already (a snapshot holds it)
}

func (c *replayCommands) take(e Entry, effs []round.Effect) {
	if e.Event == nil || e.Command == nil {
		c.cur = commandKey{}
		return
	}
	k := commandKey{e.Command.Role, e.Command.ID}
	if k != c.cur {
		c.cur = k
		_, c.skip = c.m.by[k]
		if !c.skip {
			c.m.remember(Answer{Role: k.role, ID: k.id, At: e.Command.At, OK: true})
		}
	}
	if c.skip {
		return
	}
	a := c.m.by[k]
	for _, f := range effs {
		a.Effects = append(a.Effects, f.String())
		if f.Kind == round.EventRefused {
			a.OK, a.Error = false, f.Reason()
		}
	}
}
