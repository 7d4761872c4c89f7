package archive

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"testing"
)

// BenchmarkIngestHeads measures records stored per second as a table sends them with
// its signed heads: the fixture's journal (254 records, one head for every six records
// or so) sent by as many tables as b.N needs, each batch of 100 records followed by the
// heads of its records, one IngestHead each ("one") or in one IngestHeads ("batch").
func BenchmarkIngestHeads(b *testing.B) {
	f := loadFixture(b)
	for _, engine := range []Engine{SQLite, Postgres} {
		for _, mode := range []string{"one", "batch"} {
			b.Run(fmt.Sprintf("%s/heads=%s", engine, mode), func(b *testing.B) {
				db := benchDB(b, engine)
				tables := (b.N + len(f.records) - 1) / len(f.records)
				keys := Keys{}
				for i := range tables {
					keys[fmt.Sprintf("t%05d", i)] = []ed25519.PublicKey{f.pub}
				}
				a := New(db, keys, Options{Now: fixedNow})
				ctx := context.Background()
				self0, server0, _ := cpuTimes(db)
				b.ResetTimer()
				stored, heads := 0, 0
				for i := 0; stored < b.N; i++ {
					id := fmt.Sprintf("t%05d", i)
					recs, hs := f.records[:min(len(f.records), b.N-stored)], f.heads
					for len(recs) > 0 {
						n := min(100, len(recs))
						res, err := a.Ingest(ctx, id, recs[:n])
						if err != nil || res.Stored != n {
							b.Fatalf("%+v %v", res, err)
						}
						last := recs[n-1].Seq
						recs = recs[n:]
						stored += n
						k := 0
						for k < len(hs) && hs[k].Seq <= last {
							k++
						}
						if mode == "batch" {
							if res, err := a.IngestHeads(ctx, id, hs[:k]); err != nil || res.Stored != k {
								b.Fatalf("%+v %v", res, err)
							}
						} else {
							for _, c := range hs[:k] {
								if res, err := a.IngestHead(ctx, id, c); err != nil || res.Stored != 1 {
									b.Fatalf("%+v %v", res, err)
								}
							}
						}
						heads += k
						hs = hs[k:]
					}
				}
				b.ReportMetric(float64(stored)/b.Elapsed().Seconds(), "records/s")
				b.ReportMetric(float64(heads)/b.Elapsed().Seconds(), "heads/s")
				b.StopTimer()
				reportCPU(b, db, stored, self0, server0)
			})
		}
	}
}
