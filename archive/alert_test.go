package archive

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/history"
)

// TestAlertsKeptOnceWithTheFirstAcknowledgement: on both engines, the console's alerts
// are kept once by id (a duplicate changes nothing), the first acknowledgement stands
// and a second is ignored, an acknowledgement whose raising was lost is kept whole, and
// a reader (OpenReader) finds them by time, table, kind and those still open, in the
// order they were raised.
func TestAlertsKeptOnceWithTheFirstAcknowledgement(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		a := newArchive(t, openDB(t, dsn), Keys{})
		at := func(min int) time.Time { return time.Date(2026, 3, 2, 14, min, 0, 0, time.UTC) }
		rec := func(id, table, kind string, raised int, text string) api.AlertRecord {
			return api.AlertRecord{Schema: api.Schema, Table: table, ID: id, Kind: kind, Pit: "pit3",
				Since: at(raised - 5), Raised: at(raised), Text: text}
		}
		ack := func(r api.AlertRecord, by string, min int, note string) api.AlertRecord {
			r.Ack = &api.AlertAck{By: by, Role: "supervisor", At: at(min), Note: note}
			return r
		}
		held := rec("held/pit3-t07/2026-03-02T14:03:00Z/4", "pit3-t07", api.AlertHeld, 10, "held 7 minutes for #4 simultaneous draw")
		noDealer := rec("no-dealer/pit3-t08/2026-03-02T14:15:00Z", "pit3-t08", api.AlertNoDealer, 20, "dealing with no dealer on")
		pace := rec("pace/pit3-t07/2026-03-02T14:00:00Z", "pit3-t07", api.AlertPace, 30, "31 rounds in the hour, under 40\x00")
		late := rec("archive-late/pit3-t09/2026-03-02T14:35:00Z", "pit3-t09", api.AlertArchiveLate, 40, "record 812 not archived")
		dup := held
		dup.Text, dup.Kind = "another text", api.AlertPace
		for _, r := range []api.AlertRecord{
			pace, held, noDealer, dup,
			ack(held, "S-1", 12, "called the pit manager"),
			ack(held, "S-2", 13, "a second word"),          // ignored: the first stands
			ack(late, "S-3", 45, "the table is unplugged"), // its raising was lost
		} {
			if err := r.Check(r.Table); err != nil {
				t.Fatal(err)
			}
			if err := a.RecordAlert(ctx, r); err != nil {
				t.Fatalf("%s: %v", r.ID, err)
			}
		}

		rd, err := OpenReader(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		want := func(r api.AlertRecord) history.Alert {
			al := history.Alert{ID: r.ID, Table: r.Table, Pit: r.Pit, Kind: r.Kind, Since: r.Since, Raised: r.Raised, Text: r.Text}
			if r.Ack != nil {
				al.AckBy, al.AckRole, al.AckAt, al.AckNote = r.Ack.By, r.Ack.Role, r.Ack.At, r.Ack.Note
			}
			return al
		}
		paceKept := want(pace)
		paceKept.Text = "31 rounds in the hour, under 40\\u0000" // as the database can hold it
		heldAcked, lateAcked := want(ack(held, "S-1", 12, "called the pit manager")), want(ack(late, "S-3", 45, "the table is unplugged"))
		for _, c := range []struct {
			name string
			s    history.AlertSearch
			want []history.Alert
		}{
			{"all", history.AlertSearch{}, []history.Alert{heldAcked, want(noDealer), paceKept, lateAcked}},
			{"open", history.AlertSearch{Open: true}, []history.Alert{want(noDealer), paceKept}},
			{"a table", history.AlertSearch{Table: "pit3-t07"}, []history.Alert{heldAcked, paceKept}},
			{"a kind", history.AlertSearch{Kind: api.AlertArchiveLate}, []history.Alert{lateAcked}},
			{"a range", history.AlertSearch{From: at(20), To: at(40)}, []history.Alert{want(noDealer), paceKept}},
			{"from", history.AlertSearch{From: at(30)}, []history.Alert{paceKept, lateAcked}},
			{"open at a table until", history.AlertSearch{Table: "pit3-t07", Open: true, To: at(30)}, nil},
		} {
			got, err := rd.Alerts(ctx, c.s)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s: got\n%+v\nwant\n%+v", c.name, got, c.want)
			}
		}
	})
}
