package archive

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/pit"
	"github.com/tablectl/tablectl/round"
)

// tallyKey is what a tally is kept by.
type tallyKey struct {
	table, dealer string
	hour          time.Time
}

// talliesOfRounds sums rounds, as PitRounds reads them, by what by groups and UTC hour:
// what the tallies should hold.
func talliesOfRounds(rounds []pit.Round, by pit.By) map[tallyKey]pit.Tally {
	out := map[tallyKey]pit.Tally{}
	for _, r := range rounds {
		t := pit.TallyOf(r)
		if t.Hour.IsZero() {
			continue
		}
		switch by {
		case pit.ByTable:
			t.Dealer = ""
		case pit.ByDealer:
			t.Table, t.Pit = "", ""
		case pit.ByPit:
			t.Table, t.Dealer = "", ""
		}
		k := tallyKey{t.Table + "/" + t.Pit, t.Dealer, t.Hour.Truncate(time.Hour)}
		s, ok := out[k]
		if !ok {
			s = pit.Tally{Table: t.Table, Dealer: t.Dealer, Pit: t.Pit, Hour: k.hour}
		}
		s.Rounds += t.Rounds
		s.Void += t.Void
		s.Sum.Betting += t.Sum.Betting
		s.Sum.Dealing += t.Sum.Dealing
		s.Sum.Windows += t.Sum.Windows
		s.Sum.Holds += t.Sum.Holds
		s.Sum.Confirm += t.Sum.Confirm
		s.Betting += t.Betting
		s.Dealing += t.Dealing
		s.Confirm += t.Confirm
		out[k] = s
	}
	return out
}

// threeHours cuts time into periods of three hours from midnight UTC.
var threeHours = mustShifts("00:00,03:00,06:00,09:00,12:00,15:00,18:00,21:00")

func mustShifts(s string) pit.Shifts {
	sh, err := pit.ParseShifts(s, time.UTC)
	if err != nil {
		panic(err)
	}
	return sh
}

