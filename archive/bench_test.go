package archive

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkIngest measures records stored per second, checked, with their rows: the
// table's journal (254 records of real play) sent by as many tables as b.N needs, in
// batches of 1 (a commit each) and of 100 (an archive draining its inbox). docs/
// BENCHMARKS.md gives the figures.
func BenchmarkIngest(b *testing.B) {
	f := loadFixture(b)
	for _, engine := range []Engine{SQLite, Postgres} {
		for _, batch := range []int{1, 100} {
			b.Run(fmt.Sprintf("%s/batch=%d", engine, batch), func(b *testing.B) {
				var dsn string
				if engine == Postgres {
					if pg == nil {
						b.Skipf("no PostgreSQL: %s", pgReason)
					}
					dsn = pg.NewDatabase(b)
				} else {
					dsn = filepath.Join(b.TempDir(), "archive.db")
				}
				db := openDB(b, dsn)
				tables := (b.N + len(f.records) - 1) / len(f.records)
				keys := Keys{}
				for i := range tables {
					keys[fmt.Sprintf("t%05d", i)] = []ed25519.PublicKey{f.pub}
				}
				a := New(db, keys, Options{Now: fixedNow})
				ctx := context.Background()
				b.ResetTimer()
				stored := 0
				for i := 0; stored < b.N; i++ {
					id := fmt.Sprintf("t%05d", i)
					recs := f.records[:min(len(f.records), b.N-stored)]
					for len(recs) > 0 {
						n := min(batch, len(recs))
						res, err := a.Ingest(ctx, id, recs[:n])
						if err != nil || res.Stored != n {
							b.Fatalf("%+v %v", res, err)
						}
						recs = recs[n:]
						stored += n
					}
				}
				b.ReportMetric(float64(stored)/b.Elapsed().Seconds(), "records/s")
			})
		}
	}
}
