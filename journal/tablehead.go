package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The table heads file (table-heads) holds heads that name their table (Checkpoint
// Table), one JSON object a line, in the order they were added. A table does not write
// it: the heads it signs for the batches it ships live at the floor's archive, which
// writes the one covering its last record into a journal it exports (AddTableHead), so
// that `tablectl journal verify --key` finds every record of the copy covered by a
// signature.
const tableHeadsName = "table-heads"

// AddTableHead appends a head that names its table, signed elsewhere, to the table heads
// file, and syncs it. The journal must hold record c.Seq, synced, with exactly the chain
// hash c.Hash. The signature is not checked here: `journal verify --key` checks it.
func (j *Journal) AddTableHead(c Checkpoint) error {
	if c.Table == "" {
		return fmt.Errorf("journal: add table head of record %d: it names no table (AddCheckpoint)", c.Seq)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.checkAdd(c); err != nil {
		return err
	}
	line, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("journal: add table head of record %d: %w", c.Seq, err)
	}
	path := filepath.Join(j.dir, tableHeadsName)
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return fmt.Errorf("journal: add table head of record %d: %w", c.Seq, err)
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && errors.Is(statErr, fs.ErrNotExist) {
		err = j.syncDir()
	}
	if err != nil {
		return j.fail(fmt.Errorf("journal: add table head of record %d: %w", c.Seq, err))
	}
	return nil
}

// TableHeads returns the heads of the table heads file, in the order they were added.
func (j *Journal) TableHeads() ([]Checkpoint, error) {
	return ReadTableHeads(filepath.Join(j.dir, tableHeadsName))
}

// ReadTableHeads reads a table heads file at path: none when it is missing. A line that
// is not a head naming its table is a *CorruptError naming the file and the byte.
func ReadTableHeads(path string) ([]Checkpoint, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: read table heads: %w", err)
	}
	var out []Checkpoint
	for off := 0; off < len(b); {
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 {
			end = len(b) - off
		}
		line := bytes.TrimSpace(b[off : off+end])
		if len(line) > 0 {
			var c Checkpoint
			if err := json.Unmarshal(line, &c); err != nil {
				return out, &CorruptError{File: tableHeadsName, Offset: int64(off), Reason: err.Error()}
			}
			if c.Table == "" {
				return out, &CorruptError{File: tableHeadsName, Offset: int64(off), Seq: c.Seq, Reason: "a head that names no table"}
			}
			out = append(out, c)
		}
		off += end + 1
	}
	return out, nil
}
