package archive

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"testing"
)

// BenchmarkIngestHeads measures records stored per second as a table sends them with
// its signed heads: the fixture's journal (254 records, one head for every six records
// or so) sent by as many tables as b.N needs, in signed batches of 100 records. The
// heads of a batch's records go in the batch itself, as a table ships them ("in-batch"),
// or after it, one IngestHead each ("one") or in one IngestHeads ("batch").
func BenchmarkIngestHeads(b *testing.B) {
	f := loadFixture(b)
	for _, engine := range []Engine{SQLite, Postgres} {
		for _, mode := range []string{"one", "batch", "in-batch"} {
			b.Run(fmt.Sprintf("%s/heads=%s", engine, mode), func(b *testing.B) {
				db := benchDB(b, engine)
				tables := (b.N + len(f.records) - 1) / len(f.records)
				keys := Keys{}
				for i := range tables {
					keys[fmt.Sprintf("t%05d", i)] = []ed25519.PublicKey{f.pub}
				}
				a := New(db, keys, Options{Now: fixedNow})
				ctx := context.Background()
				// The batches, signed before the timer: the signing is the tables' work.
				type send struct {
					id string
					b  Batch
				}
				var sends []send
				for i, left := 0, b.N; left > 0; i++ {
					id := fmt.Sprintf("t%05d", i)
					recs := f.records[:min(len(f.records), left)]
					left -= len(recs)
					for len(recs) > 0 {
						n := min(100, len(recs))
						sends = append(sends, send{id, batchOf(b, f.key, id, recs[:n], f.heads)})
						recs = recs[n:]
					}
				}
				self0, server0, _ := cpuTimes(db)
				b.ResetTimer()
				stored, heads := 0, 0
				for _, s := range sends {
					hs := s.b.Heads
					if mode != "in-batch" {
						s.b.Heads = nil
					}
					res, err := a.Ingest(ctx, s.id, s.b)
					if err != nil || res.Stored != len(s.b.Records) || len(res.Alarms) != 0 {
						b.Fatalf("%+v %v", res, err)
					}
					stored += res.Stored
					switch mode {
					case "batch":
						if res, err := a.IngestHeads(ctx, s.id, hs); err != nil || res.Stored != len(hs) {
							b.Fatalf("%+v %v", res, err)
						}
					case "one":
						for _, c := range hs {
							if res, err := a.IngestHead(ctx, s.id, c); err != nil || res.Stored != 1 {
								b.Fatalf("%+v %v", res, err)
							}
						}
					}
					heads += len(hs)
				}
				b.ReportMetric(float64(stored)/b.Elapsed().Seconds(), "records/s")
				b.ReportMetric(float64(heads)/b.Elapsed().Seconds(), "heads/s")
				b.StopTimer()
				if n := count(b, db, `SELECT COUNT(*) FROM heads`); n != heads {
					b.Fatalf("%d heads held, %d sent", n, heads)
				}
				reportCPU(b, db, stored, self0, server0)
			})
		}
	}
}
