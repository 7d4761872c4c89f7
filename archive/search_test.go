package archive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/journal"
)

// The tables of the search tests: A and B are the fixture's journal at the same times,
// A's supervisor S17 and dealer D4, B's supervisor S20; C is the fixture an hour later,
// with no names.
const (
	tableA = "pit3-bac07"
	tableB = "pit3-bac08"
	tableC = "pit4-bac01"
)

// variant is the fixture's records with each payload changed by edit, chained again
// (journal.ChainHash) as the table would have written them.
func variant(t testing.TB, f fixture, edit func(seq uint64, data string) string) []Record {
	t.Helper()
	var prev journal.Hash
	out := make([]Record, len(f.records))
	for i, r := range f.records {
		if i == 0 && journal.ChainHash(prev, r.Seq, r.Data) != r.Hash {
			t.Fatal("the fixture's first record does not chain from the zero hash")
		}
		data := []byte(edit(r.Seq, string(r.Data)))
		out[i] = Record{Seq: r.Seq, Hash: journal.ChainHash(prev, r.Seq, data), Data: data}
		prev = out[i].Hash
	}
	return out
}

// actorField is an event's actor in a record.
var actorField = regexp.MustCompile(`"actor":"[^"]*"`)

// withActor puts actor into record seq's event.
func withActor(seq uint64, actor string) func(uint64, string) string {
	return func(s uint64, data string) string {
		if s != seq {
			return data
		}
		if actorField.MatchString(data) {
			return actorField.ReplaceAllLiteralString(data, `"actor":`+fmt.Sprintf("%q", actor))
		}
		return strings.Replace(data, `"event":{`, `"event":{"actor":`+fmt.Sprintf("%q", actor)+`,`, 1)
	}
}

// atField is an event's time in a record.
var atField = regexp.MustCompile(`"at":"([^"]+)"`)

// later moves record seq's time an hour and seq seconds later: C's rounds end at
// times a second or more apart.
func later(seq uint64, data string) string {
	return atField.ReplaceAllStringFunc(data, func(m string) string {
		at, err := time.Parse(time.RFC3339Nano, atField.FindStringSubmatch(m)[1])
		if err != nil {
			panic(err)
		}
		return `"at":"` + at.Add(time.Hour+time.Duration(seq)*time.Second).Format(time.RFC3339Nano) + `"`
	})
}

// searchDB is an archive of tables A, B and C.
func searchDB(t *testing.T, dsn string) *DB {
	t.Helper()
	f := loadFixture(t)
	db := openDB(t, dsn)
	keys := Keys{tableA: {f.pub}, tableB: {f.pub}, tableC: {f.pub}}
	a := newArchive(t, db, keys)
	journals := map[string][]Record{
		tableA: variant(t, f, func(seq uint64, d string) string {
			for _, w := range []func(uint64, string) string{withActor(3, "N1"), withActor(6, "D4"), withActor(8, "S17"), withActor(254, "L1")} {
				d = w(seq, d)
			}
			return d
		}),
		tableB: variant(t, f, withActor(8, "S20")),
		tableC: variant(t, f, later),
	}
	for _, id := range []string{tableC, tableB, tableA} {
		res, err := a.Ingest(context.Background(), id, batchOf(t, f.key, id, journals[id], nil))
		if err != nil || res.Stored != len(f.records) || len(res.Alarms) != 0 {
			t.Fatalf("table %s: %+v %v", id, res, err)
		}
	}
	return db
}

