package archive

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// The generated tables' play: 1,200 rounds a day, a round every 72 s, its cards read two
// seconds apart, from shuffled 8-deck shoes under the rws rules.
const (
	genRoundsPerDay = 1200
	genRoundEvery   = 24 * time.Hour / genRoundsPerDay
	genCardEvery    = 2 * time.Second
)

// genStart is when the generated play begins.
var genStart = time.Date(2025, 1, 1, 8, 0, 0, 0, time.UTC)

// genKey is the key of every generated table: it signs each batch the table ships
// (genBatch), naming the table.
var genKey = ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))

// tableGen plays rounds of one table through the round controller, as the table's
// journal records them: the settings first, then each event the dealer's shoe and the
// table's stand-ins gave (a new shoe with the shuffler's order, bets closed, each card,
// an Insurance window closed, the confirmation, the shoe's end). It returns them as
// the table sends them: numbered, chained, in order.
type tableGen struct {
	id     string
	ctl    *round.Controller
	rng    *rand.Rand
	seq    uint64
	prev   journal.Hash
	at     time.Time
	cardNo uint64
	shoe   []baccarat.Card
	pos    int
	sets   int
	rounds int
	// irregularEvery, when above 0, makes one round in irregularEvery irregular (see
	// irregular): round n when n+irregularOffset is a multiple of it.
	irregularEvery, irregularOffset int
	// detail is what the supervisor says of an irregularity reported ("cards counted
	// again" when empty).
	detail string
}

// genSupervisors are the people who report and decide the generated irregularities.
var genSupervisors = []string{"sup-ana", "sup-ben", "sup-cleo", "sup-dan", "sup-eva"}

// irregular reports, after the last card of round n (plus irregularOffset), an incorrect_cards irregularity by a
// supervisor of genSupervisors (taking turns), who decides it at once: void at every
// second one, proceed at the others. It returns the records and whether the round was
// voided.
func (g *tableGen) irregular(t testing.TB, n int, out []Record) ([]Record, bool) {
	t.Helper()
	k := n / g.irregularEvery
	who := genSupervisors[k%len(genSupervisors)]
	detail := g.detail
	if detail == "" {
		detail = "cards counted again"
	}
	r, effs := g.event(t, round.Event{Kind: round.Report, Irregularity: irregularities.IncorrectCards,
		Role: irregularities.Supervisor, Actor: who, Detail: detail})
	out = append(out, r)
	if !hasEffect(effs, round.IrregularityRaised) {
		t.Fatalf("table %s, record %d: no irregularity raised: %v", g.id, r.Seq, effs)
	}
	choice := irregularities.Proceed
	if k%2 == 1 {
		choice = irregularities.Void
	}
	g.at = g.at.Add(genCardEvery)
	r, effs = g.event(t, round.Event{Kind: round.Decide, Choice: choice, Role: irregularities.Supervisor, Actor: who})
	out = append(out, r)
	if !hasEffect(effs, round.IrregularityResolved) {
		t.Fatalf("table %s, record %d: the irregularity is not resolved: %v", g.id, r.Seq, effs)
	}
	return out, hasEffect(effs, round.RoundVoided)
}

// newTableGen starts table id's play at start, its shoes shuffled from seed.
func newTableGen(t testing.TB, id string, seed uint64, start time.Time) (*tableGen, Record) {
	t.Helper()
	cfg := round.DefaultConfig(baccarat.MustLookup("rws", baccarat.Options{}))
	cfg.Burn = round.BurnNone
	ctl, err := round.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g := &tableGen{id: id, ctl: ctl, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), at: start}
	s := table.Settings{Table: id, Round: cfg, AutoConfirm: true, AutoCloseInsurance: true}
	return g, g.record(t, table.Entry{Settings: &s})
}

// record numbers and chains entry e.
func (g *tableGen) record(t testing.TB, e table.Entry) Record {
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	g.seq++
	r := Record{Seq: g.seq, Hash: journal.ChainHash(g.prev, g.seq, data), Data: data}
	g.prev = r.Hash
	return r
}

