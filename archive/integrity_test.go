package archive

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// dealSet plays cards at g's table as one set: a new shoe (reported is the shuffler's
// order, nil for none), rounds until fewer than six cards are left, the shoe's end. A
// hold is decided at once by a supervisor: proceed where the rules allow it, else their
// first choice.
func (g *tableGen) dealSet(t testing.TB, cards, reported []baccarat.Card, out []Record) []Record {
	t.Helper()
	g.sets++
	ev := round.Event{Kind: round.NewShoe, Set: fmt.Sprint(g.sets), Decks: 8, Order: reported}
	if reported != nil {
		ev.Cards = len(reported)
	}
	r, effs := g.event(t, ev)
	out = append(out, r)
	if !hasEffect(effs, round.ShoeStarted) {
		t.Fatalf("table %s: set %d does not start: %v", g.id, g.sets, effs)
	}
	pos := 0
	for len(cards)-pos >= 6 {
		start := g.at
		r, _ := g.event(t, round.Event{Kind: round.BetsClosed})
		out = append(out, r)
		for step := 0; ; step++ {
			if step > 30 {
				t.Fatalf("table %s: a round does not end: %+v", g.id, g.ctl.State())
			}
			st := g.ctl.State()
			if st.Held.ID != 0 {
				entry := irregularities.Lookup(st.Held.Kind)
				choice := entry.Choices[0]
				if slices.Contains(entry.Choices, irregularities.Proceed) {
					choice = irregularities.Proceed
				}
				g.at = g.at.Add(genCardEvery)
				r, _ := g.event(t, round.Event{Kind: round.Decide, ID: st.Held.ID, Choice: choice, Role: irregularities.Supervisor, Actor: "sup-ana"})
				out = append(out, r)
				continue
			}
			if st.Phase == round.Complete {
				r, _ := g.event(t, round.Event{Kind: round.ConfirmResult})
				out = append(out, r)
				break
			}
			if st.Phase != round.Dealing || pos >= len(cards) {
				break
			}
			g.at = g.at.Add(genCardEvery)
			g.cardNo++
			r, effs := g.event(t, round.Event{Kind: round.CardDrawn, Card: cards[pos], Seq: g.cardNo})
			pos++
			out = append(out, r)
			if hasEffect(effs, round.InsuranceOffered) {
				r, _ := g.event(t, round.Event{Kind: round.InsuranceWindowClosed})
				out = append(out, r)
			}
		}
		g.at = start.Add(genRoundEvery)
	}
	r, _ = g.event(t, round.Event{Kind: round.ShoeEnd})
	return append(out, r)
}

// dealt is what dealSet reads of cards: every card but the last five or fewer, as the
// rounds take them (each round takes the cards it needs). It plays the rounds as the
// Table of Play does.
func dealtOf(cards []baccarat.Card) []baccarat.Card {
	pos := 0
	for len(cards)-pos >= 6 {
		_, n := baccarat.CoupOf(cards[pos:]...)
		pos += n
	}
	return cards[:pos]
}

// ship ingests recs of generated table id in batches of 500, and fails the test
// unless each is stored whole with no alarm.
func ship(t testing.TB, a *Archive, id string, recs []Record) {
	t.Helper()
	for len(recs) > 0 {
		part := recs[:min(500, len(recs))]
		recs = recs[len(part):]
		res, err := a.Ingest(context.Background(), id, genBatch(t, id, part))
		if err != nil || res.Stored != len(part) || len(res.Alarms) != 0 {
			t.Fatalf("table %s: %d records: %+v %v", id, len(part), res, err)
		}
	}
}

