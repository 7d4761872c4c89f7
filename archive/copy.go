package archive

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
)

// copyMinRows is the fewest rows of one run of single-row INSERTs (the same query, no
// other statement between its rows) that PostgreSQL gets by COPY rather than as
// multi-row INSERTs. A COPY takes a round trip of its own, so a short run goes faster
// merged into the batch; a long one, as a catch-up's, faster by COPY.
const copyMinRows = 256

// insertHead is what comes before the values of a single-row INSERT (singleRow): its
// table and its columns.
var insertHead = regexp.MustCompile(`^INSERT INTO ([a-z_]+) \(([a-z_, ]+)\) VALUES$`)

// segment is a part of a transaction's statements, in order: statements sent in one
// pgx batch, or a run of rows of one table written by COPY.
type segment struct {
	stmts []stmt
	copy  *copyRun
}

// copyRun is the rows of a run of single-row INSERTs into table, in the order of cols.
type copyRun struct {
	table string
	cols  []string
	rows  [][]any
}

// segments cuts stmts, in order, into runs of at least least single-row INSERTs of one
// query into one table, and the statements between them. The statements it leaves
// as they are come out unchanged.
func segments(stmts []stmt, least int) []segment {
	var out []segment
	var rest []stmt
	for i := 0; i < len(stmts); {
		head, ok := singleRow(stmts[i])
		j := i + 1
		for ok && j < len(stmts) && stmts[j].query == stmts[i].query {
			j++
		}
		var m []string
		if ok && j-i >= least { // the pattern is read for a long run alone: it costs
			m = insertHead.FindStringSubmatch(strings.Join(strings.Fields(head), " "))
		}
		if m == nil {
			rest = append(rest, stmts[i:j]...)
			i = j
			continue
		}
		if len(rest) > 0 {
			out, rest = append(out, segment{stmts: rest}), nil
		}
		run := &copyRun{table: m[1]}
		for _, c := range strings.Split(m[2], ",") {
			run.cols = append(run.cols, strings.TrimSpace(c))
		}
		for _, s := range stmts[i:j] {
			run.rows = append(run.rows, s.args)
		}
		out = append(out, segment{copy: run})
		i = j
	}
	if len(rest) > 0 {
		out = append(out, segment{stmts: rest})
	}
	return out
}

// copyPipeline runs segs in one transaction on pc: each run of rows by COPY, the
// statements between in one batch each (their single-row INSERTs merged). After an
// error none of it took effect.
func copyPipeline(ctx context.Context, pc *pgx.Conn, segs []segment) error {
	tx, err := pc.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) // nothing once committed
	for _, sg := range segs {
		if c := sg.copy; c != nil {
			n, err := tx.CopyFrom(ctx, pgx.Identifier{c.table}, c.cols, pgx.CopyFromRows(c.rows))
			if err != nil {
				return fmt.Errorf("COPY %s: %w", c.table, err)
			}
			if n != int64(len(c.rows)) {
				return fmt.Errorf("COPY %s: %d rows written of %d", c.table, n, len(c.rows))
			}
			continue
		}
		stmts := mergeInserts(sg.stmts)
		var b pgx.Batch
		for _, s := range stmts {
			b.Queue(s.query, s.args...)
		}
		br := tx.SendBatch(ctx, &b)
		for _, s := range stmts {
			if _, err := br.Exec(); err != nil {
				br.Close()
				return fmt.Errorf("%s: %w", s.what(), err)
			}
		}
		if err := br.Close(); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}
