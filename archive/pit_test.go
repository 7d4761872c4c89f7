package archive

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/pit"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// eventAt is the time of record r's event.
func eventAt(t *testing.T, r Record) time.Time {
	t.Helper()
	e, err := table.DecodeEntry(r.Seq, r.Data)
	if err != nil || e.Event == nil {
		t.Fatalf("record %d: %v, no event", r.Seq, err)
	}
	return e.Event.At
}

// TestPitFigures: a table's dealers take and leave it (a relief, a supervisor's
// dealer-off, a dealer without a login), it is held twice after a round's last card
// (once to a void), its shoe ends and the next starts 7 minutes later, and it is down
// for 10 minutes. The archive, restarted between two batches with a dealer on and the
// shoe ended, gives each round its dealer and times, the stints of the rotation, and the
// stretches the table stood still, each as the journal's times say (docs/pit.md).
func TestPitFigures(t *testing.T) {
	t.Parallel()
	const id = "pit1-t01"
	start := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	g, first := newTableGen(t, id, 41, start)
	g.irregularEvery = 3
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
	dealerOn := func(role irregularities.Role, actor, dealer string) {
		event(round.Event{Kind: round.DealerOn, Role: role, Actor: actor, Dealer: dealer})
	}
	dealerOn(irregularities.Dealer, "D-ANA", "")
	anaOn := last()
	rounds(4) // rounds 3, 6 and 9: held after their last card; 3 and 9 then void
	dealerOn(irregularities.Dealer, "D-BEN", "")
	benOn := last()
	rounds(2)
	event(round.Event{Kind: round.DealerOff, Role: irregularities.Supervisor, Actor: "S-1"})
	benOff := last()
	g.at = g.at.Add(5 * time.Minute)
	dealerOn(irregularities.Supervisor, "S-1", "D-CY")
	cyOn := last()
	rounds(1)
	event(round.Event{Kind: round.ShoeEnd})
	shoeEnded := last()
	g.shoe = nil
	g.at = g.at.Add(7 * time.Minute)
	rounds(1)
	batch1 := len(recs)
	down := last()
	g.at = g.at.Add(10 * time.Minute)
	event(round.Event{Kind: round.PowerRestored})
	up := last()
	rounds(1)
	event(round.Event{Kind: round.DealerOff, Role: irregularities.Dealer, Actor: "D-CY"})
	cyOff := last()

	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		keys := Keys{id: genKeys(1)[genTableID(0)]}
		ingestBatch(t, newArchive(t, db, keys), id, genBatch(t, id, recs[:batch1]))
		// A new archive on the database takes up from the state kept at the shoe's end.
		a := newArchive(t, db, keys)
		if res := ingestBatch(t, a, id, genBatch(t, id, recs[batch1:])); res.Stored != len(recs)-batch1 {
			t.Fatalf("the second batch: %+v", res)
		}
		if err := a.SetPit(ctx, id, "pit1"); err != nil {
			t.Fatal(err)
		}
		f := PitFilter{From: start.Add(-time.Hour), To: cyOff.Add(time.Hour), Now: cyOff.Add(30 * time.Minute)}

		rs, err := db.PitRounds(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var dealers []string
		for _, r := range rs {
			dealers = append(dealers, r.Dealer)
			if r.Table != id || r.Pit != "pit1" || r.Opened.IsZero() || r.FirstCard.Sub(r.Opened) < 0 || r.Complete.Before(r.FirstCard) {
				t.Errorf("round %+v: times out of order", r)
			}
		}
		if got, want := strings.Join(dealers, " "), "D-ANA D-ANA D-ANA D-ANA D-BEN D-BEN D-CY D-CY D-CY"; got != want {
			t.Fatalf("the rounds' dealers: %s, want %s", got, want)
		}
		for i, r := range rs {
			held := time.Duration(0)
			if i%3 == 2 {
				held = genCardEvery // reported at the last card, decided a card's time later
			}
			if r.HeldAfter != held || r.Held != 0 || r.Windows != 0 || r.Void != (i == 2 || i == 8) {
				t.Errorf("round %d: held %v after its last card, %v before, windows %v, void %v; want %v after, rounds 3 and 9 void",
					i+1, r.HeldAfter, r.Held, r.Windows, r.Void, held)
			}
			if p := pit.PhasesOf(r); p.Dealing <= 0 || p.Confirm != 0 || p.Holds != held {
				t.Errorf("round %d: phases %+v, want a dealing time and no confirm time (confirmed at once)", i+1, p)
			}
		}

		stills, err := db.Stills(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		want := []pit.Still{
			{Table: id, Pit: "pit1", Why: "no dealer", From: benOff, To: cyOn},
			{Table: id, Pit: "pit1", Why: "shuffling", From: shoeEnded},
			{Table: id, Pit: "pit1", Why: "offline", From: down, To: up},
			{Table: id, Pit: "pit1", Why: "no dealer", From: cyOff, To: f.Now},
		}
		// The next shoe starts 7 minutes after the round's next opening was due.
		want[1].To = newShoeAfter(t, recs, shoeEnded)
		if fmt.Sprint(stills) != fmt.Sprint(want) {
			t.Fatalf("stand-still:\n%v\nwant\n%v", stills, want)
		}
		if want[1].To.Sub(want[1].From) < 7*time.Minute || up.Sub(down) < 10*time.Minute || cyOn.Sub(benOff) != 5*time.Minute {
			t.Fatalf("the script's gaps: shuffling %v, offline %v, no dealer %v", want[1].To.Sub(want[1].From), up.Sub(down), cyOn.Sub(benOff))
		}

		stints, err := db.Rotation(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		wantStints := []pit.Stint{
			{Table: id, Pit: "pit1", Dealer: "D-ANA", From: anaOn, To: benOn, OnRole: "dealer", OnBy: "D-ANA", OffRole: "dealer", OffBy: "D-BEN", Note: `relieved by "D-BEN"`},
			{Table: id, Pit: "pit1", Dealer: "D-BEN", From: benOn, To: benOff, OnRole: "dealer", OnBy: "D-BEN", OffRole: "supervisor", OffBy: "S-1"},
			{Table: id, Pit: "pit1", Dealer: "D-CY", From: cyOn, To: cyOff, OnRole: "supervisor", OnBy: "S-1", OffRole: "dealer", OffBy: "D-CY"},
		}
		if fmt.Sprint(stints) != fmt.Sprint(wantStints) {
			t.Fatalf("rotation:\n%+v\nwant\n%+v", stints, wantStints)
		}
		// By dealer and by pit, the filters choose.
		f.Dealer = "D-BEN"
		if rs, err := db.PitRounds(ctx, f); err != nil || len(rs) != 2 {
			t.Fatalf("D-BEN's rounds: %d, %v; want 2", len(rs), err)
		}
		if ss, err := db.Rotation(ctx, f); err != nil || len(ss) != 1 || ss[0].Dealer != "D-BEN" {
			t.Fatalf("D-BEN's stints: %+v, %v", ss, err)
		}
		f.Dealer, f.Pit = "", "pit2"
		if rs, err := db.PitRounds(ctx, f); err != nil || len(rs) != 0 {
			t.Fatalf("pit2's rounds: %d, %v; want none", len(rs), err)
		}
	})
}

// newShoeAfter is the time of the first new-shoe event after at in recs.
func newShoeAfter(t *testing.T, recs []Record, at time.Time) time.Time {
	t.Helper()
	for _, r := range recs {
		var e table.Entry
		if err := json.Unmarshal(r.Data, &e); err != nil {
			t.Fatal(err)
		}
		if e.Event != nil && e.Event.Kind == round.NewShoe && e.Event.At.After(at) {
			return e.Event.At
		}
	}
	t.Fatal("no new shoe")
	return time.Time{}
}
