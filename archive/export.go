package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"os"

	"github.com/tablectl/tablectl/journal"
)

// Records returns table id's records held, from sequence number from on, in order. An
// error ends the iteration.
func (a *Archive) Records(ctx context.Context, id string, from uint64) iter.Seq2[Record, error] {
	return a.db.Records(ctx, id, from)
}

// Records returns table id's records held, from sequence number from on, in order. An
// error ends the iteration.
func (d *DB) Records(ctx context.Context, id string, from uint64) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		rows, err := d.sql.QueryContext(ctx, `SELECT seq, hash, payload FROM records WHERE table_id = $1 AND seq >= $2 ORDER BY seq`,
			id, int64(from))
		if err != nil {
			yield(Record{}, fmt.Errorf("archive: records of %s: %w", id, err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			var r Record
			var seq int64
			var h []byte
			if err := rows.Scan(&seq, &h, &r.Data); err != nil {
				yield(Record{}, fmt.Errorf("archive: records of %s: %w", id, err))
				return
			}
			r.Seq = uint64(seq)
			copy(r.Hash[:], h)
			if !yield(r, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(Record{}, fmt.Errorf("archive: records of %s: %w", id, err))
		}
	}
}

// Heads returns table id's signed heads held, in order of their records.
func (d *DB) Heads(ctx context.Context, id string) ([]journal.Checkpoint, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT seq, hash, sig FROM heads WHERE table_id = $1 ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("archive: heads of %s: %w", id, err)
	}
	defer rows.Close()
	var out []journal.Checkpoint
	for rows.Next() {
		var c journal.Checkpoint
		var seq int64
		var h []byte
		if err := rows.Scan(&seq, &h, &c.Sig); err != nil {
			return nil, fmt.Errorf("archive: heads of %s: %w", id, err)
		}
		c.Seq = uint64(seq)
		copy(c.Hash[:], h)
		out = append(out, c)
	}
	return out, rows.Err()
}

// Exported is what Export wrote.
type Exported struct {
	// Records is the number of records, LastSeq the last one's number.
	Records int
	LastSeq uint64
	// Heads is the number of signed heads of the journal (unnamed).
	Heads int
	// Signed is the record the table's head naming it covers (0: none): every record up
	// to it is under the table's signature. Records after it, stored before the archive
	// asked for signed batches, are vouched for by their chain alone.
	Signed uint64
}

// Export writes table id's records and signed heads held into a new journal in dir,
// which must not exist or be empty: a journal `tablectl journal verify --key` calls
// intact, from which a replaced table starts. Each record is checked on the way: its
// chain hash must be the one the journal writes. A signed head of a record not held
// (the archive is behind the table) is left out. The table's head naming it, under
// which the archive holds its records, goes in the journal's table heads file, so that
// verify finds every record covered by the table's signature. Export only reads d: a
// reader (OpenReader) will do.
func Export(ctx context.Context, d *DB, id, dir string) (Exported, error) {
	var ex Exported
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return ex, fmt.Errorf("archive: export %s: %s is not empty", id, dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return ex, fmt.Errorf("archive: export %s: %w", id, err)
	}
	j, _, err := journal.Open(dir, journal.Options{})
	if err != nil {
		return ex, fmt.Errorf("archive: export %s: %w", id, err)
	}
	defer j.Close()
	for r, err := range d.Records(ctx, id, 1) {
		if err != nil {
			return ex, err
		}
		seq, err := j.AppendNoSync(r.Data)
		if err != nil {
			return ex, fmt.Errorf("archive: export %s: %w", id, err)
		}
		if seq != r.Seq {
			return ex, fmt.Errorf("archive: export %s: record %d held where record %d was due", id, r.Seq, seq)
		}
		if _, h := j.Head(); h != r.Hash {
			return ex, fmt.Errorf("archive: export %s: record %d: held hash %s, the journal writes %s", id, r.Seq, r.Hash, h)
		}
		ex.Records++
		ex.LastSeq = r.Seq
	}
	if ex.Records == 0 {
		return ex, fmt.Errorf("archive: export: no record of table %s held", id)
	}
	if err := j.Sync(); err != nil {
		return ex, fmt.Errorf("archive: export %s: %w", id, err)
	}
	heads, err := d.Heads(ctx, id)
	if err != nil {
		return ex, err
	}
	for _, c := range heads {
		if c.Seq > ex.LastSeq {
			break
		}
		if err := j.AddCheckpoint(c); err != nil {
			return ex, fmt.Errorf("archive: export %s: %w", id, err)
		}
		ex.Heads++
	}
	var seq int64
	var h, sig []byte
	err = d.sql.QueryRowContext(ctx, `SELECT signed_seq, signed_hash, sig FROM tables WHERE table_id = $1`, id).Scan(&seq, &h, &sig)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return ex, fmt.Errorf("archive: export %s: %w", id, err)
	}
	if err == nil && seq > 0 && uint64(seq) <= ex.LastSeq {
		c := journal.Checkpoint{Table: id, Seq: uint64(seq), Sig: sig}
		copy(c.Hash[:], h)
		if err := j.AddTableHead(c); err != nil {
			return ex, fmt.Errorf("archive: export %s: %w", id, err)
		}
		ex.Signed = c.Seq
	}
	if err := j.Close(); err != nil {
		return ex, fmt.Errorf("archive: export %s: %w", id, err)
	}
	return ex, nil
}