// integrityAlarms reads the integrity alarms of dsn.
func integrityAlarms(t testing.TB, dsn string) []history.IntegrityAlarm {
	t.Helper()
	rd, err := OpenReader(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	as, err := rd.IntegrityAlarms(context.Background(), history.AlertSearch{})
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// kinds lists the alarms' kinds and ids, for a failure's message.
func kinds(as []history.IntegrityAlarm) string {
	var b strings.Builder
	for _, a := range as {
		fmt.Fprintf(&b, "\n  %s %s: %s", a.Kind, a.ID, a.Text)
	}
	return b.String()
}

// TestIntegrityHonestShoesRaiseNothing: on both engines, three tables dealing shuffled
// shoes (the shuffler reporting each order) raise no integrity alarm; each set is kept
// with its order as read and the shuffler's, and one key for each run of eleven cards.
func TestIntegrityHonestShoesRaiseNothing(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		db := openDB(t, dsn)
		a := New(db, genKeys(3), Options{Now: fixedNow})
		fillTables(t, a, 3, 200, 60) // about three shoes a table
		if as := integrityAlarms(t, dsn); len(as) != 0 {
			t.Fatalf("honest shoes raised %d alarms:%s", len(as), kinds(as))
		}
		shoes := count(t, db, `SELECT COUNT(*) FROM shoes WHERE set_order IS NOT NULL AND set_cards = 416`)
		if all := count(t, db, `SELECT COUNT(*) FROM shoes`); shoes < 6 || shoes != all {
			t.Fatalf("%d shoes kept with the shuffler's order, of %d", shoes, all)
		}
		var dealt int
		if err := db.SQL().QueryRow(`SELECT SUM(LENGTH(dealt) - 10) FROM shoes`).Scan(&dealt); err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM shoe_keys`); n != dealt {
			t.Fatalf("%d keys, want %d (a key for each run of 11 cards)", n, dealt)
		}
		// The first shoe of table 0 is what its generator dealt from its first order.
		var d, o []byte
		if err := db.SQL().QueryRow(`SELECT dealt, set_order FROM shoes WHERE table_id = $1 ORDER BY first_seq LIMIT 1`, genTableID(0)).Scan(&d, &o); err != nil {
			t.Fatal(err)
		}
		if got, want := cardList(bytesCards(d)), cardList(dealtOf(bytesCards(o))); got != want {
			t.Fatalf("the shoe's order as read:\n%s\nwant\n%s", got, want)
		}
	})
}

// plant returns shoe with the n cards of from at at copied to the positions from to:
// each card taken from elsewhere in shoe, so that it stays one set of the decks. The
// cards just outside the run differ from from's, so the run is exactly n cards.
func plant(rng *rand.Rand, shoe, from []baccarat.Card, at, to, n int) []baccarat.Card {
	out := slices.Clone(shoe)
	for i := range n {
		want := from[at+i]
		for j := range out {
			if (j < to || j >= to+n) && out[j] == want {
				out[to+i], out[j] = out[j], out[to+i]
				break
			}
		}
	}
	for _, edge := range []struct{ here, there int }{{to - 1, at - 1}, {to + n, at + n}} {
		for out[edge.here] == from[edge.there] {
			j := rng.IntN(to - 1) // swap in a card from before the run
			out[edge.here], out[j] = out[j], out[edge.here]
		}
	}
	return out
}

// TestIntegrityRepeatedRunAcrossTables: on both engines, a run of 20 cards table B
// deals that table A dealt in an earlier shoe is one alarm, naming both shoes, both
// tables and both positions, with the run's cards; storing B's records before A's
// raises the same alarm; the tables' own sets raise nothing else.
func TestIntegrityRepeatedRunAcrossTables(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		rng := rand.New(rand.NewPCG(7, 7))
		shoeA := shuffledShoe(rng)
		shoeB := plant(rng, shuffledShoe(rng), shoeA, 100, 200, 20)
		play := func(id string, seed uint64, start time.Time, shoe []baccarat.Card) []Record {
			g, first := newTableGen(t, id, seed, start)
			return g.dealSet(t, shoe, shoe, []Record{first})
		}
		recsA := play(genTableID(0), 1, genStart, shoeA)
		recsB := play(genTableID(1), 2, genStart.Add(36*time.Hour), shoeB)

		var ids []string
		for _, order := range []string{"A first", "B first"} {
			d := dsn
			if order == "B first" {
				d = dsn + ".b"
				if EngineOf(dsn) == Postgres {
					d = pg.NewDatabase(t)
				}
			}
			a := New(openDB(t, d), genKeys(2), Options{Now: fixedNow})
			if order == "A first" {
				ship(t, a, genTableID(0), recsA)
				ship(t, a, genTableID(1), recsB)
			} else {
				ship(t, a, genTableID(1), recsB)
				ship(t, a, genTableID(0), recsA)
			}
			as := integrityAlarms(t, d)
			if len(as) != 1 || as[0].Kind != api.AlertIntegrityRepeated {
				t.Fatalf("%s: %d alarms, want the repeated order alone:%s", order, len(as), kinds(as))
			}
			al := as[0]
			ev := al.Evidence
			if al.Table != genTableID(1) || ev.Shoe.Table != genTableID(1) || ev.Other == nil || ev.Other.Table != genTableID(0) {
				t.Fatalf("%s: the alarm of table %s names shoe %+v and %+v, want B's then A's", order, al.Table, ev.Shoe, ev.Other)
			}
			want := history.SharedRun{A: 200, B: 100, Len: 20, Cards: cardList(shoeA[100:120])}
			if len(ev.Runs) != 1 || ev.Runs[0] != want {
				t.Fatalf("%s: runs %+v, want %+v", order, ev.Runs, want)
			}
			if !strings.Contains(al.Text, "20 cards") || !strings.Contains(al.Text, "card 101 there, card 201 here") {
				t.Fatalf("%s: text %q", order, al.Text)
			}
			ids = append(ids, al.ID+" "+al.Raised.String())
		}
		if ids[0] != ids[1] {
			t.Fatalf("the alarm differs by the order its shoes were stored in: %q, %q", ids[0], ids[1])
		}
	})
}

// TestIntegrityShufflerInput: a shoe dealt in the order the table's previous set was
// dealt in (the shuffler's input, handed back unshuffled) is one shuffler-input alarm,
// its run the whole shoe, and not a repeated-order or weak-shuffle alarm too.
func TestIntegrityShufflerInput(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		rng := rand.New(rand.NewPCG(3, 3))
		g, first := newTableGen(t, genTableID(0), 1, genStart)
		shoe := shuffledShoe(rng)
		recs := g.dealSet(t, shoe, shoe, []Record{first})
		recs = g.dealSet(t, shuffledShoe(rng), nil, recs) // an honest set between
		second := shuffledShoe(rng)
		recs = g.dealSet(t, second, nil, recs)
		input := append(slices.Clone(dealtOf(second)), second[len(dealtOf(second)):]...) // the discards, then what was left
		recs = g.dealSet(t, input, nil, recs)
		a := New(openDB(t, dsn), genKeys(1), Options{Now: fixedNow})
		ship(t, a, genTableID(0), recs)
		as := integrityAlarms(t, dsn)
		if len(as) != 1 || as[0].Kind != api.AlertIntegrityInput {
			t.Fatalf("%d alarms, want the shuffler's input alone:%s", len(as), kinds(as))
		}
		ev := as[0].Evidence
		n := len(dealtOf(input))
		if len(ev.Runs) != 1 || ev.Runs[0].A != 0 || ev.Runs[0].B != 0 || ev.Runs[0].Len != n || ev.Shoe.Shoe != 4 {
			t.Fatalf("runs %+v of shoe %+v, want one of all %d cards of shoe 4", ev.Runs, ev.Shoe, n)
		}
	})
}

// riffle is one riffle shuffle of cards (Gilbert–Shannon–Reeds): cut near the middle,
// the halves dropped card by card in proportion to what each holds.
func riffle(rng *rand.Rand, cards []baccarat.Card) []baccarat.Card {
	cut := 0
	for range cards {
		cut += rng.IntN(2)
	}
	l, r := cards[:cut], cards[cut:]
	out := make([]baccarat.Card, 0, len(cards))
	for len(l)+len(r) > 0 {
		if rng.IntN(len(l)+len(r)) < len(l) {
			out, l = append(out, l[0]), l[1:]
		} else {
			out, r = append(out, r[0]), r[1:]
		}
	}
	return out
}

// TestIntegrityRiffleOnly: a table whose shuffler only riffles once each set (the
// previous set's discards in) raises a weak-shuffle alarm at every set after the first,
// with its statistic far over chance and its p-value under the threshold.
func TestIntegrityRiffleOnly(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		rng := rand.New(rand.NewPCG(5, 5))
		g, first := newTableGen(t, genTableID(0), 1, genStart)
		shoe := shuffledShoe(rng)
		recs := []Record{first}
		const sets = 4
		for range sets {
			recs = g.dealSet(t, shoe, nil, recs)
			d := dealtOf(shoe)
			shoe = riffle(rng, append(slices.Clone(d), shoe[len(d):]...))
		}
		a := New(openDB(t, dsn), genKeys(1), Options{Now: fixedNow})
		ship(t, a, genTableID(0), recs)
		as := integrityAlarms(t, dsn)
		weak := 0
		for _, al := range as {
			ev := al.Evidence
			switch {
			case al.Kind == api.AlertIntegrityShuffle && ev.P <= 1e-6 && float64(ev.Neighbours) > 2*ev.Expected && ev.Alarm == 1e-6:
				weak++
			case al.Kind == api.AlertIntegrityRepeated && ev.Other.Table == ev.Shoe.Table && ev.Other.Shoe == ev.Shoe.Shoe-1:
				// A riffle keeps runs of the set before: repeated, and found so.
			default:
				t.Fatalf("alarm %s: %+v", al.ID, ev)
			}
		}
		if weak != sets-1 {
			t.Fatalf("%d weak-shuffle alarms, want %d:%s", weak, sets-1, kinds(as))
		}
	})
}

// TestIntegritySetFaults: a card of the shuffler's order never dealt, and a card dealt
// nine times from eight decks, are each one set alarm naming the card; an honest set at
// the same table raises nothing.
func TestIntegritySetFaults(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		rng := rand.New(rand.NewPCG(11, 11))
		g, first := newTableGen(t, genTableID(0), 1, genStart)
		recs := []Record{first}
		honest := shuffledShoe(rng)
		recs = g.dealSet(t, honest, honest, recs)
		order := shuffledShoe(rng)
		removed := order[50]
		recs = g.dealSet(t, slices.Delete(slices.Clone(order), 50, 51), order, recs)
		dup := shuffledShoe(rng)
		extra := dup[0]
		for slices.Contains(dup[390:], extra) { // every copy dealt
			dup = shuffledShoe(rng)
			extra = dup[0]
		}
		for i := range dup {
			if i > 0 && i < 300 && dup[i] != extra {
				dup[i] = extra // a ninth of the first card, in place of another
				break
			}
		}
		recs = g.dealSet(t, dup, nil, recs)
		a := New(openDB(t, dsn), genKeys(1), Options{Now: fixedNow})
		ship(t, a, genTableID(0), recs)
		as := integrityAlarms(t, dsn)
		if len(as) != 2 || as[0].Kind != api.AlertIntegritySet || as[1].Kind != api.AlertIntegritySet {
			t.Fatalf("%d alarms, want two of the sets:%s", len(as), kinds(as))
		}
		if ev := as[0].Evidence; ev.Shoe.Shoe != 2 || !slices.Equal(ev.Missing, []string{removed.String()}) || len(ev.Foreign)+len(ev.Misplaced)+len(ev.Over) != 0 {
			t.Fatalf("the removed card: %+v, want %s missing", ev, removed)
		}
		if ev := as[1].Evidence; ev.Shoe.Shoe != 3 || len(ev.Over) != 1 || ev.Over[0] != (history.CardCount{Card: extra.String(), Dealt: 9, Allowed: 8}) {
			t.Fatalf("the duplicated card: %+v, want %s dealt 9 times", ev, extra)
		}
		if !strings.Contains(as[1].Text, extra.String()+" dealt 9 times") {
			t.Fatalf("text %q", as[1].Text)
		}
	})
}

// biasedShoe is eight decks in an order whose rounds Banker wins about share of, Tie
// at its exact 9.52%: each round's cards are drawn from what is left, again until the
// round goes the way a draw of rng says.
func biasedShoe(rng *rand.Rand, share float64) []baccarat.Card {
	left := shuffledShoe(rng)
	var out []baccarat.Card
	for len(left) >= 6 {
		want := baccarat.PlayerWins
		switch x := rng.Float64(); {
		case x < 0.0952:
			want = baccarat.Tie
		case x < 0.0952+share*(1-0.0952):
			want = baccarat.BankerWins
		}
		for try := 0; ; try++ {
			rng.Shuffle(len(left), func(i, j int) { left[i], left[j] = left[j], left[i] })
			c, n := baccarat.CoupOf(left...)
			if try == 200 || c.Outcome().Winner == want {
				out, left = append(out, left[:n]...), left[n:]
				break
			}
		}
	}
	return append(out, left...)
}

// TestIntegrityBankerBiasedTable: a table whose rounds Banker wins about 62% of,
// against the exact 45.86%, raises a drift alarm of Banker within 1,500 rounds, its
// counts far over the exact rate's; the Player and Tie drifts raise nothing.
func TestIntegrityBankerBiasedTable(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		rng := rand.New(rand.NewPCG(13, 13))
		g, first := newTableGen(t, genTableID(0), 1, genStart)
		recs := []Record{first}
		for range 1500 / 75 { // about 75 rounds a shoe
			recs = g.dealSet(t, biasedShoe(rng, 0.62), nil, recs)
		}
		a := New(openDB(t, dsn), genKeys(1), Options{Now: fixedNow})
		ship(t, a, genTableID(0), recs)
		as := integrityAlarms(t, dsn)
		if len(as) == 0 || as[0].Kind != api.AlertIntegrityDrift {
			t.Fatalf("%d alarms, want a drift first:%s", len(as), kinds(as))
		}
		for _, al := range as {
			ev := al.Evidence
			if al.Kind != api.AlertIntegrityDrift || ev.Outcome != "banker" || float64(ev.Seen) < 1.1*ev.RoundsExpected ||
				ev.P0 < 0.4585 || ev.P0 > 0.4586 || ev.Sum < ev.H || ev.ARL != 1e6 {
				t.Fatalf("alarm %s: %+v", al.ID, ev)
			}
		}
		t.Logf("%d drift alarms, the first after %d rounds: %s", len(as), as[0].Evidence.Rounds, as[0].Text)
	})
}

// TestIntegrityRestartRaisesNothingTwice: on both engines, the same records stored
// whole by one archive, and batch by batch by an archive started anew for each batch
// (each batch sent twice), raise the same alarms (ids, texts, evidence), each once.
func TestIntegrityRestartRaisesNothingTwice(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		rng := rand.New(rand.NewPCG(17, 17))
		gA, firstA := newTableGen(t, genTableID(0), 1, genStart)
		gB, firstB := newTableGen(t, genTableID(1), 2, genStart.Add(time.Hour))
		shoe := shuffledShoe(rng)
		recsA := gA.dealSet(t, shoe, shoe, []Record{firstA})
		second := shuffledShoe(rng)
		recsA = gA.dealSet(t, second, nil, recsA)
		recsA = gA.dealSet(t, append(slices.Clone(dealtOf(second)), second[len(dealtOf(second)):]...), nil, recsA)
		recsB := gB.dealSet(t, plant(rng, shuffledShoe(rng), shoe, 10, 300, 15), nil, []Record{firstB})
		for range 2 {
			recsB = gB.dealSet(t, riffle(rng, shuffledShoe(rng)), nil, recsB)
		}

		whole := New(openDB(t, dsn), genKeys(2), Options{Now: fixedNow})
		ship(t, whole, genTableID(0), recsA)
		ship(t, whole, genTableID(1), recsB)
		want := integrityAlarms(t, dsn)
		if len(want) < 2 {
			t.Fatalf("%d alarms: the test would prove little:%s", len(want), kinds(want))
		}

		d := dsn + ".restarts"
		if EngineOf(dsn) == Postgres {
			d = pg.NewDatabase(t)
		}
		db := openDB(t, d)
		for i := 0; i < max(len(recsA), len(recsB)); i += 97 {
			for _, tb := range []struct {
				id   string
				recs []Record
			}{{genTableID(0), recsA}, {genTableID(1), recsB}} {
				if i >= len(tb.recs) {
					continue
				}
				part := tb.recs[i:min(i+97, len(tb.recs))]
				for range 2 { // a restart, then the same batch again
					a := New(db, genKeys(2), Options{Now: fixedNow})
					if _, err := a.Ingest(context.Background(), tb.id, genBatch(t, tb.id, part)); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		got := integrityAlarms(t, d)
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) {
			t.Fatalf("with restarts:%s\nwant:%s", kinds(got), kinds(want))
		}
		if n := count(t, db, `SELECT COUNT(*) FROM shoes`); n != 6 {
			t.Fatalf("%d shoes kept, want 6", n)
		}
	})
}

// TestIntegrityPositions: the position test over a table's sets tallies each set's
// first 400 cards; shuffled sets pass, and sets made by two riffles of one sorted set
// fail.
func TestIntegrityPositions(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		rng := rand.New(rand.NewPCG(19, 19))
		db := openDB(t, dsn)
		a := New(db, genKeys(2), Options{Now: fixedNow, Integrity: IntegrityOptions{Off: false}})
		for i, weak := range []bool{false, true} {
			g, first := newTableGen(t, genTableID(i), uint64(i)+1, genStart)
			recs := []Record{first}
			for range 12 {
				shoe := shuffledShoe(rng)
				if weak {
					shoe = riffle(rng, riffle(rng, sortedShoe()))
				}
				recs = g.dealSet(t, shoe, nil, recs)
			}
			ship(t, a, genTableID(i), recs)
		}
		rd, err := OpenReader(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		good, err := rd.Positions(context.Background(), genTableID(0), time.Time{}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		bad, err := rd.Positions(context.Background(), genTableID(1), genStart, genStart.Add(365*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if good.Sets != 12 || good.Short != 0 || good.DF != 51*7 || !good.Passes || len(good.Counts) != 52 {
			t.Fatalf("shuffled sets: %+v", good)
		}
		var n int64
		for _, row := range good.Counts {
			for _, c := range row {
				n += c
			}
		}
		if n != 12*400 {
			t.Fatalf("%d positions tallied, want %d", n, 12*400)
		}
		if bad.Sets != 12 || bad.Passes || bad.P > 1e-3 {
			t.Fatalf("riffled sorted sets: %+v", bad)
		}
	})
}

// sortedShoe is eight decks sorted: the eight copies of each card together.
func sortedShoe() []baccarat.Card {
	var cards []baccarat.Card
	for i := range 52 {
		for range 8 {
			cards = append(cards, bytesCards([]byte{byte(i)})...)
		}
	}
	return cards
}

// TestIntegrityAlarmAcknowledged: on both engines, an integrity alarm is acknowledged
// through RecordAlert as the console's alerts are, the first acknowledgement standing; a
// record of an integrity kind raises no alarm of its own, nor acknowledges one of
// another table or kind; the pit's Alerts leave the integrity alarms out.
func TestIntegrityAlarmAcknowledged(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		rng := rand.New(rand.NewPCG(3, 3))
		g, first := newTableGen(t, genTableID(0), 1, genStart)
		shoe := shuffledShoe(rng)
		recs := g.dealSet(t, shoe, nil, []Record{first})
		recs = g.dealSet(t, append(slices.Clone(dealtOf(shoe)), shoe[len(dealtOf(shoe)):]...), nil, recs)
		a := New(openDB(t, dsn), genKeys(1), Options{Now: fixedNow})
		ship(t, a, genTableID(0), recs)
		as := integrityAlarms(t, dsn)
		if len(as) != 1 || as[0].AckBy != "" {
			t.Fatalf("%d alarms, want one open:%s", len(as), kinds(as))
		}
		al := as[0]
		rec := func(table, kind, id, by string) api.AlertRecord {
			return api.AlertRecord{Schema: 1, Table: table, ID: id, Kind: kind, Since: al.Since, Raised: al.Raised, Text: "forged",
				Ack: &api.AlertAck{By: by, Role: "supervisor", At: fixedNow(), Note: "looked at the shoe"}}
		}
		ctx := context.Background()
		for _, r := range []api.AlertRecord{
			rec(genTableID(1), al.Kind, al.ID, "mallory"),                   // another table's
			rec(al.Table, api.AlertIntegrityDrift, al.ID, "mallory"),        // another kind
			rec(al.Table, api.AlertIntegrityDrift, "integrity/forged", "x"), // an alarm never raised
		} {
			if err := a.RecordAlert(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if got := integrityAlarms(t, dsn); len(got) != 1 || got[0].AckBy != "" || got[0].Text != al.Text {
			t.Fatalf("after the forged records:%s (acked by %q)", kinds(got), got[0].AckBy)
		}
		for _, by := range []string{"sam", "later"} {
			if err := a.RecordAlert(ctx, rec(al.Table, al.Kind, al.ID, by)); err != nil {
				t.Fatal(err)
			}
		}
		got := integrityAlarms(t, dsn)
		if len(got) != 1 || got[0].AckBy != "sam" || got[0].AckNote != "looked at the shoe" || got[0].Text != al.Text || len(got[0].Evidence.Runs) == 0 {
			t.Fatalf("acknowledged: %+v", got)
		}
		rd, err := OpenReader(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		if pits, err := rd.Alerts(ctx, history.AlertSearch{}); err != nil || len(pits) != 0 {
			t.Fatalf("the pit's alerts: %+v %v, want none", pits, err)
		}
		if one, err := rd.IntegrityAlarms(ctx, history.AlertSearch{ID: al.ID}); err != nil || len(one) != 1 {
			t.Fatalf("the alarm by its ID: %+v %v", one, err)
		}
		if none, err := rd.IntegrityAlarms(ctx, history.AlertSearch{ID: "integrity/forged"}); err != nil || len(none) != 0 {
			t.Fatalf("an ID never raised: %+v %v", none, err)
		}
	})
}
