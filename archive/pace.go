package archive

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tablectl/tablectl/pit"
)

// The hourly tallies of the rounds (table pace_hours; docs/pit.md, "How the archive
// derives them"): per table, dealer and UTC hour of the time a round is credited to, the
// rounds dealt and void, and each phase's sum over the rounds with both its ends known,
// and their count. The deriver adds each round it writes to its hour's tally, in the
// same transaction as the round's row (tallyRound): the tallies hold what the rounds rows
// do. Sums are in microseconds, the precision of a time the archive holds, so that a
// figure from the tallies is the figure from the rounds, exactly.

// tallyUpsert adds one round's tally to its hour's.
const tallyUpsert = `INSERT INTO pace_hours (table_id, dealer, hour_at, rounds, void, betting_n, betting_us,
	dealing_n, dealing_us, confirm_n, confirm_us, windows_us, holds_us)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
	ON CONFLICT (table_id, hour_at, dealer) DO UPDATE SET rounds = pace_hours.rounds + excluded.rounds,
		void = pace_hours.void + excluded.void,
		betting_n = pace_hours.betting_n + excluded.betting_n, betting_us = pace_hours.betting_us + excluded.betting_us,
		dealing_n = pace_hours.dealing_n + excluded.dealing_n, dealing_us = pace_hours.dealing_us + excluded.dealing_us,
		confirm_n = pace_hours.confirm_n + excluded.confirm_n, confirm_us = pace_hours.confirm_us + excluded.confirm_us,
		windows_us = pace_hours.windows_us + excluded.windows_us, holds_us = pace_hours.holds_us + excluded.holds_us`

// heldTime is t as the archive holds it, and reads it back: UTC, to the microsecond
// (below, PostgreSQL and the SQLite layout drop the rest).
func heldTime(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Microsecond)
}

// tallyRound is the statement adding round r, settled or void at ended, to its hour's
// tally: the round as PitRounds reads its row back, tallied as pit.Pace counts it. A
// round with no card was not dealt, and one credited to no time is not counted: none.
func (d *deriver) tallyRound(r *openRound, ended time.Time, void bool) stmt {
	if len(r.player)+len(r.banker) == 0 {
		return stmt{}
	}
	ms := func(x time.Duration) time.Duration { return time.Duration(x.Milliseconds()) * time.Millisecond }
	pr := pit.Round{Table: d.table, Dealer: r.dealer, Opened: heldTime(r.opened), FirstCard: heldTime(r.firstCard),
		Complete: heldTime(r.complete), Windows: ms(r.windows), Held: ms(r.held), HeldAfter: ms(r.heldAfter), Void: void}
	if !void { // a void round is not confirmed (PitRounds)
		pr.Settled = heldTime(ended)
	}
	t := pit.TallyOf(pr)
	if t.Hour.IsZero() {
		return stmt{}
	}
	us := func(x time.Duration) int64 { return x.Microseconds() }
	return stmt{tallyUpsert, []any{d.table, r.dealer, d.db.ts(t.Hour.Truncate(time.Hour)), int64(t.Rounds), int64(t.Void),
		int64(t.Betting), us(t.Sum.Betting), int64(t.Dealing), us(t.Sum.Dealing), int64(t.Confirm), us(t.Sum.Confirm),
		us(t.Sum.Windows), us(t.Sum.Holds)}}
}

// maxPeriods is the most periods PaceTallies sums the hours of in the database: past
// it, the hours come as they are kept, and the figures sum them.
const maxPeriods = 1000

