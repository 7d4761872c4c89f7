package archive

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/pit"
	"github.com/tablectl/tablectl/round"
)

// TestDeviceFigures: a table's shoe fails to read two cards (one of them after two
// cards passed unread, by its numbers) and raises an E3 alarm; its shuffler is lost for
// 4 minutes, and again before the table goes down for 10 minutes; its shoe is lost
// before a shoe's end and back after the next shoe's start, and lost again at the end;
// its shoes end 7 and 3 minutes before the shuffler's next sets. The archive, restarted
// between two batches with the shoe down and the shoe ended, gives each device's events,
// its outages and its figures as the script's times say (docs/pit.md, "Devices").
func TestDeviceFigures(t *testing.T) {
	t.Parallel()
	const id = "pit2-t07"
	start := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	g, first := newTableGen(t, id, 43, start)
	recs := []Record{first}
	event := func(ev round.Event) {
		r, effs := g.event(t, ev)
		for _, e := range effs {
			if e.Kind == round.EventRefused {
				t.Fatalf("%s refused: %s", ev, e.Reason())
			}
		}
		recs = append(recs, r)
	}
	last := func() time.Time { return eventAt(t, recs[len(recs)-1]) }
	rounds := func(n int) {
		for range n {
			recs = g.round(t, recs)
		}
	}
	const failedRead = `frame at offset 120: "[Game]<Game>": the shoe failed to read a card`
	const e3 = "[GameAlarm]<Alarm:E3 Card Not Read>"
	rounds(1) // set 1: no shoe ended before it
	g.at = g.at.Add(time.Second)
	event(round.Event{Kind: round.CardDrawn, Actor: "shoe", Detail: failedRead, Seq: g.cardNo + 3})
	g.cardNo += 3
	g.pos += 3 // the three cards that passed unread are the order's next (round.Controller)
	event(round.Event{Kind: round.Report, Irregularity: irregularities.DeviceFault, Role: irregularities.Dealer, Actor: "shoe", Detail: e3})
	const lamp = "output light_green on could not be set: gpio: light_green: set true: input/output error"
	event(round.Event{Kind: round.Report, Irregularity: irregularities.DeviceFault, Role: irregularities.Dealer, Actor: "gpio", Detail: lamp})
	event(round.Event{Kind: round.DeviceLost, Detail: "shuffler"})
	shufflerLost := last()
	g.at = g.at.Add(4 * time.Minute)
	event(round.Event{Kind: round.DeviceBack, Detail: "shuffler"})
	rounds(1)
	event(round.Event{Kind: round.ShoeEnd})
	g.shoe = nil
	g.at = g.at.Add(2 * time.Minute)
	event(round.Event{Kind: round.DealerOn, Role: irregularities.Dealer, Actor: "D-ANA"}) // an event between: the delay is the shoe end's
	g.at = g.at.Add(5 * time.Minute)
	rounds(1) // set 2, 7 minutes after the shoe's end
	event(round.Event{Kind: round.CardDrawn, Actor: "shoe", Detail: `line 3: "7X": not a card`})
	g.pos++
	event(round.Event{Kind: round.DeviceLost, Detail: "shoe"})
	shoeLost := last()
	g.at = g.at.Add(time.Minute)
	event(round.Event{Kind: round.ShoeEnd})
	g.shoe = nil
	batch1 := len(recs)
	g.at = g.at.Add(3 * time.Minute)
	rounds(1) // set 3, 3 minutes after the shoe's end
	g.at = g.at.Add(2 * time.Minute)
	event(round.Event{Kind: round.DeviceBack, Detail: "shoe"})
	shoeBack := last()
	event(round.Event{Kind: round.DeviceLost, Detail: "shuffler"})
	shufflerLost2 := last()
	rounds(1)
	down := last()
	g.at = g.at.Add(10 * time.Minute)
	event(round.Event{Kind: round.PowerRestored})
	rounds(1)
	event(round.Event{Kind: round.DeviceLost, Detail: "shoe"})
	shoeLost2 := last()

	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		keys := Keys{id: genKeys(1)[genTableID(0)]}
		ingestBatch(t, newArchive(t, db, keys), id, genBatch(t, id, recs[:batch1]))
		// A new archive on the database takes up from the state kept at the shoe's end,
		// the shoe down.
		a := newArchive(t, db, keys)
		if res := ingestBatch(t, a, id, genBatch(t, id, recs[batch1:])); res.Stored != len(recs)-batch1 {
			t.Fatalf("the second batch: %+v", res)
		}
		if err := a.SetPit(ctx, id, "pit2"); err != nil {
			t.Fatal(err)
		}
		now := shoeLost2.Add(20 * time.Minute)
		f := PitFilter{From: start.Add(-time.Hour), To: now.Add(time.Hour), Now: now}
		events, outages, err := db.Devices(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range events {
			if e.Table != id || e.Pit != "pit2" {
				t.Errorf("event %+v: want table %s in pit2", e, id)
			}
			s := fmt.Sprintf("%s %s", e.Device, e.Kind)
			if e.Cards != 0 {
				s += fmt.Sprintf(" cards=%d", e.Cards)
			}
			if e.Delayed {
				s += fmt.Sprintf(" after=%v", e.Delay)
			}
			if e.Kind == pit.DeviceUnreadable || e.Kind == pit.DeviceFault {
				s += ": " + e.Detail
			}
			got = append(got, s)
		}
		want := []string{
			"shuffler shuffle cards=416",
			"shoe missed cards=2",
			"shoe unreadable cards=1: " + failedRead,
			"shoe fault: " + e3,
			"gpio fault: " + lamp,
			"shuffler disconnected",
			"shuffler reconnected after=4m0s",
			"shuffler shuffle cards=416 after=7m0s",
			`shoe unreadable cards=1: line 3: "7X": not a card`,
			"shoe disconnected",
			"shuffler shuffle cards=416 after=3m0s",
			fmt.Sprintf("shoe reconnected after=%v", shoeBack.Sub(shoeLost)),
			"shuffler disconnected",
			"shoe disconnected",
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("the devices' events:\n%q\nwant\n%q", got, want)
		}
		wantOut := []pit.Outage{
			{Table: id, Pit: "pit2", Device: "shuffler", From: shufflerLost, To: shufflerLost.Add(4 * time.Minute)},
			{Table: id, Pit: "pit2", Device: "shoe", From: shoeLost, To: shoeBack},
			{Table: id, Pit: "pit2", Device: "shuffler", From: shufflerLost2, To: down}, // the table's restart ends it at its last event
			{Table: id, Pit: "pit2", Device: "shoe", From: shoeLost2, To: now, Open: true},
		}
		if fmt.Sprint(outages) != fmt.Sprint(wantOut) {
			t.Fatalf("the outages:\n%v\nwant\n%v", outages, wantOut)
		}
		if shoeBack.Sub(shoeLost) < 6*time.Minute || down.Sub(shufflerLost2) <= 0 {
			t.Fatalf("the script's gaps: shoe %v, shuffler %v", shoeBack.Sub(shoeLost), down.Sub(shufflerLost2))
		}

		figs := pit.Devices(events, outages, pit.Days{})
		if len(figs) != 3 {
			t.Fatalf("%d figures, want the panel's, the shoe's and the shuffler's: %+v", len(figs), figs)
		}
		panel, shoe, shuffler := figs[0], figs[1], figs[2]
		if panel.Device != "gpio" || fmt.Sprint(panel.Counts) != fmt.Sprint(map[string]int{pit.DeviceFault: 1}) {
			t.Errorf("the panel's figures %+v; want one fault", panel)
		}
		wantCounts := map[string]int{pit.DeviceUnreadable: 2, pit.DeviceMissed: 1, pit.DeviceFault: 1, pit.DeviceDisconnected: 2, pit.DeviceReconnected: 1}
		if shoe.Device != "shoe" || fmt.Sprint(shoe.Counts) != fmt.Sprint(wantCounts) || shoe.Missed != 2 ||
			shoe.Offline != shoeBack.Sub(shoeLost)+20*time.Minute || shoe.Delays != 0 {
			t.Errorf("the shoe's figures %+v; want counts %v, 2 cards missed, offline %v", shoe, wantCounts, shoeBack.Sub(shoeLost)+20*time.Minute)
		}
		wantCounts = map[string]int{pit.DeviceShuffle: 3, pit.DeviceDisconnected: 2, pit.DeviceReconnected: 1}
		if shuffler.Device != "shuffler" || fmt.Sprint(shuffler.Counts) != fmt.Sprint(wantCounts) || shuffler.Delays != 2 ||
			shuffler.DelayMean != 5*time.Minute || shuffler.DelayMax != 7*time.Minute || shuffler.Offline != 4*time.Minute+down.Sub(shufflerLost2) {
			t.Errorf("the shuffler's figures %+v; want counts %v, delays 5m0s on average, 7m0s at most, offline %v",
				shuffler, wantCounts, 4*time.Minute+down.Sub(shufflerLost2))
		}

		// A range starting while the shoe is down gives its outage from the range's
		// start, and none of the events before.
		f.From = shoeLost.Add(time.Minute)
		events, outages, err = db.Devices(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 4 || events[0].Kind != pit.DeviceShuffle || len(outages) != 3 ||
			!outages[0].From.Equal(f.From) || !outages[0].To.Equal(shoeBack) || outages[0].Device != "shoe" {
			t.Errorf("from %v: %d events (%+v), outages %+v", f.From, len(events), events, outages)
		}
		// By table and pit, the filters choose.
		f.Pit = "pit1"
		if events, outages, err := db.Devices(ctx, f); err != nil || len(events)+len(outages) != 0 {
			t.Errorf("pit1's devices: %+v, %+v, %v; want none", events, outages, err)
		}
		f.Pit, f.Table = "", "pit2-t08"
		if events, outages, err := db.Devices(ctx, f); err != nil || len(events)+len(outages) != 0 {
			t.Errorf("table pit2-t08's devices: %+v, %+v, %v; want none", events, outages, err)
		}
	})
}
