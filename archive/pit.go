package archive

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/pit"
)

// PitFilter chooses what the pit's figures are read from (history.PitFilter).
type PitFilter = history.PitFilter

// longestRound bounds how long after its first card a round ends, for the index on its
// end: a round held longer is not read in a range it started in.
const longestRound = 12 * time.Hour

// longestStill bounds how long a stretch of stand-still or a dealer's stint lasts, for the
// index on its start.
const longestStill = 7 * 24 * time.Hour

// filter builds the WHERE of a pit query: the table, dealer and pit conditions of f
// on the columns named, and the arguments.
type filter struct {
	where []string
	args  []any
}

func (q *filter) arg(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

func (q *filter) and(cond string) { q.where = append(q.where, cond) }

func (q *filter) sql() string {
	if len(q.where) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(q.where, " AND ")
}

// PitRounds are the rounds dealt that are credited to f's range (by their first card,
// else their opening, else their last card, else their end, as pit.Pace credits them),
// with their times, dealer and pit (docs/pit.md). A round void before its first card
// (the shoe ended with its bets open) was not dealt.
func (d *DB) PitRounds(ctx context.Context, f PitFilter) ([]pit.Round, error) {
	var q filter
	q.and("(r.player_cards <> '' OR r.banker_cards <> '')")
	q.and("r.ended_at >= " + q.arg(d.ts(f.From)))
	q.and("r.ended_at < " + q.arg(d.ts(f.To.Add(longestRound))))
	credited := "COALESCE(r.first_card_at, r.opened_at, r.complete_at, r.ended_at)"
	q.and(credited + " >= " + q.arg(d.ts(f.From)))
	q.and(credited + " < " + q.arg(d.ts(f.To)))
	if f.Table != "" {
		q.and("r.table_id = " + q.arg(f.Table))
	}
	if f.Dealer != "" {
		q.and("r.dealer = " + q.arg(f.Dealer))
	}
	if f.Pit != "" {
		q.and("t.pit = " + q.arg(f.Pit))
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT r.table_id, r.dealer, COALESCE(t.pit, ''), r.opened_at, r.first_card_at,
		r.complete_at, r.ended_at, r.windows_ms, r.held_ms, r.held_after_ms, r.void
		FROM rounds r LEFT JOIN tables t ON t.table_id = r.table_id`+q.sql()+` ORDER BY r.ended_at, r.table_id`, q.args...)
	if err != nil {
		return nil, fmt.Errorf("archive: the pit's rounds: %w", err)
	}
	defer rows.Close()
	var out []pit.Round
	for rows.Next() {
		var r pit.Round
		var opened, first, complete, ended any
		var windows, held, after int64
		if err := rows.Scan(&r.Table, &r.Dealer, &r.Pit, &opened, &first, &complete, &ended, &windows, &held, &after, &r.Void); err != nil {
			return nil, fmt.Errorf("archive: the pit's rounds: %w", err)
		}
		for _, c := range []struct {
			v  any
			to *time.Time
		}{{opened, &r.Opened}, {first, &r.FirstCard}, {complete, &r.Complete}, {ended, &r.Settled}} {
			if *c.to, err = scanTime(c.v); err != nil {
				return nil, fmt.Errorf("archive: the pit's rounds: %w", err)
			}
		}
		if r.Void {
			r.Settled = time.Time{} // a void round is not confirmed: it has no confirm phase
		}
		ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
		r.Windows, r.Held, r.HeldAfter = ms(windows), ms(held), ms(after)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Stills are the stretches the tables of f stood still in its range, cut to it (docs/pit.md,
// "Stand-still"). f.Dealer is not a condition: standing still is a table's.
func (d *DB) Stills(ctx context.Context, f PitFilter) ([]pit.Still, error) {
	var q filter
	q.and("s.from_at >= " + q.arg(d.ts(f.From.Add(-longestStill))))
	q.and("s.from_at < " + q.arg(d.ts(f.To)))
	q.and("(s.to_at IS NULL OR s.to_at > " + q.arg(d.ts(f.From)) + ")")
	if f.Table != "" {
		q.and("s.table_id = " + q.arg(f.Table))
	}
	if f.Pit != "" {
		q.and("t.pit = " + q.arg(f.Pit))
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT s.table_id, COALESCE(t.pit, ''), s.why, s.from_at, s.to_at
		FROM stills s LEFT JOIN tables t ON t.table_id = s.table_id`+q.sql()+` ORDER BY s.from_at, s.table_id`, q.args...)
	if err != nil {
		return nil, fmt.Errorf("archive: the stand-still: %w", err)
	}
	defer rows.Close()
	var out []pit.Still
	for rows.Next() {
		var s pit.Still
		var from, to any
		if err := rows.Scan(&s.Table, &s.Pit, &s.Why, &from, &to); err != nil {
			return nil, fmt.Errorf("archive: the stand-still: %w", err)
		}
		if s.From, err = scanTime(from); err == nil {
			s.To, err = scanTime(to)
		}
		if err != nil {
			return nil, fmt.Errorf("archive: the stand-still: %w", err)
		}
		s.From, s.To = clip(s.From, s.To, f)
		if s.To.After(s.From) {
			out = append(out, s)
		}
	}
	return out, rows.Err()
}

// Rotation is the dealers' stints at the tables of f overlapping its range: who dealt
// where, from when to when, in the order they started. A stint is not cut to the range.
func (d *DB) Rotation(ctx context.Context, f PitFilter) ([]pit.Stint, error) {
	var q filter
	q.and("s.on_at >= " + q.arg(d.ts(f.From.Add(-longestStill))))
	q.and("s.on_at < " + q.arg(d.ts(f.To)))
	q.and("(s.off_at IS NULL OR s.off_at > " + q.arg(d.ts(f.From)) + ")")
	if f.Table != "" {
		q.and("s.table_id = " + q.arg(f.Table))
	}
	if f.Dealer != "" {
		q.and("s.dealer = " + q.arg(f.Dealer))
	}
	if f.Pit != "" {
		q.and("t.pit = " + q.arg(f.Pit))
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT s.table_id, COALESCE(t.pit, ''), s.dealer, s.on_at, s.on_role, s.on_by,
		s.off_at, COALESCE(s.off_role, ''), COALESCE(s.off_by, ''), COALESCE(s.off_note, '')
		FROM dealers s LEFT JOIN tables t ON t.table_id = s.table_id`+q.sql()+` ORDER BY s.on_at, s.table_id`, q.args...)
	if err != nil {
		return nil, fmt.Errorf("archive: the rotation: %w", err)
	}
	defer rows.Close()
	var out []pit.Stint
	for rows.Next() {
		var s pit.Stint
		var from, to any
		if err := rows.Scan(&s.Table, &s.Pit, &s.Dealer, &from, &s.OnRole, &s.OnBy, &to, &s.OffRole, &s.OffBy, &s.Note); err != nil {
			return nil, fmt.Errorf("archive: the rotation: %w", err)
		}
		if s.From, err = scanTime(from); err == nil {
			s.To, err = scanTime(to)
		}
		if err != nil {
			return nil, fmt.Errorf("archive: the rotation: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// clip cuts from..to (to zero: still open) to f's range and its Now.
func clip(from, to time.Time, f PitFilter) (time.Time, time.Time) {
	end := f.To
	if !f.Now.IsZero() && f.Now.Before(end) {
		end = f.Now
	}
	if to.IsZero() || to.After(end) {
		to = end
	}
	if from.Before(f.From) {
		from = f.From
	}
	return from, to
}

// SetPit records that table id is in pit, as the topics it ships on say
// (casino/<site>/<pit>/...): its figures, all of them, count in that pit. It changes
// nothing of a table the archive holds no record of: the archive's service sets it after
// storing a batch.
func (a *Archive) SetPit(ctx context.Context, id, pitName string) error {
	if _, err := a.db.sql.ExecContext(ctx, `UPDATE tables SET pit = $1 WHERE table_id = $2 AND pit <> $1`, pitName, id); err != nil {
		return fmt.Errorf("archive: table %s: pit: %w", id, err)
	}
	return nil
}

// PitIrregularities are the irregularities raised at the tables of f in its range, with
// their decisions and the dealer of their round, in the order they were raised.
func (d *DB) PitIrregularities(ctx context.Context, f PitFilter) ([]pit.Irregularity, error) {
	var q filter
	q.and("i.raised_at >= " + q.arg(d.ts(f.From)))
	q.and("i.raised_at < " + q.arg(d.ts(f.To)))
	if f.Table != "" {
		q.and("i.table_id = " + q.arg(f.Table))
	}
	if f.Pit != "" {
		q.and("t.pit = " + q.arg(f.Pit))
	}
	if f.Dealer != "" {
		q.and("r.dealer = " + q.arg(f.Dealer))
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT i.table_id, COALESCE(t.pit, ''), COALESCE(r.dealer, ''), i.shoe, i.round, i.id,
		i.kind, i.rule, i.reason, i.raised_at, COALESCE(i.decision, ''), COALESCE(i.decided_role, ''), COALESCE(i.decided_by, ''), i.decided_at
		FROM irregularities i LEFT JOIN tables t ON t.table_id = i.table_id
		LEFT JOIN rounds r ON r.table_id = i.table_id AND r.shoe = i.shoe AND r.round = i.round`+q.sql()+
		` ORDER BY i.raised_at, i.table_id, i.id`, q.args...)
	if err != nil {
		return nil, fmt.Errorf("archive: the pit's irregularities: %w", err)
	}
	defer rows.Close()
	var out []pit.Irregularity
	for rows.Next() {
		var ir pit.Irregularity
		var shoe, rnd, id int64
		var raised, decided any
		if err := rows.Scan(&ir.Table, &ir.Pit, &ir.Dealer, &shoe, &rnd, &id, &ir.Kind, &ir.Rule, &ir.Reason, &raised,
			&ir.Decision, &ir.DecidedRole, &ir.Decider, &decided); err != nil {
			return nil, fmt.Errorf("archive: the pit's irregularities: %w", err)
		}
		ir.Shoe, ir.Round, ir.ID = uint32(shoe), uint32(rnd), uint32(id)
		if ir.Raised, err = scanTime(raised); err == nil {
			ir.Decided, err = scanTime(decided)
		}
		if err != nil {
			return nil, fmt.Errorf("archive: the pit's irregularities: %w", err)
		}
		out = append(out, ir)
	}
	return out, rows.Err()
}