// event steps ev and returns its record and the controller's effects.
func (g *tableGen) event(t testing.TB, ev round.Event) (Record, []round.Effect) {
	ev.At = g.at
	effs := g.ctl.Step(ev)
	return g.record(t, table.Entry{Event: &ev}), effs
}

// round plays one round, a new shoe first when fewer than six cards are left, and
// appends its records to out.
func (g *tableGen) round(t testing.TB, out []Record) []Record {
	t.Helper()
	if g.shoe == nil || len(g.shoe)-g.pos < 6 {
		if g.shoe != nil {
			r, _ := g.event(t, round.Event{Kind: round.ShoeEnd})
			out = append(out, r)
		}
		g.shoe, g.pos = shuffledShoe(g.rng), 0
		g.sets++
		r, _ := g.event(t, round.Event{Kind: round.NewShoe, Set: fmt.Sprint(g.sets), Decks: 8, Cards: len(g.shoe), Order: g.shoe})
		out = append(out, r)
	}
	start := g.at
	r, _ := g.event(t, round.Event{Kind: round.BetsClosed})
	out = append(out, r)
	for n := 0; ; n++ {
		if n == 6 {
			t.Fatalf("table %s: a round took more than six cards: %+v", g.id, g.ctl.State())
		}
		g.at = g.at.Add(genCardEvery)
		g.cardNo++
		r, effs := g.event(t, round.Event{Kind: round.CardDrawn, Card: g.shoe[g.pos], Seq: g.cardNo})
		g.pos++
		out = append(out, r)
		if hasEffect(effs, round.RoundComplete) {
			break
		}
		if hasEffect(effs, round.InsuranceOffered) {
			r, _ := g.event(t, round.Event{Kind: round.InsuranceWindowClosed})
			out = append(out, r)
		}
	}
	g.rounds++
	if n := g.rounds + g.irregularOffset; g.irregularEvery > 0 && n%g.irregularEvery == 0 {
		var void bool
		if out, void = g.irregular(t, n, out); void {
			g.at = start.Add(genRoundEvery)
			return out
		}
	}
	r, effs := g.event(t, round.Event{Kind: round.ConfirmResult})
	if !hasEffect(effs, round.RoundSettled) {
		t.Fatalf("table %s, record %d: the round is not settled: %v", g.id, r.Seq, effs)
	}
	g.at = start.Add(genRoundEvery)
	return append(out, r)
}

func hasEffect(effs []round.Effect, k round.EffectKind) bool {
	for _, e := range effs {
		if e.Kind == k {
			return true
		}
	}
	return false
}

// shuffledShoe is eight decks in an order of rng's.
func shuffledShoe(rng *rand.Rand) []baccarat.Card {
	cards := make([]baccarat.Card, 0, 8*52)
	for range 8 {
		for s := baccarat.Spades; s <= baccarat.Clubs; s++ {
			for r := baccarat.Ace; r <= baccarat.King; r++ {
				cards = append(cards, baccarat.Card{Rank: r, Suit: s})
			}
		}
	}
	rng.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
	return cards
}

// genTableID names generated table i.
func genTableID(i int) string { return fmt.Sprintf("pit%02d-bac%03d", i/20+1, i) }

// genKeys are the keys of n generated tables.
func genKeys(n int) Keys {
	k := Keys{}
	for i := range n {
		k[genTableID(i)] = []ed25519.PublicKey{genKey.Public().(ed25519.PublicKey)}
	}
	return k
}

// fillTables plays rounds rounds at each of tables tables, all from genStart, and
// ingests them into a, each table's records in batches of batch, the tables taking
// turns by the round. It returns the number of records stored.
func fillTables(t testing.TB, a *Archive, tables, rounds, batch int) int {
	t.Helper()
	return fillTablesIrregular(t, a, tables, rounds, batch, 0)
}