// allRounds reads every round row and sorts them in Go, by end time, table, shoe and
// round: the order a search must give.
func allRounds(t *testing.T, db *DB) []string {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT table_id, shoe, round, last_seq, ended_at FROM rounds`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type row struct {
		table        string
		shoe, rnd, s int64
		ended        time.Time
	}
	var rs []row
	for rows.Next() {
		var r row
		var at any
		if err := rows.Scan(&r.table, &r.shoe, &r.rnd, &r.s, &at); err != nil {
			t.Fatal(err)
		}
		if r.ended, err = timeOf(at); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if !a.ended.Equal(b.ended) {
			return a.ended.Before(b.ended)
		}
		if a.table != b.table {
			return a.table < b.table
		}
		if a.shoe != b.shoe {
			return a.shoe < b.shoe
		}
		return a.rnd < b.rnd
	})
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprintf("%s %d/%d", r.table, r.shoe, r.rnd)
	}
	return out
}

func names(rs []history.RoundRow) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprintf("%s %d/%d", r.Table, r.Shoe, r.Round)
	}
	return out
}

// searchAll follows a search's pages to the end.
func searchAll(t *testing.T, db *DB, s history.Search) (rows []history.RoundRow, pages int) {
	t.Helper()
	for {
		p, err := db.SearchRounds(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, p.Rounds...)
		pages++
		if p.Next == nil {
			return rows, pages
		}
		if pages > 1000 {
			t.Fatal("the pages do not end")
		}
		// Through the cursor's text, as a page's link carries it.
		c, err := history.ParseCursor(p.Next.String())
		if err != nil || c != *p.Next {
			t.Fatalf("cursor %v read back as %v, %v", *p.Next, c, err)
		}
		s.After = &c
	}
}

// TestSearchRounds: a search finds the rounds of the tables, times, irregularity kind,
// decision and person asked, in the order of end time, table, shoe and round, and its
// pages, one after the other, give that order with nothing left out or given twice.
func TestSearchRounds(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := searchDB(t, dsn)
		want := allRounds(t, db)
		if len(want) != 3*42 {
			t.Fatalf("%d rounds held, want 3 × 42", len(want))
		}
		// Rounds 1 and 2 ended at the same time: the order is by table, then round.
		if fmt.Sprint(want[:4]) != "[pit3-bac07 1/1 pit3-bac07 1/2 pit3-bac08 1/1 pit3-bac08 1/2]" {
			t.Fatalf("the fixture's first rounds, sorted: %v", want[:4])
		}

		got, _ := searchAll(t, db, history.Search{Limit: history.MaxSearchLimit})
		if fmt.Sprint(names(got)) != fmt.Sprint(want) {
			t.Fatalf("every round:\n%v\nwant\n%v", names(got), want)
		}
		// Pages of 5 and of 3: ties of end time across a page's edge.
		for _, limit := range []int{5, 3} {
			got, pages := searchAll(t, db, history.Search{Limit: limit})
			if fmt.Sprint(names(got)) != fmt.Sprint(want) || pages != (len(want)+limit-1)/limit {
				t.Fatalf("pages of %d (%d pages):\n%v\nwant\n%v", limit, pages, names(got), want)
			}
		}

		filter := func(keep func(string) bool) []string {
			var out []string
			for _, w := range want {
				if keep(w) {
					out = append(out, w)
				}
			}
			return out
		}
		check := func(what string, s history.Search, want []string) {
			t.Helper()
			got, _ := searchAll(t, db, s)
			if fmt.Sprint(names(got)) != fmt.Sprint(want) {
				t.Errorf("%s: %v, want %v", what, names(got), want)
			}
		}
		check("table B", history.Search{Tables: []string{tableB}, Limit: 7}, filter(func(w string) bool { return strings.HasPrefix(w, tableB+" ") }))
		check("tables A and C", history.Search{Tables: []string{tableA, tableC}},
			filter(func(w string) bool { return !strings.HasPrefix(w, tableB+" ") }))
		check("a table not held", history.Search{Tables: []string{"pit9-bac99"}}, nil)

		// Time: C ended an hour after A and B.
		cs, _ := searchAll(t, db, history.Search{Tables: []string{tableC}, Limit: 1000})
		if fmt.Sprint(names(cs)) != fmt.Sprint(filter(func(w string) bool { return strings.HasPrefix(w, tableC+" ") })) {
			t.Fatalf("table C: %v", names(cs))
		}
		cWhere := func(keep func(history.RoundRow) bool) []string {
			var out []string
			for _, r := range cs {
				if keep(r) {
					out = append(out, fmt.Sprintf("%s %d/%d", r.Table, r.Shoe, r.Round))
				}
			}
			return out
		}
		var times []time.Time // the distinct end times
		for _, r := range cs {
			if len(times) == 0 || !r.Ended.Equal(times[len(times)-1]) {
				times = append(times, r.Ended)
			}
		}
		if len(times) < 4 {
			t.Fatalf("C's rounds end at %v: want four times or more", times)
		}
		from, to := times[1], times[len(times)-2]
		check("from C's 11th round's end", history.Search{From: from}, cWhere(func(r history.RoundRow) bool { return !r.Ended.Before(from) }))
		check("from and to", history.Search{From: from, To: to},
			cWhere(func(r history.RoundRow) bool { return !r.Ended.Before(from) && r.Ended.Before(to) }))
		check("before C's first end", history.Search{To: cs[0].Ended}, filter(func(w string) bool { return !strings.HasPrefix(w, tableC+" ") }))

		every := []string{tableA + " 1/1", tableB + " 1/1", tableC + " 1/1"}
		check("kind incorrect_cards", history.Search{Kind: "incorrect_cards"}, every)
		check("kind bad_shuffle", history.Search{Kind: "bad_shuffle"}, []string{tableA + " 1/3", tableB + " 1/3", tableC + " 1/3"})
		check("kind foreign_card", history.Search{Kind: "foreign_card"}, nil)
		check("decision continue", history.Search{Decision: "continue"}, every)
		check("decision void", history.Search{Decision: "void"}, nil)
		check("person S17, who decided", history.Search{Person: "S17"}, []string{tableA + " 1/1"})
		check("person S20", history.Search{Person: "S20"}, []string{tableB + " 1/1"})
		check("person D4, who closed the bets", history.Search{Person: "D4"}, []string{tableA + " 1/1"})
		check("person auto, who confirmed every round", history.Search{Person: "auto", Tables: []string{tableC}},
			filter(func(w string) bool { return strings.HasPrefix(w, tableC+" ") }))
		check("nobody", history.Search{Person: "X9"}, nil)
		check("N1, before the first round", history.Search{Person: "N1"}, nil)
		check("L1, after the last round", history.Search{Person: "L1"}, nil)
		// A decision taken after its round's last record (a late irregularity's) is the
		// round's still.
		if _, err := db.SQL().Exec(`UPDATE irregularities SET decided_by = 'S99' WHERE table_id = $1 AND kind = 'incorrect_cards'`, tableC); err != nil {
			t.Fatal(err)
		}
		check("S99, who decided outside the round's records", history.Search{Person: "S99"}, []string{tableC + " 1/1"})
		check("kind, tables and time together", history.Search{Kind: "incorrect_cards", Tables: []string{tableB, tableC}, To: cs[0].Ended},
			[]string{tableB + " 1/1"})

		p, err := db.SearchRounds(ctx, history.Search{Tables: []string{tableA}, Kind: "incorrect_cards"})
		if err != nil || len(p.Rounds) != 1 || p.Next != nil {
			t.Fatalf("A's round 1: %+v %v", p, err)
		}
		r := p.Rounds[0]
		if r.Player != "4S 5S" || r.Banker != "3S 6S" || r.Winner != "tie" || r.PlayerPoints != 9 || r.BankerPoints != 9 ||
			r.FirstSeq != 6 || r.Seq != 12 || fmt.Sprint(r.Irregularities) != "[incorrect_cards]" || r.Ended.IsZero() || r.Started.After(r.Ended) {
			t.Fatalf("A's round 1: %+v", r)
		}
		if _, err := db.SearchRounds(ctx, history.Search{Limit: -1}); err == nil {
			t.Fatal("a limit below 0 is taken")
		}
	})
}

// TestRoundDetail: a round opens with its cards, winner and points, each box's
// settlement, its irregularity with the decision and who took it, and the commands
// given during it with each person's name; a round not held is ErrNoRound.
func TestRoundDetail(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := searchDB(t, dsn)
		d, err := db.RoundDetail(ctx, tableA, 12)
		if err != nil {
			t.Fatal(err)
		}
		if d.Table != tableA || d.Shoe != 1 || d.Round != 1 || d.Player != "4S 5S" || d.Banker != "3S 6S" || d.Winner != "tie" ||
			d.PlayerPoints != 9 || d.BankerPoints != 9 || d.Void {
			t.Fatalf("round: %+v", d.RoundRow)
		}
		if len(d.Settlements) != 1 {
			t.Fatalf("settlements %+v", d.Settlements)
		}
		s := d.Settlements[0]
		if s.Box != "1" || s.Bet != "player" || s.Stake != 100 || s.Result != "push" || s.Won != 0 || s.Returned != 100 || s.Rule != "accepted" {
			t.Fatalf("settlement %+v", s)
		}
		if len(d.Irregularities) != 1 {
			t.Fatalf("irregularities %+v", d.Irregularities)
		}
		ir := d.Irregularities[0]
		if ir.Kind != "incorrect_cards" || ir.Rule != "RWS Baccarat 5.5.3" || ir.Decision != "continue" || ir.DecidedBy != "S17" ||
			ir.DecidedRole != "supervisor" || ir.Decided.IsZero() || ir.Raised.IsZero() || ir.Seq != 7 || ir.ID != 1 || !ir.Holds {
			t.Fatalf("irregularity %+v", ir)
		}
		var cmds []string
		for _, c := range d.Commands {
			cmds = append(cmds, fmt.Sprintf("%d %s %s %s %s", c.Seq, c.Kind, c.Role, c.Actor, c.Detail))
		}
		if want := "[6 bets-closed dealer D4  8 decide supervisor S17 #1 continue 12 confirm  auto ]"; fmt.Sprint(cmds) != want {
			t.Fatalf("commands %q, want %q", cmds, want)
		}
		// Round 2 of B: no irregularity, no bet.
		p, err := db.SearchRounds(ctx, history.Search{Tables: []string{tableB}, Limit: 2})
		if err != nil || len(p.Rounds) != 2 {
			t.Fatal(p, err)
		}
		d, err = db.RoundDetail(ctx, tableB, p.Rounds[1].Seq)
		if err != nil || d.Round != 2 || d.Player != "7S 9S" || d.Winner != "banker" || len(d.Settlements) != 0 ||
			len(d.Irregularities) != 0 || len(d.Commands) != 1 || d.Commands[0].Kind != "confirm" {
			t.Fatalf("B's round 2: %+v %v", d, err)
		}
		if _, err := db.RoundDetail(ctx, tableA, 13); !errors.Is(err, history.ErrNoRound) {
			t.Fatalf("record 13 ends no round: %v", err)
		}
	})
}

// TestOpenReader: an archive opened for searches is searched as the archive wrote it,
// and refuses a write; a SQLite file that is not there is an error, and is not made.
func TestOpenReader(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := searchDB(t, dsn)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := OpenReader(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		p, err := r.SearchRounds(ctx, history.Search{Kind: "incorrect_cards"})
		if err != nil || len(p.Rounds) != 3 {
			t.Fatalf("search: %+v %v", p, err)
		}
		if _, err := r.SQL().Exec(`DELETE FROM rounds`); err == nil {
			t.Fatal("a reader deleted the rounds")
		}
		if n := count(t, r, `SELECT COUNT(*) FROM rounds`); n != 3*42 {
			t.Fatalf("%d rounds after the refused delete", n)
		}
	})
	missing := filepath.Join(t.TempDir(), "none.db")
	if _, err := OpenReader(context.Background(), missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("a missing archive: %v", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("the reader made %s: %v", missing, err)
	}
}

// TestSearchGeneratedIrregular: in generated play with one round in 50 irregular, the
// searches by kind, decision and person find exactly those rounds, with the person's
// decision and commands, on both engines.
func TestSearchGeneratedIrregular(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		db := openDB(t, dsn)
		a := New(db, genKeys(2), Options{Now: fixedNow})
		fillTablesIrregular(t, a, 2, 200, 100, 50)
		// Rounds 50, 100, 150 and 200 of each table: sup-ben, sup-cleo, sup-dan and
		// sup-eva, who void the first and the third.
		rounds := func(s history.Search) []string {
			got, _ := searchAll(t, db, s)
			var out []string
			for _, r := range got {
				out = append(out, fmt.Sprintf("%s %v %s", r.Table, r.Void, r.Irregularities))
			}
			slices.Sort(out) // the tables' rounds end at other times
			return out
		}
		both := func(void bool) []string {
			return []string{
				fmt.Sprintf("%s %v [incorrect_cards]", genTableID(0), void),
				fmt.Sprintf("%s %v [incorrect_cards]", genTableID(1), void),
			}
		}
		if got := rounds(history.Search{Kind: "incorrect_cards"}); len(got) != 8 {
			t.Errorf("kind: %d rounds: %v", len(got), got)
		}
		for _, c := range []struct {
			s    history.Search
			want []string
		}{
			{history.Search{Decision: "void", Person: "sup-ben"}, both(true)},
			{history.Search{Person: "sup-ben"}, both(true)},
			{history.Search{Person: "sup-cleo"}, both(false)},
			{history.Search{Person: "sup-dan", Tables: []string{genTableID(1)}}, both(true)[1:]},
			{history.Search{Person: "sup-ana"}, nil},
			{history.Search{Decision: "continue", Person: "sup-dan"}, nil},
		} {
			if got := rounds(c.s); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("%+v: %v, want %v", c.s, got, c.want)
			}
		}
		if got := rounds(history.Search{Decision: "void"}); len(got) != 4 {
			t.Errorf("decision void: %d rounds: %v", len(got), got)
		}
	})
}