// TestPaceTallies: three tables deal 130 rounds each (over a shoe's end), one in five
// irregular (held after its last card, every second of those void), their dealers
// relieved every 20 rounds and none on for a while; the archive is restarted after
// every third batch (in the middle of a shoe, its rounds replayed without writing), and
// the database refuses one round's row (its record is then stored without its rows).
// The hourly tallies hold what the rounds rows do, counted from them by table, dealer and
// pit; the pace figures from the tallies, by table, dealer and pit, by hour, day, three
// hours and over the whole range, are the figures from the rounds.
func TestPaceTallies(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		const tables, rounds, batch = 3, 130, 37
		keys := genKeys(tables)
		a := New(db, keys, Options{Now: fixedNow})
		refuse(t, db, "refuse_round", "rounds", fmt.Sprintf("NEW.table_id = '%s' AND NEW.shoe = 1 AND NEW.round = 12", genTableID(1)))
		gens := make([]*tableGen, tables)
		pending := make([][]Record, tables)
		for i := range gens {
			var first Record
			gens[i], first = newTableGen(t, genTableID(i), uint64(i)+7, genStart)
			gens[i].irregularEvery, gens[i].irregularOffset = 5, i
			pending[i] = []Record{first}
		}
		event := func(i int, ev round.Event) {
			r, effs := gens[i].event(t, ev)
			for _, e := range effs {
				if e.Kind == round.EventRefused {
					t.Fatalf("table %d: %s refused: %s", i, ev, e.Reason())
				}
			}
			pending[i] = append(pending[i], r)
		}
		sends, alarms := 0, 0
		send := func(i int) {
			res, err := a.Ingest(ctx, gens[i].id, genBatch(t, gens[i].id, pending[i]))
			if err != nil || res.Stored != len(pending[i]) {
				t.Fatalf("table %s: %d records: %+v %v", gens[i].id, len(pending[i]), res, err)
			}
			alarms += len(res.Alarms)
			pending[i] = pending[i][:0]
			if sends++; sends%3 == 0 {
				a = New(db, keys, Options{Now: fixedNow}) // the archive restarted
			}
		}
		for n := range rounds {
			for i, g := range gens {
				switch {
				case n%20 == 0 && n/20%3 != 2:
					event(i, round.Event{Kind: round.DealerOn, Role: irregularities.Supervisor, Actor: "S-1", Dealer: fmt.Sprintf("D-%d", (n/20+i)%4)})
				case n%20 == 0:
					event(i, round.Event{Kind: round.DealerOff, Role: irregularities.Supervisor, Actor: "S-1"})
				}
				pending[i] = g.round(t, pending[i])
				if len(pending[i]) >= batch {
					send(i)
				}
			}
		}
		for i := range gens {
			if len(pending[i]) > 0 {
				send(i)
			}
		}
		dealt := `SELECT COUNT(*) FROM rounds WHERE player_cards <> ''`
		if alarms != 1 || count(t, db, dealt) != tables*rounds-1 {
			t.Fatalf("%d alarms, %d rounds dealt; want the one round refused", alarms, count(t, db, dealt))
		}
		if _, err := db.SQL().Exec(`UPDATE tables SET pit = CASE WHEN table_id = $1 THEN 'pit-b' ELSE 'pit-a' END`, genTableID(2)); err != nil {
			t.Fatal(err)
		}

		f := PitFilter{From: genStart.Add(-time.Hour), To: genStart.Add(6 * time.Hour)}
		rs, err := db.PitRounds(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, by := range []pit.By{pit.ByTable, pit.ByDealer, pit.ByPit} {
			tallies, err := db.PaceTallies(ctx, f, by, pit.Hours{})
			if err != nil {
				t.Fatal(err)
			}
			want := talliesOfRounds(rs, by)
			got := map[tallyKey]pit.Tally{}
			for _, tl := range tallies {
				k := tallyKey{tl.Table + "/" + tl.Pit, tl.Dealer, tl.Hour}
				if _, twice := got[k]; twice {
					t.Fatalf("by %d: tally %+v given twice", by, k)
				}
				got[k] = tl
			}
			if !reflect.DeepEqual(got, want) {
				for k, w := range want {
					if got[k] != w {
						t.Errorf("by %d: tally %v: %+v, counted from the rounds %+v", by, k, got[k], w)
					}
				}
				for k, g := range got {
					if _, ok := want[k]; !ok {
						t.Errorf("by %d: tally %v: %+v, of no round", by, k, g)
					}
				}
				t.FailNow()
			}
			if by != pit.ByDealer {
				continue
			}
			// The fill has what the tallies must count: voids, holds, several dealers
			// and none, rounds in several hours.
			var void int
			var holds time.Duration
			hours, dealers := map[time.Time]bool{}, map[string]bool{}
			for k, tl := range got {
				void += tl.Void
				holds += tl.Sum.Holds
				hours[k.hour], dealers[k.dealer] = true, true
			}
			if void == 0 || holds == 0 || len(dealers) < 5 || !dealers[""] || len(hours) < 3 || len(rs) != tables*rounds-1 {
				t.Fatalf("%d void, %v held, dealers %v, %d hours, %d rounds: the fill does not try the tallies", void, holds, dealers, len(hours), len(rs))
			}
		}

		stills, err := db.Stills(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range []pit.Buckets{pit.Hours{}, pit.Days{}, pit.Span{From: f.From, To: f.To}, threeHours} {
			for _, by := range []pit.By{pit.ByTable, pit.ByDealer, pit.ByPit} {
				tallies, err := db.PaceTallies(ctx, f, by, b)
				if err != nil {
					t.Fatal(err)
				}
				if w, g := pit.Pace(rs, stills, by, b), pit.PaceOfTallies(tallies, stills, by, b); !reflect.DeepEqual(g, w) {
					t.Fatalf("%T by %d: from the tallies\n%#v\nfrom the rounds\n%#v", b, by, g, w)
				}
			}
		}
		// A pit's, a dealer's and a table's tallies.
		for _, c := range []PitFilter{{Pit: "pit-b"}, {Dealer: "D-1"}, {Table: genTableID(0)}} {
			c.From, c.To = f.From, f.To
			rs, err := db.PitRounds(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			tl, err := db.PaceTallies(ctx, c, pit.ByDealer, pit.Hours{})
			if err != nil {
				t.Fatal(err)
			}
			w, g := pit.Pace(rs, nil, pit.ByDealer, pit.Hours{}), pit.PaceOfTallies(tl, nil, pit.ByDealer, pit.Hours{})
			if len(w) == 0 || !reflect.DeepEqual(g, w) {
				t.Fatalf("%+v: from the tallies\n%+v\nfrom the rounds\n%+v", c, g, w)
			}
		}
	})
}

// TestPaceTalliesFromVersion5: rounds derived before the tallies were kept (schema
// version 5) are tallied by the migration: the figures from the tallies are those from
// the rounds rows, which have no phases, and void ones are credited to no hour.
func TestPaceTalliesFromVersion5(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openAt(t, dsn, 5)
		end := genStart
		for i := range 90 {
			end = genStart.Add(time.Duration(i) * 100 * time.Second)
			if _, err := db.SQL().Exec(`INSERT INTO rounds (table_id, shoe, round, first_seq, last_seq, started_at, ended_at,
				player_cards, banker_cards, winner, player_points, banker_points, void, void_reason, settlements)
				VALUES ($1, 1, $2, $3, $3, $4, $4, '9S KD', '2C 3H', 'player', 9, 5, $5, '', '[]')`,
				genTableID(i%2), int64(i), int64(i+1), db.ts(end), i%7 == 0); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.SQL().Exec(`INSERT INTO rounds (table_id, shoe, round, first_seq, last_seq, started_at, ended_at,
			player_cards, banker_cards, winner, player_points, banker_points, void, void_reason, settlements)
			VALUES ('t9', 1, 1, 1, 1, $1, $1, '', '', '', 0, 0, true, 'no cards', '[]')`, db.ts(genStart)); err != nil {
			t.Fatal(err)
		}
		if err := db.migrate(ctx); err != nil {
			t.Fatal(err)
		}
		f := PitFilter{From: genStart.Truncate(time.Hour), To: end.Truncate(time.Hour).Add(time.Hour)}
		rs, err := db.PitRounds(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range []pit.Buckets{pit.Hours{}, pit.Span{From: f.From, To: f.To}} {
			for _, by := range []pit.By{pit.ByTable, pit.ByDealer} {
				tl, err := db.PaceTallies(ctx, f, by, b)
				if err != nil {
					t.Fatal(err)
				}
				w, g := pit.Pace(rs, nil, by, b), pit.PaceOfTallies(tl, nil, by, b)
				if len(w) == 0 || !reflect.DeepEqual(g, w) {
					t.Fatalf("%T by %d: from the tallies\n%#v\nfrom the rounds\n%#v", b, by, g, w)
				}
				if n := slices.IndexFunc(tl, func(x pit.Tally) bool { return x.Void != 0 }); n >= 0 {
					t.Errorf("a void round tallied: %+v", tl[n])
				}
			}
		}
	})
}
