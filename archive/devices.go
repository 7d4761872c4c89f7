package archive

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/pit"
	"github.com/tablectl/tablectl/round"
)

// down is a device disconnected, not yet back: the record of its disconnect, and its
// time.
type down struct {
	Seq  uint64    `json:"seq"`
	From time.Time `json:"from"`
}

// devices returns the statements of the devices' rows of record seq, event ev with its
// effects effs (docs/pit.md, "Devices"): a card the shoe could not name, cards missed
// by the shoe's numbers, the shoe counting anew, a device's fault or report, a set the
// shuffler reported (its delay from the shoe's end), a device lost or back (the lost
// one's row given its end). A restart of the table ends each device's outage at the
// table's last event before it: the table's own outage is not the devices'.
func (d *deriver) devices(seq uint64, ev round.Event, effs []round.Effect) []stmt {
	var out []stmt
	row := func(device, kind, detail string, cards uint64, delay any) {
		out = append(out, stmt{`INSERT INTO device_events (table_id, seq, at, device, kind, detail, cards, delay_ms)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			[]any{d.table, int64(seq), d.db.ts(ev.At), device, kind, detail, int64(cards), delay}})
	}
	end := func(dev string, at time.Time) {
		dn := d.x.Down[dev]
		delete(d.x.Down, dev)
		if len(d.x.Down) == 0 {
			d.x.Down = nil
		}
		out = append(out, stmt{`UPDATE device_events SET until_at = $1 WHERE table_id = $2 AND seq = $3 AND kind = $4`,
			[]any{d.db.ts(at), d.table, int64(dn.Seq), pit.DeviceDisconnected}})
	}
	switch ev.Kind {
	case round.CardDrawn:
		if ev.Seq != 0 {
			if last := d.x.CardNo; last != 0 && !ev.Renumbered && ev.Seq > last+1 {
				row("shoe", pit.DeviceMissed, fmt.Sprintf("shoe sequence %d follows %d", ev.Seq, last), ev.Seq-last-1, nil)
			}
			d.x.CardNo = ev.Seq
		}
		if ev.Renumbered {
			row("shoe", pit.DeviceRestarted, fmt.Sprintf("card numbers start again at %d", ev.Seq), 0, nil)
		}
		if !ev.Card.Valid() {
			row(deviceOr(ev.Actor, "shoe"), pit.DeviceUnreadable, ev.Detail, 1, nil)
		}
	case round.Report:
		dev := deviceOr(ev.Actor, "")
		switch {
		case ev.Irregularity == irregularities.DeviceFault && dev == "":
			row("", pit.DeviceFault, strings.TrimSpace(fmt.Sprintf("by %s %s: %s", roleName(ev.Role), ev.Actor, ev.Detail)), 0, nil)
		case ev.Irregularity == irregularities.DeviceFault:
			row(dev, pit.DeviceFault, ev.Detail, 0, nil)
		case dev != "":
			row(dev, pit.DeviceReport, irregularities.Lookup(ev.Irregularity).ID+": "+ev.Detail, 0, nil)
		}
	case round.NewShoe:
		if ev.Role == 0 { // the shuffler's report, not a person starting a shoe
			var delay any
			if !d.x.ShoeEnd.IsZero() && !ev.At.IsZero() {
				delay = max(ev.At.Sub(d.x.ShoeEnd), 0).Milliseconds()
			}
			row(deviceOr(ev.Actor, "shuffler"), pit.DeviceShuffle, "set "+ev.Set, uint64(max(ev.Cards, 0)), delay)
		}
		d.x.ShoeEnd = time.Time{}
	case round.DeviceLost:
		dev := lostOne(ev)
		row(dev, pit.DeviceDisconnected, "", 0, nil)
		if _, ok := d.x.Down[dev]; !ok { // lost again before it came back: down since the first
			if d.x.Down == nil {
				d.x.Down = map[string]down{}
			}
			d.x.Down[dev] = down{Seq: seq, From: ev.At}
		}
	case round.DeviceBack:
		dev := lostOne(ev)
		var delay any
		if dn, ok := d.x.Down[dev]; ok {
			if !ev.At.IsZero() && !dn.From.IsZero() {
				delay = max(ev.At.Sub(dn.From), 0).Milliseconds()
			}
			end(dev, ev.At)
		}
		row(dev, pit.DeviceReconnected, "", 0, delay)
	case round.PowerRestored:
		for _, dev := range slices.Sorted(maps.Keys(d.x.Down)) {
			end(dev, d.x.LastAt)
		}
	}
	for _, f := range effs {
		if f.Kind == round.ShoeEnded {
			d.x.ShoeEnd = f.At()
		}
	}
	return out
}

// deviceOr is name when it names a device (the shoe, a shuffler), else or.
func deviceOr(name, or string) string {
	if name == "shoe" || name == "gpio" || strings.HasPrefix(name, "shuffler") {
		return name
	}
	return or
}

// lostOne is the device a lost or back event names (in its Detail): "device" when it
// names none.
func lostOne(ev round.Event) string {
	if ev.Detail == "" {
		return "device"
	}
	return ev.Detail
}

// Devices is what the devices of f's tables did in its range (docs/pit.md, "Devices"):
// their events in it, in time order, and the stretches each was disconnected, cut to
// the range and its Now. f.Dealer is not a condition: a device is a table's.
func (d *DB) Devices(ctx context.Context, f PitFilter) ([]pit.DeviceEvent, []pit.Outage, error) {
	var q filter
	q.and("e.at >= " + q.arg(d.ts(f.From.Add(-longestStill))))
	q.and("e.at < " + q.arg(d.ts(f.To)))
	q.and("(e.at >= " + q.arg(d.ts(f.From)) + " OR e.kind = " + q.arg(pit.DeviceDisconnected) +
		" AND (e.until_at IS NULL OR e.until_at > " + q.arg(d.ts(f.From)) + "))")
	if f.Table != "" {
		q.and("e.table_id = " + q.arg(f.Table))
	}
	if f.Pit != "" {
		q.and("t.pit = " + q.arg(f.Pit))
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT e.table_id, COALESCE(t.pit, ''), e.device, e.kind, e.at, e.detail, e.cards,
		e.delay_ms, e.until_at FROM device_events e LEFT JOIN tables t ON t.table_id = e.table_id`+q.sql()+
		` ORDER BY e.at, e.table_id, e.seq, e.kind`, q.args...)
	if err != nil {
		return nil, nil, fmt.Errorf("archive: the devices: %w", err)
	}
	defer rows.Close()
	var events []pit.DeviceEvent
	var outages []pit.Outage
	for rows.Next() {
		var e pit.DeviceEvent
		var at, until any
		var cards int64
		var delay *int64
		if err := rows.Scan(&e.Table, &e.Pit, &e.Device, &e.Kind, &at, &e.Detail, &cards, &delay, &until); err != nil {
			return nil, nil, fmt.Errorf("archive: the devices: %w", err)
		}
		var to time.Time
		if e.At, err = scanTime(at); err == nil {
			to, err = scanTime(until)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("archive: the devices: %w", err)
		}
		e.Cards = int(cards)
		if delay != nil {
			e.Delay, e.Delayed = time.Duration(*delay)*time.Millisecond, true
		}
		if !e.At.Before(f.From) {
			events = append(events, e)
		}
		if e.Kind == pit.DeviceDisconnected {
			o := pit.Outage{Table: e.Table, Pit: e.Pit, Device: e.Device, Open: to.IsZero()}
			if o.From, o.To = clip(e.At, to, f); o.To.After(o.From) {
				o.Open = o.Open || to.After(o.To)
				outages = append(outages, o)
			}
		}
	}
	return events, outages, rows.Err()
}
