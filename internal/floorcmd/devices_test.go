package floorcmd

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/pitreport"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// devicesJournal is table id's journal of a morning of device trouble, from 09:00: the
// shuffler's set; a failed read of the shoe and an E3 alarm; the shoe lost 09:20 to
// 09:32; the shoe's end at 09:50 and the shuffler's next set 6 minutes later; the
// shuffler lost at 10:10, and still lost. Each event is stepped through the round
// controller, none refused.
func devicesJournal(t *testing.T, id string) []archive.Record {
	t.Helper()
	cfg := round.DefaultConfig(baccarat.MustLookup("rws", baccarat.Options{}))
	cfg.Burn = round.BurnNone
	ctl, err := round.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var recs []archive.Record
	var prev journal.Hash
	add := func(e table.Entry) {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		seq := uint64(len(recs) + 1)
		r := archive.Record{Seq: seq, Hash: journal.ChainHash(prev, seq, data), Data: data}
		prev = r.Hash
		recs = append(recs, r)
	}
	add(table.Entry{Settings: &table.Settings{Table: id, Round: cfg, AutoConfirm: true, AutoCloseInsurance: true}})
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	at := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	for _, ev := range []round.Event{
		{Kind: round.NewShoe, At: at(9, 0), Set: "1", Decks: 8, Cards: 416, Actor: "shuffler"},
		{Kind: round.CardDrawn, At: at(9, 5), Actor: "shoe", Detail: `frame at offset 40: "[Game]<Game>": the shoe failed to read a card`},
		{Kind: round.Report, At: at(9, 6), Irregularity: irregularities.DeviceFault, Role: irregularities.Dealer, Actor: "shoe",
			Detail: "[GameAlarm]<Alarm:E3 Card Not Read>"},
		{Kind: round.DeviceLost, At: at(9, 20), Detail: "shoe"},
		{Kind: round.DeviceBack, At: at(9, 32), Detail: "shoe"},
		{Kind: round.ShoeEnd, At: at(9, 50)},
		{Kind: round.DealerOn, At: at(9, 53), Role: irregularities.Dealer, Actor: "D-ANA"},
		{Kind: round.NewShoe, At: at(9, 56), Set: "2", Decks: 8, Cards: 416, Actor: "shuffler"},
		{Kind: round.DeviceLost, At: at(10, 10), Detail: "shuffler"},
	} {
		for _, e := range ctl.Step(ev) {
			if e.Kind == round.EventRefused {
				t.Fatalf("%s refused: %s", ev, e.Reason())
			}
		}
		add(table.Entry{Event: &ev})
	}
	return recs
}

// devicesArchive is a SQLite archive holding devicesJournal of table id, signed and
// stored whole; it returns the database's path and the archive on it, whose database
// the test closes when it ends.
func devicesArchive(t *testing.T, id string) (string, *archive.Archive) {
	t.Helper()
	ctx := context.Background()
	dsn := filepath.Join(t.TempDir(), "archive.db")
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	db, err := archive.OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	a := archive.New(db, archive.Keys{id: {key.Public().(ed25519.PublicKey)}}, archive.Options{})
	recs := devicesJournal(t, id)
	last := recs[len(recs)-1]
	signed, err := journal.SignTable(key, id, last.Seq, last.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := a.Ingest(ctx, id, archive.Batch{Records: recs, Signed: signed, Written: last.Seq}); err != nil || res.Stored != len(recs) || len(res.Alarms) != 0 {
		t.Fatalf("ingest: %+v, %v", res, err)
	}
	return dsn, a
}

// TestDevicesCommand: tablectl-floor devices reads a SQLite archive holding a table's
// device trouble and gives, as JSON by hour, each device's events, the shuffler's
// delay and each device's time offline, a device still lost counted to the range's
// end; --events lists each event with what the shoe read; the CSV and the page for A4
// say the same in their forms.
func TestDevicesCommand(t *testing.T) {
	t.Parallel()
	const id = "pit4-bac02"
	dsn, _ := devicesArchive(t, id)

	span := []string{"--db", dsn, "--from", "2026-03-02T08:00:00Z", "--to", "2026-03-02T10:30:00Z", "--tz", "UTC"}
	out, errs, err := runCmd(t, "", append([]string{"devices", "--by", "hour", "--format", "json"}, span...)...)
	if err != nil {
		t.Fatalf("devices: %v\n%s", err, errs)
	}
	var lines []pitreport.DeviceLine
	if err := json.Unmarshal([]byte(out), &lines); err != nil {
		t.Fatalf("devices: %v\n%s", err, out)
	}
	var got []string
	for _, l := range lines {
		if l.Table != id {
			t.Errorf("devices gives table %q", l.Table)
		}
		s := fmt.Sprintf("%s %s", l.From.UTC().Format("15:04"), l.Device)
		for _, k := range []string{"unreadable", "fault", "shuffle", "disconnected", "reconnected"} {
			if n := l.Counts[k]; n != 0 {
				s += fmt.Sprintf(" %s=%d", k, n)
			}
		}
		s += fmt.Sprintf(" delays=%d mean=%dms max=%dms offline=%dms", l.Delays, l.DelayMeanMS, l.DelayMaxMS, l.OfflineMS)
		got = append(got, s)
	}
	want := []string{
		"09:00 shoe unreadable=1 fault=1 disconnected=1 reconnected=1 delays=0 mean=0ms max=0ms offline=720000ms",
		"09:00 shuffler shuffle=2 delays=1 mean=360000ms max=360000ms offline=0ms",
		"10:00 shuffler disconnected=1 delays=0 mean=0ms max=0ms offline=1200000ms", // lost at 10:10, to the range's end
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("devices by hour:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	out, errs, err = runCmd(t, "", append([]string{"devices", "--events", "--format", "json"}, span...)...)
	if err != nil {
		t.Fatalf("devices --events: %v\n%s", err, errs)
	}
	var evs []pitreport.DeviceEventLine
	if err := json.Unmarshal([]byte(out), &evs); err != nil {
		t.Fatal(err)
	}
	if len(evs) != 7 || evs[1].Kind != "unreadable" || !strings.Contains(evs[1].Detail, "[Game]<Game>") ||
		evs[2].Detail != "[GameAlarm]<Alarm:E3 Card Not Read>" || evs[4].DelayMS == nil || *evs[4].DelayMS != 12*60*1000 {
		t.Errorf("devices --events: %s", out)
	}

	csv, _, err := runCmd(t, "", append([]string{"devices", "--by", "day"}, span...)...)
	if err != nil || !strings.HasPrefix(csv, "table,pit,device,from,to,unreadable,restarts,faults,reports,shuffles,disconnects,cards missed,mean delay,longest delay,offline\n") ||
		!strings.Contains(csv, id+",,shuffler,2026-03-02 00:00,2026-03-03 00:00,0,0,0,0,2,1,0,6:00,6:00,20:00\n") {
		t.Errorf("devices as CSV: %v\n%s", err, csv)
	}
	page, _, err := runCmd(t, "", append([]string{"devices", "--format", "html"}, span...)...)
	if err != nil || !strings.Contains(page, "<h2>Devices</h2>") || !strings.Contains(page, "shuffler") {
		t.Errorf("devices --format html: %v\n%s", err, page)
	}
}
