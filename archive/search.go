package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tablectl/tablectl/history"
)

// SearchRounds returns a page of the rounds s finds.
func (d *DB) SearchRounds(ctx context.Context, s history.Search) (history.Page, error) {
	limit := s.Limit
	switch {
	case limit < 0:
		return history.Page{}, fmt.Errorf("archive: search: limit %d below 0", limit)
	case limit == 0:
		limit = history.DefaultSearchLimit
	case limit > history.MaxSearchLimit:
		limit = history.MaxSearchLimit
	}
	q, args := d.searchQuery(s, limit+1)
	rows, err := d.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return history.Page{}, fmt.Errorf("archive: search: %w", err)
	}
	defer rows.Close()
	var page history.Page
	for rows.Next() {
		r, err := scanRound(rows)
		if err != nil {
			return history.Page{}, fmt.Errorf("archive: search: %w", err)
		}
		page.Rounds = append(page.Rounds, r)
	}
	if err := rows.Err(); err != nil {
		return history.Page{}, fmt.Errorf("archive: search: %w", err)
	}
	rows.Close()
	if len(page.Rounds) > limit {
		page.Rounds = page.Rounds[:limit]
		c := page.Rounds[limit-1].Cursor()
		page.Next = &c
	}
	if err := d.roundKinds(ctx, page.Rounds); err != nil {
		return history.Page{}, err
	}
	if page.Rounds == nil {
		page.Rounds = []history.RoundRow{}
	}
	return page, nil
}

// searchQuery is the query of s's rounds, at most limit of them, and its arguments.
func (d *DB) searchQuery(s history.Search, limit int) (string, []any) {
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if len(s.Tables) > 0 {
		ph := make([]string, len(s.Tables))
		for i, t := range s.Tables {
			ph[i] = arg(t)
		}
		where = append(where, "r.table_id IN ("+strings.Join(ph, ", ")+")")
	}
	if !s.From.IsZero() {
		where = append(where, "r.ended_at >= "+arg(d.ts(s.From)))
	}
	if !s.To.IsZero() {
		where = append(where, "r.ended_at < "+arg(d.ts(s.To)))
	}
	// Each of these conditions starts from the rows of the irregularity's kind, the
	// decision or the person, by their indexes, rather than testing every round in the
	// range: a rare one would walk them all. An irregularity is the round's when it has
	// the round's table, shoe and number.
	const ofRounds = "(r.table_id, r.shoe, r.round) IN (SELECT i.table_id, i.shoe, i.round FROM irregularities i WHERE "
	if s.Kind != "" {
		where = append(where, ofRounds+"i.kind = "+arg(s.Kind)+")")
	}
	if s.Decision != "" {
		where = append(where, ofRounds+"i.decision = "+arg(s.Decision)+")")
	}
	if s.Person != "" {
		// A command is the round's when its record is one of the round's records: the
		// round is the table's first to end at or after it, if that one began by then.
		const cmdRounds = "SELECT r2.table_id, r2.last_seq FROM commands c JOIN rounds r2 ON r2.table_id = c.table_id" +
			" AND r2.last_seq = (SELECT MIN(r3.last_seq) FROM rounds r3 WHERE r3.table_id = c.table_id AND r3.last_seq >= c.seq)" +
			" AND r2.first_seq <= c.seq WHERE c.actor = "
		p1, p2 := arg(s.Person), arg(s.Person)
		if d.engine == Postgres {
			// One set of rounds, which PostgreSQL joins (an OR of two would be tested at
			// every round).
			where = append(where, "(r.table_id, r.last_seq) IN (SELECT r2.table_id, r2.last_seq FROM irregularities i JOIN rounds r2"+
				" ON r2.table_id = i.table_id AND r2.shoe = i.shoe AND r2.round = i.round WHERE i.decided_by = "+p1+
				" UNION "+cmdRounds+p2+")")
		} else {
			// Two sets, each looked up by its index (SQLite scans every round for an IN of
			// a UNION).
			where = append(where, "("+ofRounds+"i.decided_by = "+p1+") OR (r.table_id, r.last_seq) IN ("+cmdRounds+p2+"))")
		}
	}
	if c := s.After; c != nil {
		where = append(where, fmt.Sprintf("(r.ended_at, r.table_id, r.shoe, r.round, r.last_seq) > (%s, %s, %s, %s, %s)",
			arg(d.ts(c.Ended)), arg(c.Table), arg(int64(c.Shoe)), arg(int64(c.Round)), arg(int64(c.Seq))))
	}
	q := `SELECT r.table_id, r.shoe, r.round, r.first_seq, r.last_seq, r.started_at, r.ended_at, r.player_cards, r.banker_cards,
		r.winner, r.player_points, r.banker_points, r.void, r.void_reason FROM rounds r`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY r.ended_at, r.table_id, r.shoe, r.round, r.last_seq LIMIT " + arg(int64(limit))
	return q, args
}

