package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
)

// OpenReader opens the archive dsn names (see EngineOf) for searches only: nothing is
// created or migrated, a SQLite file is opened read-only, and a PostgreSQL session is
// read-only (give it a role that may only SELECT, docs/archive.md). The archive must
// be there already, its schema at a version this tablectl knows.
func OpenReader(ctx context.Context, dsn string) (*DB, error) {
	if dsn == "" {
		return nil, errors.New("archive: no database given (want a SQLite file's path or a postgres:// URL)")
	}
	d := &DB{engine: EngineOf(dsn)}
	var err error
	switch d.engine {
	case Postgres:
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		// pgx passes a parameter it does not know to the server as the session's.
		d.sql, err = sql.Open("pgx", dsn+sep+"default_transaction_read_only=on")
	default:
		if _, serr := os.Stat(dsn); serr != nil {
			return nil, fmt.Errorf("archive: open %s: %w", dsn, serr)
		}
		d.sql, err = sql.Open("sqlite", "file:"+dsn+"?mode=ro&_pragma=busy_timeout(10000)")
	}
	if err != nil {
		return nil, fmt.Errorf("archive: open %s: %w", redact(dsn), err)
	}
	if err := d.sql.PingContext(ctx); err != nil {
		d.sql.Close()
		return nil, fmt.Errorf("archive: open %s: %w", redact(dsn), err)
	}
	v, err := d.Version(ctx)
	if err == nil && v == 0 {
		err = errors.New("the archive has no schema yet: start tablectl archive on it first")
	}
	if err == nil && v > SchemaVersion {
		err = fmt.Errorf("the schema is at version %d, newer than this tablectl knows (%d): use a newer tablectl", v, SchemaVersion)
	}
	if err != nil {
		d.sql.Close()
		return nil, fmt.Errorf("archive: %s: %w", redact(dsn), err)
	}
	return d, nil
}
