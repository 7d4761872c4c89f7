package archive

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations are the schema's versions, in order: migration i brings the schema to
// version i+1. Each runs in one transaction with the row of schema_version that records
// it. A migration is never changed once released: a change of schema is a new one.
//
// The same statements run on PostgreSQL and SQLite: SQLite takes the PostgreSQL type
// names (BYTEA and TIMESTAMPTZ keep what they are given; the archive writes a SQLite
// time as fixed-width UTC text, whose order is the times').
var migrations = [][]string{
	// 1: records as received, signed heads, quarantine, and the rows to search.
	{
		`CREATE TABLE tables (
			table_id   TEXT PRIMARY KEY,
			last_seq   BIGINT NOT NULL,
			last_hash  BYTEA NOT NULL,
			updated_at TIMESTAMPTZ NOT NULL
		)`,
		`CREATE TABLE records (
			table_id    TEXT NOT NULL,
			seq         BIGINT NOT NULL,
			hash        BYTEA NOT NULL,
			payload     BYTEA NOT NULL,
			received_at TIMESTAMPTZ NOT NULL,
			PRIMARY KEY (table_id, seq)
		)`,
		`CREATE TABLE heads (
			table_id    TEXT NOT NULL,
			seq         BIGINT NOT NULL,
			hash        BYTEA NOT NULL,
			sig         BYTEA NOT NULL,
			received_at TIMESTAMPTZ NOT NULL,
			PRIMARY KEY (table_id, seq)
		)`,
		`CREATE TABLE quarantine (
			id          BIGINT PRIMARY KEY,
			table_id    TEXT NOT NULL,
			item        TEXT NOT NULL,
			seq         BIGINT NOT NULL,
			hash        BYTEA NOT NULL,
			payload     BYTEA,
			sig         BYTEA,
			alarm       TEXT NOT NULL,
			reason      TEXT NOT NULL,
			received_at TIMESTAMPTZ NOT NULL
		)`,
		`CREATE INDEX quarantine_table_time ON quarantine (table_id, received_at)`,
		`CREATE TABLE rounds (
			table_id      TEXT NOT NULL,
			shoe          BIGINT NOT NULL,
			round         BIGINT NOT NULL,
			first_seq     BIGINT NOT NULL,
			last_seq      BIGINT NOT NULL,
			started_at    TIMESTAMPTZ,
			ended_at      TIMESTAMPTZ NOT NULL,
			player_cards  TEXT NOT NULL,
			banker_cards  TEXT NOT NULL,
			winner        TEXT NOT NULL,
			player_points BIGINT NOT NULL,
			banker_points BIGINT NOT NULL,
			void          BOOLEAN NOT NULL,
			void_reason   TEXT NOT NULL,
			settlements   TEXT NOT NULL,
			PRIMARY KEY (table_id, last_seq)
		)`,
		`CREATE INDEX rounds_table_time ON rounds (table_id, ended_at)`,
		`CREATE INDEX rounds_time ON rounds (ended_at)`,
		`CREATE INDEX rounds_table_shoe ON rounds (table_id, shoe, round)`,
		`CREATE TABLE irregularities (
			table_id        TEXT NOT NULL,
			seq             BIGINT NOT NULL,
			id              BIGINT NOT NULL,
			shoe            BIGINT NOT NULL,
			round           BIGINT NOT NULL,
			kind            TEXT NOT NULL,
			rule            TEXT NOT NULL,
			raised_at       TIMESTAMPTZ,
			reason          TEXT NOT NULL,
			holds           BOOLEAN NOT NULL,
			decision        TEXT,
			decided_role    TEXT,
			decided_by      TEXT,
			decided_at      TIMESTAMPTZ,
			decision_reason TEXT,
			decided_seq     BIGINT,
			PRIMARY KEY (table_id, seq, id)
		)`,
		`CREATE INDEX irregularities_table_time ON irregularities (table_id, raised_at)`,
		`CREATE INDEX irregularities_kind_time ON irregularities (kind, raised_at)`,
		`CREATE INDEX irregularities_decision_time ON irregularities (decision, raised_at)`,
		`CREATE INDEX irregularities_person ON irregularities (decided_by, decided_at)`,
		`CREATE TABLE commands (
			table_id TEXT NOT NULL,
			seq      BIGINT NOT NULL,
			at       TIMESTAMPTZ,
			kind     TEXT NOT NULL,
			role     TEXT NOT NULL,
			actor    TEXT NOT NULL,
			detail   TEXT NOT NULL,
			PRIMARY KEY (table_id, seq)
		)`,
		`CREATE INDEX commands_table_time ON commands (table_id, at)`,
		`CREATE INDEX commands_person ON commands (actor, at)`,
	},
	// 2: a round's irregularities found by its table, shoe and number (the searches of
	// archive/search.go).
	{
		`CREATE INDEX irregularities_round ON irregularities (table_id, shoe, round)`,
	},
	// 3: the state of the controller replaying a table's records, at its last shoe's
	// end, so that a restart replays only the records after it.
	{
		`CREATE TABLE replay_state (
			table_id TEXT PRIMARY KEY,
			seq      BIGINT NOT NULL,
			settings TEXT NOT NULL,
			state    TEXT NOT NULL
		)`,
	},
	// 4: the rounds in the order of a search (archive/search.go), so that a page of
	// them is read from the index, not sorted from every round in its range. It begins
	// with ended_at, so it serves what rounds_time did.
	{
		`CREATE INDEX rounds_order ON rounds (ended_at, table_id, shoe, round, last_seq)`,
		`DROP INDEX rounds_time`,
	},
	// 5: a table's records held under its signature: the table's head, naming it, of
	// the last record it signed and the archive holds (a table's records stored before
	// have none until its next batch covers them), and how far it had written; the
	// inbox of batches received and not yet stored; the tables not in the keys file,
	// counted; the archive whose database it is.
	{
		`ALTER TABLE tables ADD COLUMN signed_seq BIGINT NOT NULL DEFAULT 0`,
		`ALTER TABLE tables ADD COLUMN signed_hash BYTEA`,
		`ALTER TABLE tables ADD COLUMN sig BYTEA`,
		`ALTER TABLE tables ADD COLUMN written BIGINT NOT NULL DEFAULT 0`,
		`CREATE TABLE inbox (
			id          BIGINT PRIMARY KEY,
			table_id    TEXT NOT NULL,
			topic       TEXT NOT NULL,
			payload     BYTEA NOT NULL,
			received_at TIMESTAMPTZ NOT NULL
		)`,
		`CREATE TABLE unknown_tables (
			table_id TEXT PRIMARY KEY,
			first_at TIMESTAMPTZ NOT NULL,
			last_at  TIMESTAMPTZ NOT NULL,
			batches  BIGINT NOT NULL,
			bytes    BIGINT NOT NULL
		)`,
		`CREATE TABLE archive_meta (
			key   TEXT PRIMARY KEY,
			value TEXT NOT NULL
		)`,
	},
	// 6: the pit's figures (docs/pit.md): each round's phases and its dealer, the
	// dealers' stints at the tables, the stretches a table stood still, and the table's
	// pit; the deriver's open stint and stretch kept with its replay state; the alerts
	// the console raised and their acknowledgements (alert.go), found by time, by table
	// and time, and those still open by time; the rounds' hourly tallies.
	{
		`ALTER TABLE rounds ADD COLUMN dealer TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE rounds ADD COLUMN opened_at TIMESTAMPTZ`,
		`ALTER TABLE rounds ADD COLUMN first_card_at TIMESTAMPTZ`,
		`ALTER TABLE rounds ADD COLUMN complete_at TIMESTAMPTZ`,
		`ALTER TABLE rounds ADD COLUMN windows_ms BIGINT NOT NULL DEFAULT 0`,
		`ALTER TABLE rounds ADD COLUMN held_ms BIGINT NOT NULL DEFAULT 0`,
		`ALTER TABLE rounds ADD COLUMN held_after_ms BIGINT NOT NULL DEFAULT 0`,
		`CREATE INDEX rounds_dealer_time ON rounds (dealer, ended_at)`,
		`CREATE TABLE dealers (
			table_id TEXT NOT NULL,
			on_seq   BIGINT NOT NULL,
			dealer   TEXT NOT NULL,
			on_at    TIMESTAMPTZ,
			on_role  TEXT NOT NULL,
			on_by    TEXT NOT NULL,
			off_seq  BIGINT,
			off_at   TIMESTAMPTZ,
			off_role TEXT,
			off_by   TEXT,
			off_note TEXT,
			PRIMARY KEY (table_id, on_seq)
		)`,
		`CREATE INDEX dealers_dealer_time ON dealers (dealer, on_at)`,
		`CREATE INDEX dealers_time ON dealers (on_at)`,
		`CREATE TABLE stills (
			table_id TEXT NOT NULL,
			seq      BIGINT NOT NULL,
			why      TEXT NOT NULL,
			from_at  TIMESTAMPTZ NOT NULL,
			to_at    TIMESTAMPTZ,
			PRIMARY KEY (table_id, seq, why)
		)`,
		`CREATE INDEX stills_time ON stills (from_at)`,
		`CREATE INDEX stills_table_time ON stills (table_id, from_at)`,
		`ALTER TABLE tables ADD COLUMN pit TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE replay_state ADD COLUMN derived TEXT NOT NULL DEFAULT ''`,
		`CREATE TABLE alerts (
			id          TEXT PRIMARY KEY,
			table_id    TEXT NOT NULL,
			pit         TEXT NOT NULL,
			kind        TEXT NOT NULL,
			since       TIMESTAMPTZ NOT NULL,
			raised_at   TIMESTAMPTZ NOT NULL,
			text        TEXT NOT NULL,
			ack_by      TEXT,
			ack_role    TEXT,
			ack_at      TIMESTAMPTZ,
			ack_note    TEXT,
			received_at TIMESTAMPTZ NOT NULL
		)`,
		`CREATE INDEX alerts_time ON alerts (raised_at)`,
		`CREATE INDEX alerts_table_time ON alerts (table_id, raised_at)`,
		`CREATE INDEX alerts_open ON alerts (raised_at) WHERE ack_at IS NULL`,
		// The rounds' hourly tallies (pace.go), for the pace figures. The rounds derived
		// before are tallied one end time each (hour_at is a time in the hour, its start
		// for the rounds derived from now on): they have no phases, and a void one has no
		// time the figures credit it to.
		`CREATE TABLE pace_hours (
			table_id   TEXT NOT NULL,
			dealer     TEXT NOT NULL,
			hour_at    TIMESTAMPTZ NOT NULL,
			rounds     BIGINT NOT NULL,
			void       BIGINT NOT NULL,
			betting_n  BIGINT NOT NULL,
			betting_us BIGINT NOT NULL,
			dealing_n  BIGINT NOT NULL,
			dealing_us BIGINT NOT NULL,
			confirm_n  BIGINT NOT NULL,
			confirm_us BIGINT NOT NULL,
			windows_us BIGINT NOT NULL,
			holds_us   BIGINT NOT NULL,
			PRIMARY KEY (table_id, hour_at, dealer)
		)`,
		`CREATE INDEX pace_hours_time ON pace_hours (hour_at)`,
		`CREATE INDEX pace_hours_dealer ON pace_hours (dealer, hour_at)`,
		`INSERT INTO pace_hours (table_id, dealer, hour_at, rounds, void, betting_n, betting_us, dealing_n, dealing_us,
			confirm_n, confirm_us, windows_us, holds_us)
			SELECT table_id, dealer, ended_at, COUNT(*), 0, 0, 0, 0, 0, 0, 0, 0, 0 FROM rounds
			WHERE NOT void AND (player_cards <> '' OR banker_cards <> '') GROUP BY table_id, dealer, ended_at`,
	},
	// 7: the devices' events (docs/pit.md, "Devices"): the shoe's unreadable and missed
	// cards, its restarts, the devices' faults and reports, the shuffler's sets and their
	// delays, and each disconnect with its end. The devices down and the last shoe's end
	// are kept with the replay state.
	{
		`CREATE TABLE device_events (
			table_id TEXT NOT NULL,
			seq      BIGINT NOT NULL,
			at       TIMESTAMPTZ,
			device   TEXT NOT NULL,
			kind     TEXT NOT NULL,
			detail   TEXT NOT NULL,
			cards    BIGINT NOT NULL DEFAULT 0,
			delay_ms BIGINT,
			until_at TIMESTAMPTZ,
			PRIMARY KEY (table_id, seq, kind)
		)`,
		`CREATE INDEX device_events_table_time ON device_events (table_id, at)`,
		`CREATE INDEX device_events_time ON device_events (at)`,
	},
	// 8: the integrity watch (docs/integrity.md): each set a table dealt, its order as
	// read (burns included, a card a byte: baccarat.Card.Index) and the shuffler's
	// report of it; the keys of its runs (integrity.Keys), found by key; the evidence of
	// an alarm the archive raised, kept with the alerts; the alerts found by kind.
	{
		`CREATE TABLE shoes (
			id         BIGINT PRIMARY KEY,
			table_id   TEXT NOT NULL,
			shoe       BIGINT NOT NULL,
			first_seq  BIGINT NOT NULL,
			last_seq   BIGINT NOT NULL,
			set_name   TEXT NOT NULL,
			decks      BIGINT NOT NULL,
			started_at TIMESTAMPTZ NOT NULL,
			ended_at   TIMESTAMPTZ NOT NULL,
			dealt      BYTEA NOT NULL,
			set_cards  BIGINT,
			set_order  BYTEA
		)`,
		`CREATE UNIQUE INDEX shoes_table_seq ON shoes (table_id, first_seq)`,
		`CREATE INDEX shoes_time ON shoes (ended_at)`,
		`CREATE INDEX shoes_table_time ON shoes (table_id, ended_at)`,
		`CREATE TABLE shoe_keys (
			key  BIGINT NOT NULL,
			shoe BIGINT NOT NULL,
			pos  SMALLINT NOT NULL
		)`,
		`CREATE INDEX shoe_keys_key ON shoe_keys (key)`,
		`ALTER TABLE alerts ADD COLUMN evidence TEXT`,
		`CREATE INDEX alerts_kind_time ON alerts (kind, raised_at)`,
	},
}