// roundKinds fills each round's irregularity kinds, with one query for the page.
func (d *DB) roundKinds(ctx context.Context, rs []history.RoundRow) error {
	if len(rs) == 0 {
		return nil
	}
	type key struct {
		table       string
		shoe, round uint32
	}
	at := make(map[key][]int, len(rs)) // a key's rounds in rs (one, but for a shoe number used twice)
	var q strings.Builder
	args := make([]any, 0, 3*len(rs))
	q.WriteString(`SELECT table_id, shoe, round, kind FROM irregularities WHERE (table_id, shoe, round) IN (`)
	for i, r := range rs {
		k := key{r.Table, r.Shoe, r.Round}
		if _, ok := at[k]; !ok {
			if len(args) > 0 {
				q.WriteString(", ")
			}
			n := len(args)
			fmt.Fprintf(&q, "($%d, $%d, $%d)", n+1, n+2, n+3)
			args = append(args, r.Table, int64(r.Shoe), int64(r.Round))
		}
		at[k] = append(at[k], i)
	}
	q.WriteString(`) ORDER BY table_id, seq, id`)
	rows, err := d.sql.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return fmt.Errorf("archive: search: irregularities of the rounds: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k key
		var shoe, rnd int64
		var kind string
		if err := rows.Scan(&k.table, &shoe, &rnd, &kind); err != nil {
			return fmt.Errorf("archive: search: irregularities of the rounds: %w", err)
		}
		k.shoe, k.round = uint32(shoe), uint32(rnd)
		for _, i := range at[k] {
			rs[i].Irregularities = append(rs[i].Irregularities, kind)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("archive: search: irregularities of the rounds: %w", err)
	}
	return nil
}

// scanner is what *sql.Row and *sql.Rows offer.
type scanner interface{ Scan(dest ...any) error }

func scanRound(sc scanner) (history.RoundRow, error) {
	var r history.RoundRow
	var shoe, rnd, first, last, pp, bp int64
	var started, ended any
	if err := sc.Scan(&r.Table, &shoe, &rnd, &first, &last, &started, &ended, &r.Player, &r.Banker,
		&r.Winner, &pp, &bp, &r.Void, &r.VoidReason); err != nil {
		return history.RoundRow{}, err
	}
	var err error
	if r.Started, err = timeOf(started); err != nil {
		return history.RoundRow{}, fmt.Errorf("round %s %d/%d: started_at: %w", r.Table, shoe, rnd, err)
	}
	if r.Ended, err = timeOf(ended); err != nil {
		return history.RoundRow{}, fmt.Errorf("round %s %d/%d: ended_at: %w", r.Table, shoe, rnd, err)
	}
	r.Shoe, r.Round, r.FirstSeq, r.Seq = uint32(shoe), uint32(rnd), uint64(first), uint64(last)
	r.PlayerPoints, r.BankerPoints = int(pp), int(bp)
	return r, nil
}

// timeOf reads a time column as either engine returns it: PostgreSQL a time.Time,
// SQLite the text the archive wrote (or a time its driver parsed). NULL is the zero
// time.
func timeOf(v any) (time.Time, error) {
	switch x := v.(type) {
	case nil:
		return time.Time{}, nil
	case time.Time:
		return x.UTC(), nil
	case string:
		return time.Parse(time.RFC3339Nano, x)
	case []byte:
		return time.Parse(time.RFC3339Nano, string(x))
	}
	return time.Time{}, fmt.Errorf("a time of type %T", v)
}

// RoundDetail returns table's round that ended at record seq (RoundRow.Seq), or
// ErrNoRound.
func (d *DB) RoundDetail(ctx context.Context, table string, seq uint64) (history.RoundDetail, error) {
	row := d.sql.QueryRowContext(ctx, `SELECT r.table_id, r.shoe, r.round, r.first_seq, r.last_seq, r.started_at, r.ended_at,
		r.player_cards, r.banker_cards, r.winner, r.player_points, r.banker_points, r.void, r.void_reason
		FROM rounds r WHERE r.table_id = $1 AND r.last_seq = $2`, table, int64(seq))
	r, err := scanRound(row)
	if errors.Is(err, sql.ErrNoRows) {
		return history.RoundDetail{}, fmt.Errorf("%w: table %s, record %d", history.ErrNoRound, table, seq)
	}
	if err != nil {
		return history.RoundDetail{}, fmt.Errorf("archive: round of %s at record %d: %w", table, seq, err)
	}
	out := history.RoundDetail{RoundRow: r, Settlements: []history.SettlementRow{}, Irregularities: []history.IrregularityIn{}, Commands: []history.CommandIn{}}
	fail := func(what string, err error) (history.RoundDetail, error) {
		return history.RoundDetail{}, fmt.Errorf("archive: round %s %d/%d: %s: %w", table, r.Shoe, r.Round, what, err)
	}
	var settlements string
	if err := d.sql.QueryRowContext(ctx, `SELECT settlements FROM rounds WHERE table_id = $1 AND last_seq = $2`, table, int64(seq)).Scan(&settlements); err != nil {
		return fail("settlements", err)
	}
	if settlements != "" && settlements != "null" {
		if err := json.Unmarshal([]byte(settlements), &out.Settlements); err != nil {
			return fail("settlements", err)
		}
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT seq, id, kind, rule, raised_at, reason, holds, COALESCE(decision, ''),
		COALESCE(decided_role, ''), COALESCE(decided_by, ''), decided_at, COALESCE(decision_reason, '')
		FROM irregularities WHERE table_id = $1 AND shoe = $2 AND round = $3 ORDER BY seq, id`, table, int64(r.Shoe), int64(r.Round))
	if err != nil {
		return fail("irregularities", err)
	}
	for rows.Next() {
		var ir history.IrregularityIn
		var s, id int64
		var raised, decided any
		if err := rows.Scan(&s, &id, &ir.Kind, &ir.Rule, &raised, &ir.Reason, &ir.Holds, &ir.Decision,
			&ir.DecidedRole, &ir.DecidedBy, &decided, &ir.DecisionReason); err != nil {
			rows.Close()
			return fail("irregularities", err)
		}
		ir.Seq, ir.ID = uint64(s), uint32(id)
		if ir.Raised, err = timeOf(raised); err == nil {
			ir.Decided, err = timeOf(decided)
		}
		if err != nil {
			rows.Close()
			return fail("irregularities", err)
		}
		out.Irregularities = append(out.Irregularities, ir)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return fail("irregularities", err)
	}
	rows, err = d.sql.QueryContext(ctx, `SELECT seq, at, kind, role, actor, detail FROM commands
		WHERE table_id = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq`, table, int64(r.FirstSeq), int64(r.Seq))
	if err != nil {
		return fail("commands", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c history.CommandIn
		var s int64
		var at any
		if err := rows.Scan(&s, &at, &c.Kind, &c.Role, &c.Actor, &c.Detail); err != nil {
			return fail("commands", err)
		}
		c.Seq = uint64(s)
		if c.At, err = timeOf(at); err != nil {
			return fail("commands", err)
		}
		out.Commands = append(out.Commands, c)
	}
	if err := rows.Err(); err != nil {
		return fail("commands", err)
	}
	return out, nil
}
