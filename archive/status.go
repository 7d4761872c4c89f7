package archive

import (
	"context"
	"fmt"
	"time"

	"github.com/tablectl/tablectl/journal"
)

// Status is what the archive says of a table on the broker (api.ArchiveHeld): how far it
// holds it, when it last stored a record of it, and what it refused of it.
type Status struct {
	Held Position
	// Signed is the table's head, naming it, of the last record it signed that the
	// archive holds: the held message's (Seq 0: none yet). It is Held's but for records
	// stored before the archive asked for signed batches, until the table's next batch
	// covers them.
	Signed journal.Checkpoint
	// Written is the last record the table said it had written, in the last batch
	// stored.
	Written uint64
	// At is when the archive last stored a record of the table (zero: never).
	At time.Time
	// Alarms counts the table's items in quarantine; Latest is the newest (nil: none).
	Alarms int
	Latest *QuarantinedAlarm
}

// QuarantinedAlarm is an alarm with the time its item was received.
type QuarantinedAlarm struct {
	Alarm
	At time.Time
}

// Status returns table id's status. A table the archive holds nothing of has a zero
// Status, with the alarms of anything of it refused.
func (a *Archive) Status(ctx context.Context, id string) (Status, error) {
	var st Status
	// What is in memory is read under the lock, the database without it: a status
	// never waits for a group of batches being stored.
	a.mu.Lock()
	mem, inMemory := a.tables[id]
	var held, signed = Position{}, journal.Checkpoint{}
	var written uint64
	if inMemory {
		held, signed, written = mem.held, mem.signed, mem.written
	}
	a.mu.Unlock()
	row, err := a.tableRow(ctx, id)
	if err != nil {
		return Status{}, err
	}
	if inMemory {
		row.held, row.signed, row.written = held, signed, written
	}
	st.Held, st.Signed, st.Written, st.At = row.held, row.signed, row.written, row.at
	var at any
	if err := a.db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM quarantine WHERE table_id = $1`, id).Scan(&st.Alarms); err != nil {
		return Status{}, fmt.Errorf("archive: status of %s: quarantine: %w", id, err)
	}
	if st.Alarms == 0 {
		return st, nil
	}
	q := QuarantinedAlarm{Alarm: Alarm{Table: id}}
	var seq int64
	var kind string
	if err := a.db.sql.QueryRowContext(ctx, `SELECT item, seq, alarm, reason, received_at FROM quarantine
		WHERE table_id = $1 ORDER BY id DESC LIMIT 1`, id).Scan(&q.Item, &seq, &kind, &q.Reason, &at); err != nil {
		return Status{}, fmt.Errorf("archive: status of %s: quarantine: %w", id, err)
	}
	q.Seq, q.Kind = uint64(seq), AlarmKind(kind)
	if q.At, err = scanTime(at); err != nil {
		return Status{}, fmt.Errorf("archive: status of %s: quarantine: %w", id, err)
	}
	st.Latest = &q
	return st, nil
}

// scanTime reads a time column as either engine gives it: a time.Time from PostgreSQL,
// fixed-width UTC text from SQLite.
func scanTime(v any) (time.Time, error) {
	switch x := v.(type) {
	case nil:
		return time.Time{}, nil
	case time.Time:
		return x.UTC(), nil
	case string:
		return time.Parse(sqliteTime, x)
	case []byte:
		return time.Parse(sqliteTime, string(x))
	}
	return time.Time{}, fmt.Errorf("a time of type %T", v)
}

// Redact returns dsn with the password of a PostgreSQL URL hidden, for the log.
func Redact(dsn string) string { return redact(dsn) }
