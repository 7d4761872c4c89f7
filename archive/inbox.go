package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// The inbox keeps each batch as it came from the broker, committed before the broker
// is told it arrived, until the batch is stored (Ingest removes its row in the same
// transaction) or refused (Done). So a batch acknowledged to the broker is never lost,
// and one table's batches waiting to be stored never hold back another's: the broker's
// window of messages not yet acknowledged is shared by every table.

// InboxItem is one batch received: its row's id (set by Receive), its table, the topic
// and the payload as they came, and when.
type InboxItem struct {
	ID      int64
	Table   string
	Topic   string
	Payload []byte
	At      time.Time
}

// Receive keeps items in the inbox, in one transaction, and sets each one's ID in the
// order given. Nothing is kept after an error. It never waits for batches being stored
// (Ingest).
func (a *Archive) Receive(ctx context.Context, items []InboxItem) error {
	if len(items) == 0 {
		return nil
	}
	a.inboxMu.Lock()
	defer a.inboxMu.Unlock()
	if a.inbox < 0 {
		var last sql.NullInt64
		if err := a.db.sql.QueryRowContext(ctx, `SELECT MAX(id) FROM inbox`).Scan(&last); err != nil {
			return fmt.Errorf("archive: inbox: %w", err)
		}
		a.inbox = last.Int64
	}
	next := a.inbox
	stmts := make([]stmt, len(items))
	for i := range items {
		next++
		stmts[i] = stmt{query: `INSERT INTO inbox (id, table_id, topic, payload, received_at) VALUES ($1, $2, $3, $4, $5)`,
			args: []any{next, items[i].Table, items[i].Topic, items[i].Payload, a.db.ts(items[i].At)}}
	}
	if err := a.db.write(ctx, stmts); err != nil {
		a.inbox = -1
		return fmt.Errorf("archive: inbox: %w", err)
	}
	a.inbox = next
	for i := range items {
		items[i].ID = next - int64(len(items)-1-i)
	}
	return nil
}

// Inbox returns the batches kept in the inbox, in the order they came.
func (a *Archive) Inbox(ctx context.Context) ([]InboxItem, error) {
	rows, err := a.db.sql.QueryContext(ctx, `SELECT id, table_id, topic, payload, received_at FROM inbox ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("archive: inbox: %w", err)
	}
	defer rows.Close()
	var out []InboxItem
	for rows.Next() {
		var it InboxItem
		var at any
		if err := rows.Scan(&it.ID, &it.Table, &it.Topic, &it.Payload, &at); err != nil {
			return nil, fmt.Errorf("archive: inbox: %w", err)
		}
		if it.At, err = scanTime(at); err != nil {
			return nil, fmt.Errorf("archive: inbox: %w", err)
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// Done removes inbox row id: its batch was refused as malformed, or dropped.
func (a *Archive) Done(ctx context.Context, id int64) error {
	if err := a.db.write(ctx, a.inboxDone(id)); err != nil {
		return fmt.Errorf("archive: inbox row %d: %w", id, err)
	}
	return nil
}

// inboxDone is the statement removing inbox row id (none for 0).
func (a *Archive) inboxDone(id int64) []stmt {
	if id == 0 {
		return nil
	}
	return []stmt{{query: `DELETE FROM inbox WHERE id = $1`, args: []any{id}}}
}

// UnknownTable is what the archive counted of the batches of a table the keys file
// does not name (its id "" for the ids past Options.MaxUnknownTables, together).
type UnknownTable struct {
	Table          string
	First, Last    time.Time
	Batches, Bytes int64
}

// CountUnknown counts a batch of n bytes of table id, which the keys file does not
// name: one row a table id, up to Options.MaxUnknownTables of them, the rest together
// under the id "". Nothing of the batch is kept.
func (a *Archive) CountUnknown(ctx context.Context, id string, n int) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.countUnknown(ctx, id, n); err != nil {
		return fmt.Errorf("archive: table %s: %w", id, err)
	}
	return nil
}

func (a *Archive) countUnknown(ctx context.Context, id string, n int) error {
	if a.unknown == nil {
		rows, err := a.db.sql.QueryContext(ctx, `SELECT table_id FROM unknown_tables`)
		if err != nil {
			return fmt.Errorf("unknown tables: %w", err)
		}
		seen := map[string]bool{}
		for rows.Next() {
			var t string
			if err := rows.Scan(&t); err != nil {
				rows.Close()
				return fmt.Errorf("unknown tables: %w", err)
			}
			seen[t] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("unknown tables: %w", err)
		}
		a.unknown = seen
	}
	if !a.unknown[id] && len(a.unknown) >= a.opt.MaxUnknownTables {
		id = ""
	}
	now := a.db.ts(a.opt.Now())
	err := a.db.write(ctx, []stmt{{query: `INSERT INTO unknown_tables (table_id, first_at, last_at, batches, bytes)
		VALUES ($1, $2, $3, 1, $4)
		ON CONFLICT (table_id) DO UPDATE SET last_at = excluded.last_at, batches = unknown_tables.batches + 1,
			bytes = unknown_tables.bytes + excluded.bytes`, args: []any{id, now, now, int64(n)}}})
	if err != nil {
		return fmt.Errorf("unknown tables: %w", err)
	}
	a.unknown[id] = true
	return nil
}

// UnknownTables returns what was counted of tables the keys file does not name, by id.
func (a *Archive) UnknownTables(ctx context.Context) ([]UnknownTable, error) {
	rows, err := a.db.sql.QueryContext(ctx, `SELECT table_id, first_at, last_at, batches, bytes FROM unknown_tables ORDER BY table_id`)
	if err != nil {
		return nil, fmt.Errorf("archive: unknown tables: %w", err)
	}
	defer rows.Close()
	var out []UnknownTable
	for rows.Next() {
		var u UnknownTable
		var first, last any
		if err := rows.Scan(&u.Table, &first, &last, &u.Batches, &u.Bytes); err != nil {
			return nil, fmt.Errorf("archive: unknown tables: %w", err)
		}
		if u.First, err = scanTime(first); err == nil {
			u.Last, err = scanTime(last)
		}
		if err != nil {
			return nil, fmt.Errorf("archive: unknown tables: %w", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// Claim records that the database is archive id's, or checks that it is: a database
// holds the copy of one archive, and a second archive of another id is refused on it.
func (d *DB) Claim(ctx context.Context, archiveID string) error {
	var owner string
	err := d.sql.QueryRowContext(ctx, `SELECT value FROM archive_meta WHERE key = 'archive_id'`).Scan(&owner)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if err := d.write(ctx, []stmt{{query: `INSERT INTO archive_meta (key, value) VALUES ('archive_id', $1)`, args: []any{archiveID}}}); err != nil {
			return fmt.Errorf("archive: claim the database for archive %s: %w", archiveID, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("archive: the database's archive: %w", err)
	case owner != archiveID:
		return fmt.Errorf("archive: the database is archive %q's, this archive is %q: give each archive a database of its own", owner, archiveID)
	}
	return nil
}

// Refused reports whether err is the database refusing what it was given (a value it
// cannot hold, a constraint, a limit), not a fault of the connection or the server:
// trying the same again fails the same.
func Refused(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && len(pe.Code) == 5 {
		switch pe.Code[:2] {
		case "22", // data exception: a byte the encoding cannot hold, a value out of range
			"23", // integrity constraint
			"54": // program limit: a row or a value too big
			return true
		}
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 18, // SQLITE_TOOBIG
			19, // SQLITE_CONSTRAINT
			20, // SQLITE_MISMATCH
			25: // SQLITE_RANGE
			return true
		}
	}
	return false
}
