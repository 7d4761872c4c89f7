package archive

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestartFromReplayState: an archive restarted after its tables' first shoes ended
// takes up from the state kept at each table's last shoe end, replaying only the records
// after it, and derives the very rows an archive that never stopped derives.
func TestRestartFromReplayState(t *testing.T) {
	t.Parallel()
	const tables, rounds, cut = 3, 150, 100 // a shoe is about 80 rounds
	var recs [tables][]Record
	var cutAt [tables]int // the records of the first cut rounds
	for i := range tables {
		g, first := newTableGen(t, genTableID(i), uint64(i)+1, genStart)
		recs[i] = []Record{first}
		for r := range rounds {
			if r == cut {
				cutAt[i] = len(recs[i])
			}
			recs[i] = g.round(t, recs[i])
		}
	}
	ingest := func(a *Archive, i int, rs []Record) {
		t.Helper()
		for len(rs) > 0 {
			n := min(50, len(rs))
			res, err := a.Ingest(context.Background(), genTableID(i), genBatch(t, genTableID(i), rs[:n]))
			if err != nil || res.Stored != n || len(res.Alarms) != 0 {
				t.Fatalf("table %s: %+v %v", genTableID(i), res, err)
			}
			rs = rs[n:]
		}
	}
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		// The archive that never stopped, on a database of its own.
		wholeDSN := filepath.Join(t.TempDir(), "whole.db")
		if EngineOf(dsn) == Postgres {
			wholeDSN = pg.NewDatabase(t)
		}
		whole := openDB(t, wholeDSN)
		a := New(whole, genKeys(tables), Options{Now: fixedNow})
		for i := range tables {
			ingest(a, i, recs[i])
		}

		db := openDB(t, dsn)
		a = New(db, genKeys(tables), Options{Now: fixedNow})
		for i := range tables {
			ingest(a, i, recs[i][:cutAt[i]])
		}
		var log bytes.Buffer
		a = New(db, genKeys(tables), Options{Now: fixedNow, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		for i := range tables {
			from, err := a.restoreState(ctx, genTableID(i), &deriver{db: db, table: genTableID(i)})
			if err != nil || from <= 1 || from > uint64(cutAt[i]) {
				t.Fatalf("table %s: replay from record %d, %v; want after a shoe's end before record %d", genTableID(i), from, err, cutAt[i])
			}
			ingest(a, i, recs[i][cutAt[i]:])
		}
		if log.Len() > 0 {
			t.Fatalf("the restarted archive logged:\n%s", log.String())
		}
		if got, want := allRows(t, db), allRows(t, whole); got != want {
			t.Fatalf("rows after the restart differ from the archive's that never stopped: %s", firstDiff(got, want))
		}
		if n := count(t, db, `SELECT COUNT(*) FROM rounds WHERE NOT void`); n != tables*rounds {
			t.Fatalf("%d rounds settled, want %d", n, tables*rounds)
		}
	})
}

// allRows reads every searchable row of every table as text, to compare archives.
func allRows(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT table_id, shoe, round, first_seq, last_seq, started_at, ended_at, player_cards, banker_cards, winner, player_points, banker_points, void, void_reason, settlements FROM rounds ORDER BY table_id, last_seq`,
		`SELECT table_id, seq, id, shoe, round, kind, rule, reason, holds, COALESCE(decision, ''), COALESCE(decided_seq, 0) FROM irregularities ORDER BY table_id, seq, id`,
		`SELECT table_id, seq, kind, role, actor, detail FROM commands ORDER BY table_id, seq`,
	} {
		rows, err := db.SQL().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if x, ok := v.([]byte); ok {
					vals[i] = string(x)
				}
			}
			fmt.Fprintln(&b, vals...)
		}
		rows.Close()
		b.WriteString("--\n")
	}
	return b.String()
}

// firstDiff returns the first line where got and want differ, with its number.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n%s\nwant\n%s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
