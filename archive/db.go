package archive

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	_ "modernc.org/sqlite"           // the "sqlite" database/sql driver, pure Go
)

// Engine is a database engine the archive runs on.
type Engine string

// The engines.
const (
	Postgres Engine = "postgres"
	SQLite   Engine = "sqlite"
)

// DB is an archive database, its schema migrated to the newest version.
type DB struct {
	sql    *sql.DB
	engine Engine
	// copyMin is the fewest rows of a run of single-row INSERTs that PostgreSQL gets by
	// COPY (0: copyMinRows); the benchmarks set it to compare.
	copyMin int
}

// EngineOf tells which engine a --db value names: a postgres:// or postgresql:// URL
// is PostgreSQL, anything else a SQLite file's path.
func EngineOf(dsn string) Engine {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return Postgres
	}
	return SQLite
}

// OpenDB opens the database dsn names (see EngineOf), creating a SQLite file that is
// not there, and migrates its schema to the newest version.
func OpenDB(ctx context.Context, dsn string) (*DB, error) {
	if dsn == "" {
		return nil, errors.New("archive: no database given (want a SQLite file's path or a postgres:// URL)")
	}
	d := &DB{engine: EngineOf(dsn)}
	var err error
	switch d.engine {
	case Postgres:
		d.sql, err = sql.Open("pgx", dsn)
		if err == nil {
			boundConns(d.sql)
		}
	default:
		// WAL lets readers read while the archive writes; synchronous=FULL makes each
		// commit durable before the archive says it holds the records.
		d.sql, err = sql.Open("sqlite", "file:"+dsn+
			"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)&_txlock=immediate")
		// One connection: SQLite has one writer, and the archive writes from one place.
		d.sql.SetMaxOpenConns(1)
	}
	if err != nil {
		return nil, fmt.Errorf("archive: open %s: %w", redact(dsn), err)
	}
	if err := d.sql.PingContext(ctx); err != nil {
		d.sql.Close()
		return nil, fmt.Errorf("archive: open %s: %w", redact(dsn), err)
	}
	if err := d.migrate(ctx); err != nil {
		d.sql.Close()
		return nil, fmt.Errorf("archive: %s: %w", redact(dsn), err)
	}
	return d, nil
}

// maxPostgresConns is the most connections an archive or a reader opens to PostgreSQL.
// A floor of 500 tables asks for each table's status at once: unbounded, the pool would
// open a connection each and meet the server's max_connections (100 by default), and
// the status past it would fail. Bounded, a query waits for a free connection. The
// archive never holds one connection while it waits for another: on SQLite it runs on
// one alone.
const maxPostgresConns = 16

// boundConns bounds db's pool to maxPostgresConns, all kept open between queries.
func boundConns(db *sql.DB) {
	db.SetMaxOpenConns(maxPostgresConns)
	db.SetMaxIdleConns(maxPostgresConns)
}

// Close closes the database.
func (d *DB) Close() error { return d.sql.Close() }

// Engine returns the database's engine.
func (d *DB) Engine() Engine { return d.engine }

// SQL returns the database, for searches of the rows the archive keeps.
func (d *DB) SQL() *sql.DB { return d.sql }

// Version returns the schema version the database is at.
func (d *DB) Version(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := d.sql.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("archive: schema version: %w", err)
	}
	return int(v.Int64), nil
}

// ts is a time as the engine stores it: PostgreSQL a timestamptz, SQLite a text in UTC
// whose order is the times' (fixed width, microseconds). The zero time is NULL.
func (d *DB) ts(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	if d.engine == Postgres {
		return t.UTC()
	}
	return t.UTC().Format(sqliteTime)
}

// sqliteTime is the layout of a time in a SQLite archive.
const sqliteTime = "2006-01-02T15:04:05.000000Z"

// TimeArg returns t as the database's time columns take it in a query's argument, for
// searches by time range.
func (d *DB) TimeArg(t time.Time) any { return d.ts(t) }