// SchemaVersion is the newest schema version this archive knows.
var SchemaVersion = len(migrations)

// migrate brings the schema to SchemaVersion. A database of a newer version (written by
// a newer tablectl) is refused rather than used.
func (d *DB) migrate(ctx context.Context) error {
	if _, err := d.sql.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version    BIGINT PRIMARY KEY,
		applied_at TIMESTAMPTZ NOT NULL
	)`); err != nil {
		return fmt.Errorf("schema_version: %w", err)
	}
	return d.migrateTo(ctx, len(migrations))
}

// migrateTo applies the migrations up to version to.
func (d *DB) migrateTo(ctx context.Context, to int) error {
	have, err := d.Version(ctx)
	if err != nil {
		return err
	}
	if have > len(migrations) {
		return fmt.Errorf("the schema is at version %d, newer than this tablectl knows (%d): use a newer tablectl", have, len(migrations))
	}
	for v := have + 1; v <= to; v++ {
		if err := d.apply(ctx, v); err != nil {
			return fmt.Errorf("migration to schema version %d: %w", v, err)
		}
	}
	return nil
}

func (d *DB) apply(ctx context.Context, v int) error {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, stmt := range migrations[v-1] {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%w\n%s", err, stmt)
		}
	}
	// Two archives starting on a new database at once: the second's insert fails on the
	// primary key, and its transaction with it.
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)`,
		v, d.ts(nowUTC())); err != nil {
		return err
	}
	return tx.Commit()
}

// queryer is what both *sql.DB and *sql.Tx offer.
type queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}
