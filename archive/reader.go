package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// OpenReader opens the archive dsn names (see EngineOf) for reading only: a report, an
// export, the console's History, any analysis. Nothing is created or migrated, a SQLite
// file is opened read-only, and a PostgreSQL session is read-only, so a role that may
// only SELECT reads it (docs/archive.md). The archive's schema must be at the version
// this tablectl reads, SchemaVersion, and no other: an older one may lack what a
// reader reads (Export reads the table's signed head, which version 5 added), so it is
// refused before anything is read, with the word to start tablectl-floor archive of this
// version on it once; a newer one is refused with the word to use a newer tablectl. An
// error names the database, its password hidden.
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
		if err == nil {
			boundConns(d.sql)
		}
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
	if err := d.readable(ctx); err != nil {
		d.sql.Close()
		return nil, fmt.Errorf("archive: %s: %w", redact(dsn), err)
	}
	return d, nil
}

// readable checks that the schema is at the version this tablectl reads.
func (d *DB) readable(ctx context.Context) error {
	v, err := d.Version(ctx)
	switch {
	case noSchema(err):
		return errors.New("the database holds no archive yet (no schema_version table): start tablectl-floor archive on it first, which creates it")
	case noPrivilege(err):
		return fmt.Errorf("%w: the role may not read the archive's tables: grant it USAGE ON SCHEMA public and SELECT ON ALL TABLES (docs/archive.md, \"PostgreSQL on Debian\")", err)
	case err != nil:
		return err
	case v == 0:
		return errors.New("the database holds no archive yet (schema version 0): start tablectl-floor archive on it first, which creates it")
	case v < SchemaVersion:
		return fmt.Errorf("the archive's schema is at version %d, this tablectl reads version %d: start tablectl-floor archive of this version on it once, which migrates it", v, SchemaVersion)
	case v > SchemaVersion:
		return fmt.Errorf("the archive's schema is at version %d, this tablectl reads version %d: use a newer tablectl", v, SchemaVersion)
	}
	return nil
}

// noSchema reports whether err says the schema_version table is not there.
func noSchema(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "42P01" // undefined_table
	}
	return err != nil && strings.Contains(err.Error(), "no such table")
}

// noPrivilege reports whether err is PostgreSQL's refusal of a role's access.
func noPrivilege(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42501" // insufficient_privilege
}
