package archive

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMergeInserts: runs of one single-row INSERT become INSERTs of a power of two rows
// (at most maxMergeRows), the same rows in the same order; an UPDATE between two rows
// keeps them apart, so it changes only the row written before it, as it would have.
func TestMergeInserts(t *testing.T) {
	t.Parallel()
	const id = "pit1-bac01"
	cmd := func(seq int) stmt {
		return stmt{`INSERT INTO commands (table_id, seq, at, kind, role, actor, detail)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, []any{id, int64(seq), nil, "decide", "supervisor", "ann", ""}}
	}
	irr := func(seq int) stmt {
		return stmt{`INSERT INTO irregularities (table_id, seq, id, shoe, round, kind, rule, raised_at, reason, holds)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, []any{id, int64(seq), int64(7), int64(1), int64(2), "excess_card", "", nil, "", true}}
	}
	var stmts []stmt
	for seq := 1; seq <= 300; seq++ {
		stmts = append(stmts, cmd(seq))
	}
	stmts = append(stmts, irr(301),
		stmt{`UPDATE irregularities SET decision = $1, decided_seq = $2 WHERE table_id = $3 AND id = $4 AND decided_seq IS NULL`,
			[]any{"continue", int64(302), id, int64(7)}},
		irr(303), cmd(304),
		stmt{`INSERT INTO tables (table_id, last_seq, last_hash, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (table_id) DO UPDATE SET last_seq = excluded.last_seq`, []any{id, int64(304), []byte{1}, "2026-11-27T04:00:00.000000Z"}})

	merged := mergeInserts(stmts)
	var rows []int
	for _, s := range merged {
		n := strings.Count(s.query, "($")
		if strings.HasPrefix(s.query, "INSERT INTO commands") && n != len(s.args)/7 {
			t.Fatalf("%d rows and %d arguments in %.60s", n, len(s.args), s.query)
		}
		rows = append(rows, n)
	}
	// 300 = 128+128+32+8+4; then the irregularity, the UPDATE, the next irregularity and
	// the command after it (a run each); the upsert is left alone.
	if got, want := rows, []int{128, 128, 32, 8, 4, 1, 0, 1, 1, 1}; !slices.Equal(got, want) {
		t.Fatalf("rows per statement %v, want %v", got, want)
	}
	if merged[len(merged)-1].query != stmts[len(stmts)-1].query || merged[6].query != stmts[301].query {
		t.Fatal("a statement that is not a single-row INSERT was changed")
	}

	db := openDB(t, filepath.Join(t.TempDir(), "archive.db"))
	if err := db.write(context.Background(), stmts); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM commands WHERE table_id = $1`, id); n != 301 {
		t.Fatalf("%d commands, want 301", n)
	}
	if n := count(t, db, `SELECT SUM(seq) FROM commands`); n != 300*301/2+304 {
		t.Fatalf("the commands' numbers add up to %d", n)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM irregularities WHERE decided_seq IS NULL AND seq = 303`); n != 1 {
		t.Fatal("the UPDATE before irregularity 303 decided it too")
	}
	if n := count(t, db, `SELECT COUNT(*) FROM irregularities WHERE decided_seq = 302 AND seq = 301`); n != 1 {
		t.Fatal("the UPDATE did not decide irregularity 301")
	}
}