// fillTablesIrregular is fillTables with one round in irregularEvery of each table
// irregular (tableGen.irregular), none when it is 0. Table i's are rounds
// irregularEvery-i, 2*irregularEvery-i...: a day of few rounds has some too.
func fillTablesIrregular(t testing.TB, a *Archive, tables, rounds, batch, irregularEvery int) int {
	t.Helper()
	ctx := context.Background()
	gens := make([]*tableGen, tables)
	pending := make([][]Record, tables)
	for i := range gens {
		var first Record
		gens[i], first = newTableGen(t, genTableID(i), uint64(i)+1, genStart)
		gens[i].irregularEvery, gens[i].irregularOffset = irregularEvery, i
		pending[i] = append(make([]Record, 0, batch+16), first)
	}
	stored := 0
	send := func(i int) {
		res, err := a.Ingest(ctx, gens[i].id, genBatch(t, gens[i].id, pending[i]))
		if err != nil || res.Stored != len(pending[i]) || len(res.Alarms) != 0 {
			t.Fatalf("table %s: %d records: %+v %v", gens[i].id, len(pending[i]), res, err)
		}
		stored += res.Stored
		pending[i] = pending[i][:0]
	}
	for range rounds {
		for i, g := range gens {
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
	return stored
}

// benchFull is set (TABLECTL_BENCH_FULL=1) for the fills at full scale: a year of one
// table, a day of 500 tables. Without it they are filled at the scale of CI.
var benchFull = os.Getenv("TABLECTL_BENCH_FULL") == "1"

// yearRounds is the rounds of "a year of one table": 365 days of 1,200 rounds at full
// scale, a week in CI.
func yearRounds() int {
	if benchFull {
		return 365 * genRoundsPerDay
	}
	return 7 * genRoundsPerDay
}

// dayRounds is the rounds each of 500 tables deals in "a day of 500 tables": 1,200 at
// full scale, 24 (a fiftieth of the day) in CI.
func dayRounds() int {
	if benchFull {
		return genRoundsPerDay
	}
	return genRoundsPerDay / 50
}

// fillYear fills db with "a year of one table" (yearRounds of table genTableID(0)) and
// returns the archive that stored it and the number of records.
func fillYear(t testing.TB, db *DB) (*Archive, int) {
	t.Helper()
	a := New(db, genKeys(1), Options{Now: fixedNow})
	return a, fillTables(t, a, 1, yearRounds(), 1000)
}

// fillDay500 fills db with "a day of 500 tables" (dayRounds at each) and returns the
// archive that stored it and the number of records.
func fillDay500(t testing.TB, db *DB) (*Archive, int) {
	t.Helper()
	a := New(db, genKeys(500), Options{Now: fixedNow})
	return a, fillTables(t, a, 500, dayRounds(), 100)
}

// TestGeneratedPlay: the generated tables' records are stored whole and replay into
// their rows: a round row for every round dealt, over a shoe's end, none void, each
// with its cards and winner, and every record chained (no alarm).
func TestGeneratedPlay(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		db := openDB(t, dsn)
		a := New(db, genKeys(3), Options{Now: fixedNow})
		const rounds = 100 // more than a shoe
		stored := fillTables(t, a, 3, rounds, 50)
		if n := count(t, db, `SELECT COUNT(*) FROM records`); n != stored {
			t.Fatalf("%d records held, %d stored", n, stored)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM rounds WHERE NOT void AND winner <> '' AND player_cards <> '' AND banker_cards <> ''`); n != 3*rounds {
			t.Fatalf("%d rounds settled with their cards, want %d", n, 3*rounds)
		}
		if n := count(t, db, `SELECT COUNT(DISTINCT shoe) FROM rounds WHERE table_id = $1`, genTableID(2)); n != 2 {
			t.Fatalf("table %s dealt %d shoes, want 2", genTableID(2), n)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM irregularities`); n != 0 {
			t.Fatalf("%d irregularities in generated play", n)
		}
		var first, last string
		if err := db.SQL().QueryRow(`SELECT MIN(ended_at), MAX(ended_at) FROM rounds WHERE table_id = $1`, genTableID(0)).Scan(&first, &last); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d records; rounds of %s from %s to %s", stored, genTableID(0), first, last)
	})
}
