package archive

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// copyCase is a transaction's statements: 300 commands (a run long enough for COPY),
// an irregularity, an UPDATE that decides it, a second irregularity, 10 commands (a
// short run), then 300 commands again.
func copyCase(id string) []stmt {
	cmd := func(seq int) stmt {
		return stmt{`INSERT INTO commands (table_id, seq, at, kind, role, actor, detail)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, []any{id, int64(seq), nil, "decide", "supervisor", "ann", fmt.Sprint("c", seq)}}
	}
	irr := func(seq int) stmt {
		return stmt{`INSERT INTO irregularities (table_id, seq, id, shoe, round, kind, rule, raised_at, reason, holds)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, []any{id, int64(seq), int64(seq), int64(1), int64(2), "excess_card", "", nil, "", true}}
	}
	var stmts []stmt
	for seq := 1; seq <= 300; seq++ {
		stmts = append(stmts, cmd(seq))
	}
	stmts = append(stmts, irr(301),
		stmt{`UPDATE irregularities SET decision = $1, decided_seq = $2 WHERE table_id = $3 AND id = $4 AND decided_seq IS NULL`,
			[]any{"continue", int64(302), id, int64(301)}},
		irr(303))
	for seq := 304; seq < 314; seq++ {
		stmts = append(stmts, cmd(seq))
	}
	for seq := 314; seq < 614; seq++ {
		stmts = append(stmts, cmd(seq))
	}
	return stmts
}

// TestSegmentsKeepTheOrder: the runs of copyMinRows rows or more become COPYs of their
// rows, in order, and every other statement stays where it was, unchanged.
func TestSegmentsKeepTheOrder(t *testing.T) {
	t.Parallel()
	stmts := copyCase("pit1-bac01")
	segs := segments(stmts, copyMinRows)
	var kinds []string
	var back []stmt
	for _, sg := range segs {
		if c := sg.copy; c != nil {
			kinds = append(kinds, fmt.Sprintf("copy %s %d", c.table, len(c.rows)))
			if strings.Join(c.cols, ",") != "table_id,seq,at,kind,role,actor,detail" {
				t.Errorf("columns %v", c.cols)
			}
			for _, r := range c.rows {
				back = append(back, stmt{stmts[0].query, r})
			}
			continue
		}
		kinds = append(kinds, fmt.Sprintf("batch %d", len(sg.stmts)))
		back = append(back, sg.stmts...)
	}
	// The short run of 10 commands joins the irregularities' batch: a run of 310 would
	// have been one COPY only if nothing stood between.
	if want := []string{"copy commands 300", "batch 3", "copy commands 310"}; !slices.Equal(kinds, want) {
		t.Fatalf("segments %v, want %v", kinds, want)
	}
	if len(back) != len(stmts) {
		t.Fatalf("%d statements back, want %d", len(back), len(stmts))
	}
	for i := range stmts {
		if back[i].query != stmts[i].query || fmt.Sprint(back[i].args) != fmt.Sprint(stmts[i].args) {
			t.Fatalf("statement %d changed: %.60s %v", i, back[i].query, back[i].args)
		}
	}
	if segs := segments(stmts[300:304], copyMinRows); len(segs) != 1 || segs[0].copy != nil {
		t.Errorf("short runs alone: %d segments", len(segs))
	}
}

// TestCopyOnPostgres: on PostgreSQL the case is written by COPYs and a batch in one
// transaction: every row once, the UPDATE between deciding only the irregularity before
// it. A COPY that fails (a row twice) leaves nothing of its transaction.
func TestCopyOnPostgres(t *testing.T) {
	t.Parallel()
	if pg == nil {
		t.Skipf("no PostgreSQL: %s", pgReason)
	}
	const id = "pit1-bac02"
	db := openDB(t, pg.NewDatabase(t))
	ctx := context.Background()
	if err := db.write(ctx, copyCase(id)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM commands WHERE table_id = $1`, id); n != 610 {
		t.Fatalf("%d commands, want 610", n)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM commands WHERE detail = 'c' || seq`); n != 610 {
		t.Fatalf("%d commands kept their own row", n)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM irregularities WHERE decided_seq = 302 AND seq = 301`); n != 1 {
		t.Fatal("the UPDATE did not decide irregularity 301")
	}
	if n := count(t, db, `SELECT COUNT(*) FROM irregularities WHERE decided_seq IS NULL AND seq = 303`); n != 1 {
		t.Fatal("the UPDATE decided irregularity 303 too")
	}

	bad := copyCase("pit1-bac03")
	bad = append(bad, bad[len(bad)-1]) // the last command twice, in the second COPY
	err := db.write(ctx, bad)
	if err == nil || !strings.Contains(err.Error(), "COPY commands") {
		t.Fatalf("a row twice: %v, want the COPY's error", err)
	}
	for _, table := range []string{"commands", "irregularities"} {
		if n := count(t, db, `SELECT COUNT(*) FROM `+table+` WHERE table_id = $1`, "pit1-bac03"); n != 0 {
			t.Errorf("after the failed COPY, %d rows of %s were kept", n, table)
		}
	}
}
