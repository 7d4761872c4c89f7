package archive

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/integrity"
)

// repeatedSizes are the windows BenchmarkIntegrityRepeated measures: shoes stored, two
// sizes to show how the check grows. At full scale (TABLECTL_BENCH_FULL=1) 25,000 and
// 100,000 shoes; by default 1,000 and 4,000; in a once-over run (-benchtime 1x, as CI
// runs every benchmark) 100 and 400, which check the code and not the figure.
// TABLECTL_BENCH_SHOES gives others, comma-separated (1350000: the window of 500 tables
// over 90 days).
func repeatedSizes() []int {
	if v := os.Getenv("TABLECTL_BENCH_SHOES"); v != "" {
		var ns []int
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 10 {
				panic(fmt.Sprintf("TABLECTL_BENCH_SHOES=%q: want numbers of shoes of 10 or more, comma-separated", v))
			}
			ns = append(ns, n)
		}
		return ns
	}
	if benchFull {
		return []int{25_000, 100_000}
	}
	if f := flag.Lookup("test.benchtime"); f != nil && f.Value.String() == "1x" {
		return []int{100, 400}
	}
	return []int{1_000, 4_000}
}

// BenchmarkIntegrityRepeated times the repeated-order check of one new shoe (its ~405
// keys looked up in one query, each shoe found extended into its runs) against a
// window of N stored shoes of 411 cards, on each engine. The window is filled in bulk
// (COPY on PostgreSQL, one transaction on SQLite), its index built after. Each new shoe
// is fresh (its keys not cached by an earlier one); one in ten shares a planted run of
// 20 cards with a stored shoe, which the check must find. It reports ms/check and the
// bytes the index of keys takes per shoe: its table and B-tree, and the B-tree alone.
func BenchmarkIntegrityRepeated(b *testing.B) {
	for _, engine := range []Engine{SQLite, Postgres} {
		for _, n := range repeatedSizes() {
			b.Run(fmt.Sprintf("%s/shoes=%d", engine, n), func(b *testing.B) {
				db := benchDB(b, engine)
				a := New(db, Keys{}, Options{Now: fixedNow})
				rng := rand.New(rand.NewPCG(uint64(n), 1))
				filling := time.Now()
				stored := fillShoes(b, db, rng, n)
				b.Logf("filled %d shoes in %v", n, time.Since(filling).Round(time.Second))
				ctx := context.Background()
				ended := genStart.Add(time.Duration(n) * shoeStep(n))
				var fresh [][]baccarat.Card
				for i := range 100 {
					shoe := shuffledShoe(rng)[:411]
					if i%10 == 0 {
						shoe = plant(rng, shoe, stored[rng.IntN(len(stored))], 100, 200, 20)
					}
					fresh = append(fresh, shoe)
				}
				i, found := 0, 0
				start := time.Now()
				for b.Loop() {
					shoe := fresh[i%len(fresh)]
					keys := integrity.Keys(shoe, a.opt.Integrity.keyLen())
					others, err := a.sharing(ctx, keys, ended)
					if err != nil {
						b.Fatal(err)
					}
					for _, o := range others {
						if len(integrity.Runs(shoe, o.cards, a.opt.Integrity.MinRun)) > 0 {
							found++
						}
					}
					if i%10 == 0 && found == 0 {
						b.Fatal("the planted run is not found")
					}
					i++
				}
				b.ReportMetric(float64(time.Since(start).Microseconds())/1e3/float64(i), "ms/check")
				all, tree := keyBytes(b, db)
				b.ReportMetric(float64(all)/float64(n), "index-bytes/shoe")
				b.ReportMetric(float64(tree)/float64(n), "btree-bytes/shoe")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// shoeStep is the time between two of n shoes filled: a minute, or less where n shoes a
// minute apart would not fit the window (1,350,000 shoes in 90 days: one every 5.76 s).
func shoeStep(n int) time.Duration {
	return min(time.Minute, DefaultIntegrityWindow/time.Duration(n))
}

// fillShoes stores n shuffled shoes of 411 cards dealt, shoeStep apart, with their keys,
// and returns a few of them (to plant runs from).
func fillShoes(b *testing.B, db *DB, rng *rand.Rand, n int) [][]baccarat.Card {
	b.Helper()
	ctx := context.Background()
	if _, err := db.SQL().ExecContext(ctx, `DROP INDEX shoe_keys_key`); err != nil {
		b.Fatal(err)
	}
	var kept [][]baccarat.Card
	shoeRow := func(i int, shoe []baccarat.Card) []any {
		at := genStart.Add(time.Duration(i) * shoeStep(n))
		return []any{int64(i + 1), genTableID(i % 500), int64(i/500 + 1), int64(i + 1), int64(i + 1), fmt.Sprint(i), int64(8),
			db.ts(at.Add(-time.Hour)), db.ts(at), cardBytes(shoe)}
	}
	const shoeCols = "id, table_id, shoe, first_seq, last_seq, set_name, decks, started_at, ended_at, dealt"
	next := func(i int) []baccarat.Card {
		shoe := shuffledShoe(rng)[:411]
		if i%(n/10) == 0 {
			kept = append(kept, shoe)
		}
		return shoe
	}
	if db.Engine() == Postgres {
		c, err := db.SQL().Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		err = c.Raw(func(dc any) error {
			pc := dc.(*stdlib.Conn).Conn()
			var shoes, keys [][]any
			flush := func() error {
				if _, err := pc.CopyFrom(ctx, pgx.Identifier{"shoes"}, []string{"id", "table_id", "shoe", "first_seq", "last_seq", "set_name",
					"decks", "started_at", "ended_at", "dealt"}, pgx.CopyFromRows(shoes)); err != nil {
					return err
				}
				_, err := pc.CopyFrom(ctx, pgx.Identifier{"shoe_keys"}, []string{"key", "shoe", "pos"}, pgx.CopyFromRows(keys))
				shoes, keys = shoes[:0], keys[:0]
				return err
			}
			for i := range n {
				shoe := next(i)
				shoes = append(shoes, shoeRow(i, shoe))
				for pos, k := range integrity.Keys(shoe, integrity.MaxKey) {
					keys = append(keys, []any{k, int64(i + 1), int16(pos)})
				}
				if len(shoes) == 1000 {
					if err := flush(); err != nil {
						return err
					}
				}
			}
			return flush()
		})
		if err != nil {
			b.Fatal(err)
		}
	} else {
		tx, err := db.SQL().BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		insShoe, err := tx.PrepareContext(ctx, `INSERT INTO shoes (`+shoeCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`)
		if err != nil {
			b.Fatal(err)
		}
		insKey, err := tx.PrepareContext(ctx, `INSERT INTO shoe_keys (key, shoe, pos) VALUES ($1, $2, $3)`)
		if err != nil {
			b.Fatal(err)
		}
		for i := range n {
			shoe := next(i)
			if _, err := insShoe.ExecContext(ctx, shoeRow(i, shoe)...); err != nil {
				b.Fatal(err)
			}
			for pos, k := range integrity.Keys(shoe, integrity.MaxKey) {
				if _, err := insKey.ExecContext(ctx, k, int64(i+1), int64(pos)); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.SQL().ExecContext(ctx, `CREATE INDEX shoe_keys_key ON shoe_keys (key)`); err != nil {
		b.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	return kept
}

// keyBytes is what the index of keys takes on disk: its table and its B-tree, and the
// B-tree alone.
func keyBytes(b *testing.B, db *DB) (all, tree int64) {
	b.Helper()
	q := `SELECT pg_total_relation_size('shoe_keys'), pg_relation_size('shoe_keys_key')`
	if db.Engine() == SQLite {
		q = `SELECT SUM(pgsize), SUM(CASE WHEN name = 'shoe_keys_key' THEN pgsize ELSE 0 END) FROM dbstat
			WHERE name IN ('shoe_keys', 'shoe_keys_key')`
	}
	if err := db.SQL().QueryRow(q).Scan(&all, &tree); err != nil {
		b.Fatal(err)
	}
	return all, tree
}
