package archive

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/journal"
)

// openAt opens dsn with its schema brought to version (not the newest), and closes it
// when the test ends.
func openAt(t *testing.T, dsn string, version int) *DB {
	t.Helper()
	ctx := context.Background()
	d := &DB{engine: EngineOf(dsn)}
	var err error
	if d.engine == Postgres {
		d.sql, err = sql.Open("pgx", dsn)
	} else {
		d.sql, err = sql.Open("sqlite", "file:"+dsn)
		d.sql.SetMaxOpenConns(1)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if _, err := d.sql.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version    BIGINT PRIMARY KEY,
		applied_at TIMESTAMPTZ NOT NULL
	)`); err != nil {
		t.Fatal(err)
	}
	if err := d.migrateTo(ctx, version); err != nil {
		t.Fatal(err)
	}
	if v, err := d.Version(ctx); err != nil || v != version {
		t.Fatalf("schema version %d, %v; want %d", v, err, version)
	}
	return d
}

// asVersion4 are the statements of rows as the archive of schema version 4 wrote them:
// no dealers, stills or tallies (version 6), no device events (version 7), rounds without their
// phases and dealer.
func asVersion4(rows []stmt) []stmt {
	var out []stmt
	for _, s := range rows {
		switch w := s.what(); {
		case strings.Contains(w, "stills") || strings.Contains(w, "dealers") || strings.Contains(w, "device_events") ||
			strings.Contains(w, "pace_hours") || strings.Contains(w, "alerts"):
			continue
		case w == "INSERT INTO rounds":
			s = stmt{`INSERT INTO rounds (table_id, shoe, round, first_seq, last_seq, started_at, ended_at,
				player_cards, banker_cards, winner, player_points, banker_points, void, void_reason, settlements)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`, s.args[:15]}
		case w == "INSERT INTO replay_state":
			s = stmt{`INSERT INTO replay_state (table_id, seq, settings, state) VALUES ($1, $2, $3, $4)
				ON CONFLICT (table_id) DO UPDATE SET seq = excluded.seq, settings = excluded.settings, state = excluded.state`, s.args[:4]}
		}
		out = append(out, s)
	}
	return out
}

// TestMigrateFromVersion4: a database at schema version 4, holding a table's records,
// its journal's heads, the rows derived from them and its tables row as the archive
// wrote them then (no signature), is migrated to the newest version at its opening: the table is
// held where it was, with no signature yet (signed_seq 0), and its export has no table
// head. A duplicate batch the table signs, of records held, sets the signature to its
// last record without storing anything (a restarted archive reads it back); one whose
// last record is below it leaves it; the export covers the records to it with the
// table's head. The journal shipped on is stored, its rows those of the report, its
// export the table's.
func TestMigrateFromVersion4(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	const k = 150
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		v4 := openAt(t, dsn, 4)
		der := &deriver{db: v4, table: fixtureTable}
		var stmts []stmt
		for _, r := range f.records[:k] {
			stmts = append(stmts, stmt{`INSERT INTO records (table_id, seq, hash, payload, received_at) VALUES ($1, $2, $3, $4, $5)`,
				[]any{fixtureTable, int64(r.Seq), r.Hash[:], r.Data, v4.ts(fixedNow())}})
			rows, err := der.take(r.Seq, r.Data)
			if err != nil {
				t.Fatal(err)
			}
			stmts = append(stmts, asVersion4(rows)...)
		}
		for _, c := range f.headsUpTo(k) {
			stmts = append(stmts, stmt{`INSERT INTO heads (table_id, seq, hash, sig, received_at) VALUES ($1, $2, $3, $4, $5)`,
				[]any{fixtureTable, int64(c.Seq), c.Hash[:], c.Sig, v4.ts(fixedNow())}})
		}
		held := Position{k, f.records[k-1].Hash}
		stmts = append(stmts, stmt{`INSERT INTO tables (table_id, last_seq, last_hash, updated_at) VALUES ($1, $2, $3, $4)`,
			[]any{fixtureTable, int64(held.Seq), held.Hash[:], v4.ts(fixedNow())}})
		if err := v4.write(ctx, stmts); err != nil {
			t.Fatal(err)
		}
		if _, err := v4.SQL().Exec(`SELECT signed_seq FROM tables`); err == nil {
			t.Fatal("the tables of version 4 have signed_seq")
		}
		if n := count(t, v4, `SELECT COUNT(*) FROM rounds`); n == 0 {
			t.Fatal("no rounds written under version 4: the test would prove little")
		}
		v4.Close()

		db := openDB(t, dsn)
		if v, err := db.Version(ctx); err != nil || v != SchemaVersion || SchemaVersion != 8 {
			t.Fatalf("schema version %d, %v; want 8", v, err)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM tables WHERE signed_seq = 0 AND signed_hash IS NULL AND sig IS NULL AND written = 0`); n != 1 {
			t.Fatal("the table's row after the migration has a signature")
		}
		a := newArchive(t, db, f.keys())
		if st, err := a.Status(ctx, fixtureTable); err != nil || st.Held != held || st.Signed.Seq != 0 || !st.At.Equal(fixedNow()) {
			t.Fatalf("Status after the migration: %+v, %v; want record %d held, no signature", st, err, k)
		}
		ex, err := Export(ctx, db, fixtureTable, filepath.Join(t.TempDir(), "before"))
		if err != nil || ex.Records != k || ex.Signed != 0 {
			t.Fatalf("export before a signed batch: %+v, %v; want %d records, none signed", ex, err, k)
		}

		signed := func(a *Archive, want uint64) {
			t.Helper()
			st, err := a.Status(ctx, fixtureTable)
			if err != nil || st.Held != held || st.Signed.Seq != want || st.Signed.Hash != f.records[want-1].Hash || !st.Signed.Verify(f.pub) {
				t.Fatalf("Status = %+v, %v; want record %d held, the table's head of record %d", st, err, k, want)
			}
			if n := count(t, db, `SELECT signed_seq FROM tables WHERE table_id = $1`, fixtureTable); n != int(want) {
				t.Fatalf("the table's row is signed to %d, want %d", n, want)
			}
		}
		for _, c := range []struct{ from, to, signed uint64 }{{1, 50, 50}, {1, 20, 50}, {k - 9, k, k}} {
			res := ingestBatch(t, a, fixtureTable, f.batch(t, c.from, c.to))
			if res.Stored != 0 || res.Duplicates != int(c.to-c.from+1) || len(res.Alarms) != 0 || res.Held != held {
				t.Fatalf("records %d to %d, held already: %+v", c.from, c.to, res)
			}
			signed(a, c.signed)
			if c.signed == 50 {
				dir := filepath.Join(t.TempDir(), "signed")
				ex, err := Export(ctx, db, fixtureTable, dir)
				if err != nil || ex.Records != k || ex.Signed != 50 {
					t.Fatalf("export signed to record 50: %+v, %v", ex, err)
				}
				ths, err := journal.ReadTableHeads(filepath.Join(dir, "table-heads"))
				if err != nil || len(ths) != 1 || ths[0].Seq != 50 || ths[0].Hash != f.records[49].Hash || !ths[0].Verify(f.pub) {
					t.Fatalf("the table heads exported: %+v, %v; want the table's head of record 50", ths, err)
				}
			}
		}
		if n := count(t, db, `SELECT COUNT(*) FROM records`); n != k {
			t.Fatalf("%d records after the batches held already, want %d", n, k)
		}
		a = newArchive(t, db, f.keys()) // restarted
		signed(a, k)
		ingestAll(t, a, f, 1<<62)
		checkRoundsAgainstReport(t, db, f)
		exportAndCompare(t, db, f)
	})
}
