package archive

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/history"
)

// RecordAlert keeps an alert the console raised, or a person's acknowledgement of one
// (docs/archive.md, "Alerts"). The alert is kept once, by its ID: a record of an ID kept
// already changes nothing of the alert. A record with Ack sets the acknowledgement only
// where none is kept yet: the first acknowledgement stands, and a later one is ignored.
// An acknowledgement carries the whole alert, so one whose raising never came is kept
// all the same, with its acknowledgement. Both happen in one transaction, with the same
// statements on PostgreSQL and SQLite. The caller checks r (api.AlertRecord.Check).
//
// An integrity alarm is the archive's own (docs/integrity.md): a record of an integrity
// kind acknowledges one the archive raised, of that table and kind, and raises none.
func (a *Archive) RecordAlert(ctx context.Context, r api.AlertRecord) error {
	d := a.db
	var stmts []stmt
	if !strings.HasPrefix(r.Kind, api.IntegrityAlertPrefix) {
		stmts = append(stmts, stmt{query: `INSERT INTO alerts (id, table_id, pit, kind, since, raised_at, text, received_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
			args: []any{r.ID, r.Table, r.Pit, r.Kind, d.ts(r.Since), d.ts(r.Raised), r.Text, d.ts(a.opt.Now())}})
	}
	if ack := r.Ack; ack != nil {
		stmts = append(stmts, stmt{query: `UPDATE alerts SET ack_by = $1, ack_role = $2, ack_at = $3, ack_note = $4
			WHERE id = $5 AND table_id = $6 AND kind = $7 AND ack_at IS NULL`,
			args: []any{ack.By, ack.Role, d.ts(ack.At), ack.Note, r.ID, r.Table, r.Kind}})
	}
	if err := d.write(ctx, stmts); err != nil {
		return fmt.Errorf("archive: alert %s of table %s: %w", r.ID, r.Table, err)
	}
	return nil
}

// Alerts are the alerts s chooses, in the order they were raised (then by ID), each
// with its acknowledgement (AckBy empty while none). The integrity watch's alarms are
// left out unless s asks for one of their kinds: IntegrityAlarms reads them.
func (d *DB) Alerts(ctx context.Context, s history.AlertSearch) ([]history.Alert, error) {
	var q filter
	if !s.From.IsZero() {
		q.and("raised_at >= " + q.arg(d.ts(s.From)))
	}
	if !s.To.IsZero() {
		q.and("raised_at < " + q.arg(d.ts(s.To)))
	}
	if s.Table != "" {
		q.and("table_id = " + q.arg(s.Table))
	}
	if s.Kind != "" {
		q.and("kind = " + q.arg(s.Kind))
	} else {
		q.and("kind NOT LIKE " + q.arg(api.IntegrityAlertPrefix+"%"))
	}
	if s.ID != "" {
		q.and("id = " + q.arg(s.ID))
	}
	if s.Open {
		q.and("ack_at IS NULL") // the index alerts_open
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT id, table_id, pit, kind, since, raised_at, text,
		COALESCE(ack_by, ''), COALESCE(ack_role, ''), ack_at, COALESCE(ack_note, '')
		FROM alerts`+q.sql()+` ORDER BY raised_at, id`, q.args...)
	if err != nil {
		return nil, fmt.Errorf("archive: the alerts: %w", err)
	}
	defer rows.Close()
	var out []history.Alert
	for rows.Next() {
		var al history.Alert
		var since, raised, ackAt any
		if err := rows.Scan(&al.ID, &al.Table, &al.Pit, &al.Kind, &since, &raised, &al.Text, &al.AckBy, &al.AckRole, &ackAt, &al.AckNote); err != nil {
			return nil, fmt.Errorf("archive: the alerts: %w", err)
		}
		for _, c := range []struct {
			v  any
			to *time.Time
		}{{since, &al.Since}, {raised, &al.Raised}, {ackAt, &al.AckAt}} {
			if *c.to, err = scanTime(c.v); err != nil {
				return nil, fmt.Errorf("archive: the alerts: %w", err)
			}
		}
		out = append(out, al)
	}
	return out, rows.Err()
}
