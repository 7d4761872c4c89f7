package daemon

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"github.com/tablectl/tablectl/journal"
)

// DefaultRememberedIDs is how many recent command ids CommandIDs keeps.
const DefaultRememberedIDs = 1024

// CommandIDsDir is where, inside the table's journal directory, the command ids are
// journalled.
const CommandIDsDir = "commands"

// CommandIDs remembers the replies to recent commands by role and id, in a journal of
// its own, so that a command delivered twice (MQTT QoS 1 delivers at least once) acts
// once and its repeat gets the first reply, across restarts too.
//
// Its journal form: each record is one JSON object. {"role","id","before"} is written,
// and synced, before the command is stepped: before is the table journal's last
// sequence number then. {"role","id","reply"} is written once the command is answered.
// A snapshot holds the remembered entries as a JSON array, and older records are
// compacted away. After a crash between the two records, Open looks at the table's
// journal: a record after before means the command was recorded, so a repeat is
// answered as done (the first reply was lost with the process); none means it never
// acted, and it is forgotten, so a repeat acts.
//
// It is used from one goroutine, the table's.
type CommandIDs struct {
	j     *journal.Journal
	max   int
	order []idKey // oldest first
	byKey map[idKey]*idEntry
	since int // records since the last snapshot
	log   *slog.Logger
}

type idKey struct{ role, id string }

type idEntry struct {
	reply   []byte // the first reply; nil while pending or when it was lost
	pending bool   // begun, not answered
	before  uint64
}

// idRecord is a record of the ids' journal, and an entry of its snapshot.
type idRecord struct {
	Role   string          `json:"role"`
	ID     string          `json:"id"`
	Before uint64          `json:"before,omitempty"`
	Reply  json.RawMessage `json:"reply,omitempty"`
	// Lost marks, in a snapshot, a command carried out whose reply was lost.
	Lost bool `json:"lost,omitempty"`
}

// OpenCommandIDs opens (or creates) the ids' journal in dir, keeping the max most recent
// ids (DefaultRememberedIDs when max <= 0). tableLast is the table journal's last
// sequence number, to settle a command begun and not answered before a crash.
func OpenCommandIDs(dir string, max int, tableLast uint64, log *slog.Logger) (*CommandIDs, error) {
	if max <= 0 {
		max = DefaultRememberedIDs
	}
	if log == nil {
		log = slog.Default()
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("command ids: %w", err)
	}
	j, rep, err := journal.Open(dir, journal.Options{Logger: log, SegmentSize: 1 << 20})
	if err != nil {
		return nil, fmt.Errorf("command ids %s: %w", dir, err)
	}
	if rep.Torn != nil {
		log.Warn("command ids: a torn tail left by a power cut was truncated", "file", rep.Torn.File, "bytes", rep.Torn.Bytes)
	}
	m := &CommandIDs{j: j, max: max, byKey: map[idKey]*idEntry{}, log: log}
	if err := m.load(tableLast); err != nil {
		return nil, fmt.Errorf("command ids %s: %w", dir, errjoin(err, j.Close()))
	}
	return m, nil
}

func errjoin(err, other error) error {
	if other != nil {
		return fmt.Errorf("%w (and closing: %v)", err, other)
	}
	return err
}

func (m *CommandIDs) load(tableLast uint64) error {
	from := uint64(1)
	seq, data, ok, err := m.j.Snapshot()
	if err != nil {
		return err
	}
	if ok {
		var rs []idRecord
		if err := json.Unmarshal(data, &rs); err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		for _, r := range rs {
			m.apply(r)
		}
		from = seq + 1
	}
	for rec, err := range m.j.Records(from) {
		if err != nil {
			return err
		}
		var r idRecord
		if err := json.Unmarshal(rec.Data, &r); err != nil {
			return fmt.Errorf("record %d: %w", rec.Seq, err)
		}
		m.apply(r)
	}
	for k, e := range m.byKey {
		if !e.pending {
			continue
		}
		if tableLast > e.before {
			e.pending = false // carried out; its reply was lost
			m.log.Warn("command ids: a command was carried out but its reply was not kept before a restart", "role", k.role, "id", k.id)
		} else {
			m.forget(k) // it never acted: a repeat acts
		}
	}
	return nil
}

// apply takes one record or snapshot entry into memory.
func (m *CommandIDs) apply(r idRecord) {
	k := idKey{r.Role, r.ID}
	e, ok := m.byKey[k]
	if !ok {
		e = &idEntry{}
		m.byKey[k] = e
		m.order = append(m.order, k)
	}
	switch {
	case r.Reply != nil:
		e.reply, e.pending = r.Reply, false
	case r.Lost:
		e.pending = false
	default:
		e.pending, e.before = true, r.Before
	}
	for len(m.order) > m.max {
		m.forget(m.order[0])
	}
}

func (m *CommandIDs) forget(k idKey) {
	delete(m.byKey, k)
	for i, o := range m.order {
		if o == k {
			m.order = append(m.order[:i], m.order[i+1:]...)
			break
		}
	}
}

// Seen reports whether the command of role with id was taken before, and its first
// reply: nil when that reply was lost in a restart (the command was carried out).
func (m *CommandIDs) Seen(role, id string) (reply []byte, seen bool) {
	e, ok := m.byKey[idKey{role, id}]
	if !ok || e.pending {
		return nil, false
	}
	return e.reply, true
}

// Begin records, durably, that the command of role with id is about to be stepped;
// tableLast is the table journal's last sequence number now.
func (m *CommandIDs) Begin(role, id string, tableLast uint64) error {
	return m.write(idRecord{Role: role, ID: id, Before: tableLast})
}

// Done records, durably, the reply to the command of role with id.
func (m *CommandIDs) Done(role, id string, reply []byte) error {
	if err := m.write(idRecord{Role: role, ID: id, Reply: reply}); err != nil {
		return err
	}
	if m.since >= m.max {
		return m.snapshot()
	}
	return nil
}

func (m *CommandIDs) write(r idRecord) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("command ids: %w", err)
	}
	if _, err := m.j.Append(b); err != nil {
		return fmt.Errorf("command ids: %w", err)
	}
	m.apply(r)
	m.since++
	return nil
}

// snapshot writes the remembered entries as the snapshot and compacts the records it
// covers away, so the ids' journal stays small.
func (m *CommandIDs) snapshot() error {
	rs := make([]idRecord, 0, len(m.order))
	for _, k := range m.order {
		e := m.byKey[k]
		r := idRecord{Role: k.role, ID: k.id, Reply: e.reply}
		switch {
		case e.pending:
			r.Before = e.before
		case e.reply == nil:
			r.Lost = true
		}
		rs = append(rs, r)
	}
	b, err := json.Marshal(rs)
	if err != nil {
		return fmt.Errorf("command ids: snapshot: %w", err)
	}
	if err := m.j.WriteSnapshot(m.j.LastSeq(), b); err != nil {
		return fmt.Errorf("command ids: snapshot: %w", err)
	}
	if _, err := m.j.Compact(); err != nil {
		return fmt.Errorf("command ids: compact: %w", err)
	}
	m.since = 0
	return nil
}

// Len is how many ids are remembered.
func (m *CommandIDs) Len() int { return len(m.order) }

// Close closes the ids' journal.
func (m *CommandIDs) Close() error { return m.j.Close() }