// write runs stmts, in order, in one transaction: it returns nil once the transaction
// is committed, and after an error none of them took effect.
//
// PostgreSQL gets them in one round trip (and one more to prepare a statement not yet
// prepared on the connection): a pipeline with a single Sync, which the server runs as
// one implicit transaction, committed at the Sync (or rolled back whole on the first
// error). The answer to the Sync comes after the commit is durable (synchronous_commit).
// Its single-row INSERTs are written many rows to a statement (mergeInserts); a run of
// copyMinRows rows or more is written by COPY instead, in an explicit transaction of
// its own round trips (copyPipeline). SQLite,
// in process, runs them in a transaction of database/sql, each query prepared once.
//
// Every text argument is written as the database can hold it (storable): a table may
// journal any byte, and its records are kept whole as BYTEA, but a NUL or a byte that is
// not UTF-8 in a row's text would stop PostgreSQL from storing the row.
func (d *DB) write(ctx context.Context, stmts []stmt) error {
	if len(stmts) == 0 {
		return nil
	}
	for _, s := range stmts {
		for i, a := range s.args {
			if t, ok := a.(string); ok {
				s.args[i] = storable(t)
			}
		}
	}
	if d.engine == Postgres {
		return d.pipeline(ctx, stmts)
	}
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Each query is parsed once a transaction and run for each of its rows. SQLite finds
	// a numbered parameter by a walk of the ones before it: a merged INSERT of n rows
	// would cost n² to parse.
	prepared := map[string]*sql.Stmt{} // closed with tx
	for _, s := range stmts {
		p, ok := prepared[s.query]
		if !ok {
			if p, err = tx.PrepareContext(ctx, s.query); err != nil {
				return fmt.Errorf("%s: %w", s.what(), err)
			}
			prepared[s.query] = p
		}
		if _, err := p.ExecContext(ctx, s.args...); err != nil {
			return fmt.Errorf("%s: %w", s.what(), err)
		}
	}
	return tx.Commit()
}

// pipeline sends stmts to PostgreSQL as one pgx batch, outside any transaction block:
// the batch is the transaction. Its single-row INSERTs are merged (mergeInserts). With a
// run long enough for COPY, it is a transaction of COPYs and batches (copyPipeline).
func (d *DB) pipeline(ctx context.Context, stmts []stmt) error {
	c, err := d.sql.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		if st := pc.PgConn().TxStatus(); st != 'I' {
			return fmt.Errorf("the connection is in a transaction (status %q)", st)
		}
		if segs := segments(stmts, cmp.Or(d.copyMin, copyMinRows)); len(segs) > 1 || len(segs) == 1 && segs[0].copy != nil {
			return copyPipeline(ctx, pc, segs)
		}
		stmts := mergeInserts(stmts)
		var b pgx.Batch
		for _, s := range stmts {
			b.Queue(s.query, s.args...)
		}
		br := pc.SendBatch(ctx, &b)
		for _, s := range stmts {
			if _, err := br.Exec(); err != nil {
				br.Close()
				return fmt.Errorf("%s: %w", s.what(), err)
			}
		}
		return br.Close()
	})
}

// redact hides a password in a PostgreSQL URL.
func redact(dsn string) string {
	if EngineOf(dsn) != Postgres {
		return dsn
	}
	at := strings.LastIndex(dsn, "@")
	scheme := strings.Index(dsn, "://") + 3
	if at < 0 {
		return dsn
	}
	if colon := strings.Index(dsn[scheme:at], ":"); colon >= 0 {
		return dsn[:scheme+colon] + ":xxxxx" + dsn[at:]
	}
	return dsn
}

// storable returns s as a text column holds it on every engine: each byte that is not
// UTF-8 as U+FFFD, and each control character but tab and newline (NUL among them,
// which PostgreSQL's text cannot hold) written out as \u and its four hex digits, so a
// reader of the row sees it was there. The record itself keeps the bytes as they came.
func storable(s string) string {
	for i, r := range s {
		if control(r) || r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			var b strings.Builder
			// Ranging over s gives U+FFFD for each byte that is not UTF-8, one a byte
			// (strings.ToValidUTF8 would give one for a run of them).
			for _, r := range s {
				if control(r) {
					fmt.Fprintf(&b, "\\u%04x", r)
				} else {
					b.WriteRune(r)
				}
			}
			return b.String()
		}
	}
	return s
}

// control reports whether r is a control character a text row does not keep as it is:
// C0 but tab and newline, DEL and C1.
func control(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f
}
