package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/table"
)

// oldCommandIDsDir is where older versions kept command ids: a journal of their own,
// inside the table's journal directory.
const oldCommandIDsDir = "commands"

// lostReply is the effect a repeat is answered with when its command was carried out and
// its first reply was not kept (before a restart, by an older version).
const lostReply = "repeat: carried out before a restart; its first reply was not kept"

// oldIDRecord is a record of the old journal of command ids, and an entry of its
// snapshot: {"role","id","before"} before the command was stepped, with before the
// table journal's last record number then; {"role","id","reply"} once it was answered;
// lost, in a snapshot, for a command carried out whose reply was lost.
type oldIDRecord struct {
	Role   string          `json:"role"`
	ID     string          `json:"id"`
	Before uint64          `json:"before,omitempty"`
	Reply  json.RawMessage `json:"reply,omitempty"`
	Lost   bool            `json:"lost,omitempty"`
}

// readOldCommandIDs reads the old journal of command ids in dir, if there is one, without
// changing it: the answers it holds, oldest first. A command begun and not answered is
// settled by the table journal, whose last record number is tableLast: a record after
// its before means the command was recorded (its reply was lost); none, that it never
// acted (it is forgotten, so a repeat acts). found is false when dir does not exist.
func readOldCommandIDs(dir string, tableLast uint64, log *slog.Logger) (old []table.Answer, found bool, err error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true, Logger: log})
	if err != nil {
		return nil, true, fmt.Errorf("command ids %s: %w", dir, err)
	}
	defer j.Close()
	type entry struct {
		rec     oldIDRecord
		pending bool
	}
	var order []string
	by := map[string]*entry{}
	apply := func(r oldIDRecord) {
		k := r.Role + "\x00" + r.ID
		e, ok := by[k]
		if !ok {
			e = &entry{}
			by[k] = e
			order = append(order, k)
		}
		switch {
		case r.Reply != nil || r.Lost:
			e.rec, e.pending = r, false
		default:
			e.rec, e.pending = r, true
		}
	}
	from := uint64(1)
	seq, data, ok, err := j.Snapshot()
	if err != nil {
		return nil, true, fmt.Errorf("command ids %s: %w", dir, err)
	}
	if ok {
		var rs []oldIDRecord
		if err := json.Unmarshal(data, &rs); err != nil {
			return nil, true, fmt.Errorf("command ids %s: snapshot: %w", dir, err)
		}
		for _, r := range rs {
			apply(r)
		}
		from = seq + 1
	}
	if j.LastSeq() >= from {
		for rec, err := range j.Records(from) {
			if err != nil {
				return nil, true, fmt.Errorf("command ids %s: %w", dir, err)
			}
			var r oldIDRecord
			if err := json.Unmarshal(rec.Data, &r); err != nil {
				return nil, true, fmt.Errorf("command ids %s: record %d: %w", dir, rec.Seq, err)
			}
			apply(r)
		}
	}
	for _, k := range order {
		e := by[k]
		a := table.Answer{Role: e.rec.Role, ID: e.rec.ID, OK: true}
		switch {
		case e.pending && tableLast <= e.rec.Before:
			continue // it never acted: a repeat acts
		case e.rec.Reply != nil:
			var r api.Reply
			if err := json.Unmarshal(e.rec.Reply, &r); err != nil {
				return nil, true, fmt.Errorf("command ids %s: the reply to %s %q: %w", dir, e.rec.Role, e.rec.ID, err)
			}
			a.At, a.OK, a.Error, a.Effects = r.At, r.OK, r.Error, r.Effects
		default:
			a.Effects = []string{lostReply}
		}
		old = append(old, a)
	}
	return old, true, nil
}

// readOldIDs hands the node the answers of an old journal of command ids, if the
// journal directory holds one: it is read at each start until a snapshot of the table's
// journal holds them (removeOldIDs).
func (d *Daemon) readOldIDs() error {
	dir := filepath.Join(d.cfg.JournalDir, oldCommandIDsDir)
	old, found, err := readOldCommandIDs(dir, d.j.LastSeq(), d.log)
	if err != nil || !found {
		return err
	}
	d.node.Remember(old)
	d.oldIDs = true
	d.log.Info("command ids: read the ids an older version kept apart; the table journal keeps them from the next snapshot", "dir", dir, "ids", len(old))
	return nil
}

// removeOldIDs removes the old journal of command ids once a snapshot holds its answers.
func (d *Daemon) removeOldIDs() {
	dir := filepath.Join(d.cfg.JournalDir, oldCommandIDsDir)
	if err := os.RemoveAll(dir); err != nil {
		d.log.Warn("command ids: the old journal of ids could not be removed; it is read again at the next start", "dir", dir, "err", err)
		return
	}
	d.oldIDs = false
	d.log.Info("command ids: the snapshot holds the ids an older version kept apart; their journal was removed", "dir", dir)
}
