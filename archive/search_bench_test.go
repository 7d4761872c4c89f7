package archive

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/history"
)

// searchIrregularEvery is how often the searched tables' rounds are irregular: one round
// in 50 (tableGen.irregular), half of them voided by the supervisor.
const searchIrregularEvery = 50

// searchCase is one search of the console's History page, on a filled archive.
type searchCase struct {
	name string
	s    history.Search
}

// searchCases are the searches made on a fill of tables, holding rounds from genStart
// for span: the first page (100 rounds) of an evening (6 hours from the fill's middle)
// and of every round, then of every round by irregularity kind, by decision, by a
// person who took decisions and by one who took none, and a page deep in the results
// (after the round at the fill's middle, by its cursor). pit adds the searches of one
// pit's 20 tables.
func searchCases(b *testing.B, db *DB, span time.Duration, pit []string) []searchCase {
	b.Helper()
	mid := genStart.Add(span / 2).Truncate(time.Hour)
	evening := history.Search{From: mid, To: mid.Add(6 * time.Hour)}
	page, err := db.SearchRounds(context.Background(), history.Search{From: mid, Limit: 1})
	if err != nil || len(page.Rounds) != 1 {
		b.Fatalf("the round at %s: %+v %v", mid, page, err)
	}
	deep := page.Rounds[0].Cursor()
	cs := []searchCase{
		{"evening", evening},
		{"all", history.Search{}},
		{"kind", history.Search{Kind: "incorrect_cards"}},
		{"decision", history.Search{Decision: "void"}},
		{"person", history.Search{Person: genSupervisors[2]}},
		{"person-none", history.Search{Person: "nobody"}},
		{"deep", history.Search{After: &deep}},
	}
	if pit != nil {
		cs = append(cs,
			searchCase{"pit", history.Search{Tables: pit}},
			searchCase{"pit-evening", history.Search{Tables: pit, From: evening.From, To: evening.To}},
			searchCase{"pit-person", history.Search{Tables: pit, Person: genSupervisors[2]}})
	}
	return cs
}

// benchSearches runs each search of cs as a sub-benchmark: "rounds" is the rounds of
// its page, "found" every round the search finds (counted by paging through, untimed).
// Then RoundDetail of an irregular
// round ("detail").
func benchSearches(b *testing.B, db *DB, cs []searchCase) {
	ctx := context.Background()
	for _, c := range cs {
		b.Run(c.name, func(b *testing.B) {
			var page history.Page
			var err error
			for b.Loop() {
				if page, err = db.SearchRounds(ctx, c.s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(page.Rounds)), "rounds")
			b.ReportMetric(float64(foundAll(b, db, c.s)), "found")
			if benchExplain {
				explain(b, db, c.s)
			}
		})
	}
	page, err := db.SearchRounds(ctx, history.Search{Kind: "incorrect_cards", Limit: 1})
	if err != nil || len(page.Rounds) != 1 {
		b.Fatalf("an irregular round: %+v %v", page, err)
	}
	r := page.Rounds[0]
	b.Run("detail", func(b *testing.B) {
		var d history.RoundDetail
		for b.Loop() {
			if d, err = db.RoundDetail(ctx, r.Table, r.Seq); err != nil {
				b.Fatal(err)
			}
		}
		if len(d.Irregularities) != 1 || len(d.Commands) != 2 {
			b.Fatalf("round %s %d: %d irregularities, %d commands", r.Table, r.Seq, len(d.Irregularities), len(d.Commands))
		}
		b.ReportMetric(float64(len(d.Settlements)+len(d.Irregularities)+len(d.Commands)), "rows")
	})
}

// benchExplain is set (TABLECTL_BENCH_EXPLAIN=1) to log the plan of each search:
// PostgreSQL's as run (EXPLAIN ANALYZE), SQLite's query plan.
var benchExplain = os.Getenv("TABLECTL_BENCH_EXPLAIN") == "1"

// explain logs the plan of s's first page.
func explain(b *testing.B, db *DB, s history.Search) {
	q, args := db.searchQuery(s, history.DefaultSearchLimit+1)
	prefix := "EXPLAIN (ANALYZE, BUFFERS) "
	if db.Engine() == SQLite {
		prefix = "EXPLAIN QUERY PLAN "
	}
	rows, err := db.SQL().Query(prefix+q, args...)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		b.Fatal(err)
	}
	var plan strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintln(&plan, vals[len(vals)-1])
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	b.Logf("%s\n%s", q, plan.String())
}

// foundAll counts the rounds s finds, a page of MaxSearchLimit at a time.
func foundAll(b *testing.B, db *DB, s history.Search) int {
	s.Limit = history.MaxSearchLimit
	n := 0
	for {
		page, err := db.SearchRounds(context.Background(), s)
		if err != nil {
			b.Fatal(err)
		}
		n += len(page.Rounds)
		if page.Next == nil {
			return n
		}
		s.After = page.Next
	}
}

// searchFill fills a new database of engine with tables tables of rounds rounds each,
// one round in searchIrregularEvery irregular, and reports its records and rounds. On
// PostgreSQL it then runs ANALYZE, as autovacuum does after a load, so that the
// planner knows the rows.
func searchFill(b *testing.B, engine Engine, tables, rounds, batch int) *DB {
	db := benchDB(b, engine)
	a := New(db, genKeys(tables), Options{Now: fixedNow})
	n := fillTablesIrregular(b, a, tables, rounds, batch, searchIrregularEvery)
	if engine == Postgres {
		if _, err := db.SQL().Exec(`ANALYZE`); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%s: %d records, %d rounds", engine, n, count(b, db, `SELECT COUNT(*) FROM rounds`))
	return db
}

// BenchmarkSearchYear measures the History page's searches (searchCases) on "a year of
// one table" (a week in CI; see yearRounds), one round in 50 irregular.
func BenchmarkSearchYear(b *testing.B) {
	for _, engine := range []Engine{SQLite, Postgres} {
		b.Run(string(engine), func(b *testing.B) {
			db := searchFill(b, engine, 1, yearRounds(), 1000)
			benchSearches(b, db, searchCases(b, db, time.Duration(yearRounds())*genRoundEvery, nil))
		})
	}
}

// BenchmarkSearchDay500 measures the History page's searches (searchCases) on "a day of
// 500 tables" (a fiftieth of it in CI; see dayRounds), one round in 50 irregular, and
// those of pit 3's 20 tables.
func BenchmarkSearchDay500(b *testing.B) {
	pit := make([]string, 20)
	for i := range pit {
		pit[i] = genTableID(40 + i)
	}
	for _, engine := range []Engine{SQLite, Postgres} {
		b.Run(string(engine), func(b *testing.B) {
			db := searchFill(b, engine, 500, dayRounds(), 100)
			benchSearches(b, db, searchCases(b, db, time.Duration(dayRounds())*genRoundEvery, pit))
		})
	}
}