// PaceTallies are the hourly tallies of the rounds of f's table, dealer and pit credited
// to the hours from f.From to f.To, summed by what by groups (a table, with its pit; a
// dealer; a pit) and by the periods of buckets, each with a time of its period's first
// hour in the range (docs/pit.md, "How the archive derives them"). pit.PaceOfTallies
// gives of them the figures pit.Pace gives of PitRounds, when f's range and the periods
// start on whole UTC hours (pit.Hourly). A tally counts in the range when its hour
// starts in it.
func (d *DB) PaceTallies(ctx context.Context, f PitFilter, by pit.By, buckets pit.Buckets) ([]pit.Tally, error) {
	var q filter
	q.and("h.hour_at >= " + q.arg(d.ts(f.From)))
	q.and("h.hour_at < " + q.arg(d.ts(f.To)))
	if f.Table != "" {
		q.and("h.table_id = " + q.arg(f.Table))
	}
	if f.Dealer != "" {
		q.and("h.dealer = " + q.arg(f.Dealer))
	}
	if f.Pit != "" {
		q.and("t.pit = " + q.arg(f.Pit))
	}
	// The periods in the range: each one's first hour in it, and its end.
	var firsts, ends []time.Time
	t := f.From
	for t.Before(f.To) && len(firsts) <= maxPeriods {
		_, end := buckets.Of(t)
		if !end.After(t) {
			break
		}
		firsts, ends = append(firsts, t), append(ends, end)
		t = end
	}
	period, byPeriod := "h.hour_at", ", period"
	switch n := len(firsts); {
	case t.Before(f.To) || n == 0 || n > maxPeriods || f.To.Sub(f.From) == time.Duration(n)*time.Hour:
		firsts = nil // as kept, by hour
	case n == 1:
		period, byPeriod = "0", ""
	default:
		var c strings.Builder
		c.WriteString("CASE")
		for i, end := range ends[:n-1] {
			fmt.Fprintf(&c, " WHEN h.hour_at < %s THEN %d", q.arg(d.ts(end)), i)
		}
		fmt.Fprintf(&c, " ELSE %d END", n-1)
		period = c.String()
	}
	keys := map[pit.By]string{pit.ByTable: "h.table_id, '', COALESCE(t.pit, '')", pit.ByDealer: "'', h.dealer, ''", pit.ByPit: "'', '', COALESCE(t.pit, '')"}[by]
	group := map[pit.By]string{pit.ByTable: "h.table_id, COALESCE(t.pit, '')", pit.ByDealer: "h.dealer", pit.ByPit: "COALESCE(t.pit, '')"}[by]
	if keys == "" {
		return nil, fmt.Errorf("archive: the pit's tallies: grouped by %d", by)
	}
	sum := func(c string) string { return "CAST(SUM(h." + c + ") AS BIGINT)" }
	var cols []string
	for _, c := range []string{"rounds", "void", "betting_n", "betting_us", "dealing_n", "dealing_us", "confirm_n", "confirm_us", "windows_us", "holds_us"} {
		cols = append(cols, sum(c))
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT `+keys+`, `+period+` AS period, `+strings.Join(cols, ", ")+`
		FROM pace_hours h LEFT JOIN tables t ON t.table_id = h.table_id`+q.sql()+` GROUP BY `+group+byPeriod, q.args...)
	if err != nil {
		return nil, fmt.Errorf("archive: the pit's tallies: %w", err)
	}
	defer rows.Close()
	var out []pit.Tally
	for rows.Next() {
		var t pit.Tally
		var hour any
		var rounds, void, bn, bus, dn, dus, cn, cus, wus, hus int64
		if err := rows.Scan(&t.Table, &t.Dealer, &t.Pit, &hour, &rounds, &void, &bn, &bus, &dn, &dus, &cn, &cus, &wus, &hus); err != nil {
			return nil, fmt.Errorf("archive: the pit's tallies: %w", err)
		}
		if firsts != nil {
			i, ok := hour.(int64)
			if !ok || i < 0 || int(i) >= len(firsts) {
				return nil, fmt.Errorf("archive: the pit's tallies: period %v", hour)
			}
			t.Hour = firsts[i]
		} else if t.Hour, err = scanTime(hour); err != nil {
			return nil, fmt.Errorf("archive: the pit's tallies: %w", err)
		}
		us := func(n int64) time.Duration { return time.Duration(n) * time.Microsecond }
		t.Rounds, t.Void, t.Betting, t.Dealing, t.Confirm = int(rounds), int(void), int(bn), int(dn), int(cn)
		t.Sum = pit.Phases{Betting: us(bus), Dealing: us(dus), Windows: us(wus), Holds: us(hus), Confirm: us(cus)}
		out = append(out, t)
	}
	return out, rows.Err()
}
