package archive

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// BenchmarkIngest measures records stored per second, checked (each batch's signed head,
// the chain of its records), with their rows: the table's journal (254 records of real
// play) sent by as many tables as b.N needs, in batches of 1 (a commit each) and of 100
// (an archive draining its inbox), each signed before the timer starts. docs/
// BENCHMARKS.md gives the figures.
func BenchmarkIngest(b *testing.B) {
	f := loadFixture(b)
	for _, engine := range []Engine{SQLite, Postgres} {
		for _, batch := range []int{1, 100} {
			b.Run(fmt.Sprintf("%s/batch=%d", engine, batch), func(b *testing.B) { ingestBench(b, f, engine, batch, 0, false) })
		}
	}
}

// BenchmarkIngestCopy is BenchmarkIngest on PostgreSQL with batches of a whole journal
// (254 records, as a table sends them when it catches up), its records' rows written by
// multi-row INSERTs ("insert") or by COPY ("copy"), the two one after the other.
func BenchmarkIngestCopy(b *testing.B) {
	f := loadFixture(b)
	for _, mode := range []struct {
		name    string
		copyMin int
	}{{"insert", 1 << 30}, {"copy", 128}} {
		b.Run(mode.name, func(b *testing.B) { ingestBench(b, f, Postgres, len(f.records), mode.copyMin, false) })
	}
}

// BenchmarkIntegrityCost is BenchmarkIngest in batches of 100 with the integrity watch
// off and on, one after the other, on each engine: the difference is the watch's cost,
// its drifts' CUSUMs included. "rounds" is the rounds stored, 42 in each table's 254
// records.
func BenchmarkIntegrityCost(b *testing.B) {
	f := loadFixture(b)
	for _, engine := range []Engine{SQLite, Postgres} {
		for _, mode := range []struct {
			name string
			off  bool
		}{{"off", true}, {"on", false}} {
			b.Run(fmt.Sprintf("%s/%s", engine, mode.name), func(b *testing.B) { ingestBench(b, f, engine, 100, 0, mode.off) })
		}
	}
}

// BenchmarkWatchPerRound is the integrity watch's own cost: the fixture's journal
// replayed by the archive's deriver with no database, the watch off, then on, in one
// run. "µs/round" is per round settled, counted by a table's own replay; the difference between the
// modes is what the watch adds to a round in the archive's process: the cards kept for
// the set's checks and the three drifts' CUSUMs.
func BenchmarkWatchPerRound(b *testing.B) {
	f := loadFixture(b)
	settled := 0
	var rp table.Replayer
	for _, r := range f.records {
		_, effs, err := rp.Take(r.Seq, r.Data)
		if err != nil {
			b.Fatalf("record %d: %v", r.Seq, err)
		}
		for _, e := range effs {
			if e.Kind == round.RoundSettled {
				settled++
			}
		}
	}
	b.Logf("%d rounds settled in %d records", settled, len(f.records))
	for _, mode := range []struct {
		name string
		off  bool
	}{{"off", true}, {"on", false}} {
		b.Run(mode.name, func(b *testing.B) {
			ig := IntegrityOptions{Off: mode.off}.WithDefaults()
			replay := func() {
				d := &deriver{db: &DB{engine: SQLite}, table: fixtureTable, ig: &ig, now: fixedNow}
				for _, r := range f.records {
					if _, err := d.take(r.Seq, r.Data); err != nil {
						b.Fatalf("record %d: %v", r.Seq, err)
					}
				}
			}
			replay() // the exact rates, worked out once a process (exactRates), before the timer
			rounds := 0
			for b.Loop() {
				replay()
				rounds += settled
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/float64(rounds), "µs/round")
		})
	}
}

// ingestBench stores b.N records of f's journal on a new database of engine, as tables
// send them in batches of batch records; copyMin is the database's least run for COPY
// (0: its default); off turns the integrity watch off. It reports the records and
// rounds stored a second.
func ingestBench(b *testing.B, f fixture, engine Engine, batch, copyMin int, off bool) {
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
	db.copyMin = copyMin
	tables := (b.N + len(f.records) - 1) / len(f.records)
	keys := Keys{}
	for i := range tables {
		keys[fmt.Sprintf("t%05d", i)] = []ed25519.PublicKey{f.pub}
	}
	a := New(db, keys, Options{Now: fixedNow, Integrity: IntegrityOptions{Off: off}})
	ctx := context.Background()
	// The batches as the tables ship them, signed before the timer: the
	// signing is the tables' work, the checking the archive's.
	var batches []struct {
		id string
		b  Batch
	}
	for i, left := 0, b.N; left > 0; i++ {
		id := fmt.Sprintf("t%05d", i)
		recs := f.records[:min(len(f.records), left)]
		left -= len(recs)
		for len(recs) > 0 {
			n := min(batch, len(recs))
			batches = append(batches, struct {
				id string
				b  Batch
			}{id, batchOf(b, f.key, id, recs[:n], nil)})
			recs = recs[n:]
		}
	}
	self0, server0, _ := cpuTimes(db)
	b.ResetTimer()
	stored := 0
	for _, x := range batches {
		res, err := a.Ingest(ctx, x.id, x.b)
		if err != nil || res.Stored != len(x.b.Records) {
			b.Fatalf("%+v %v", res, err)
		}
		stored += res.Stored
	}
	b.ReportMetric(float64(stored)/b.Elapsed().Seconds(), "records/s")
	b.StopTimer()
	reportCPU(b, db, stored, self0, server0)
	if rounds := count(b, db, `SELECT COUNT(*) FROM rounds`); rounds > 0 {
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(rounds), "µs/round")
	}
}

// reportCPU reports the CPU time per record of this process ("go-µs/record") and of the
// PostgreSQL cluster ("pg-µs/record") since self0 and server0 (from cpuTimes), where
// known: unlike the wall time, these hardly change with the machine's load.
func reportCPU(b *testing.B, db *DB, records int, self0, server0 time.Duration) {
	self, server, pgOK := cpuTimes(db)
	if self > 0 {
		b.ReportMetric(float64(self-self0)/1e3/float64(records), "go-µs/record")
	}
	if pgOK {
		b.ReportMetric(float64(server-server0)/1e3/float64(records), "pg-µs/record")
	}
}

// benchDB opens a new database of engine for a benchmark, skipping it when there is no
// PostgreSQL.
func benchDB(b *testing.B, engine Engine) *DB {
	b.Helper()
	if engine == Postgres {
		if pg == nil {
			b.Skipf("no PostgreSQL: %s", pgReason)
		}
		return openDB(b, pg.NewDatabase(b))
	}
	return openDB(b, filepath.Join(b.TempDir(), "archive.db"))
}

// BenchmarkMemory500Tables measures the archive's memory with 500 tables: each table
// plays memRounds rounds (see gen_test.go), sent in batches of 100, then the heap in use
// is read with the archive kept and again with it dropped. "MB/500tables" is the
// difference: what the archive keeps of the 500 tables (its state, their replaying
// controllers). "heap-MB" is the whole heap in use with it.
func BenchmarkMemory500Tables(b *testing.B) {
	for _, engine := range []Engine{SQLite, Postgres} {
		b.Run(string(engine), func(b *testing.B) {
			for b.Loop() {
				db := benchDB(b, engine)
				a := New(db, genKeys(500), Options{Now: fixedNow})
				stored := fillTables(b, a, 500, memRounds(), 100)
				b.StopTimer()
				with := heapInUse()
				runtime.KeepAlive(a)
				a = nil
				without := heapInUse()
				b.ReportMetric(float64(with)/1e6, "heap-MB")
				b.ReportMetric(float64(with-without)/1e6, "MB/500tables")
				b.ReportMetric(float64(stored), "records")
				db.Close()
				b.StartTimer()
			}
		})
	}
}

// memRounds is the rounds each table plays in BenchmarkMemory500Tables: a shoe and a
// little more (a shoe is about 80 rounds) at full scale, 20 in CI.
func memRounds() int {
	if benchFull {
		return 100
	}
	return 20
}

// heapInUse collects the garbage and returns the heap's bytes in use.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// BenchmarkFill measures the fills the searches run on (gen_test.go), each on a new
// database: "a year of one table" in batches of 1,000 and "a day of 500 tables" in
// batches of 100, in records stored per second. At the scale of CI the year is a week
// and the day a fiftieth; TABLECTL_BENCH_FULL=1 fills them whole.
func BenchmarkFill(b *testing.B) {
	for _, engine := range []Engine{SQLite, Postgres} {
		for _, fill := range []struct {
			name string
			fn   func(testing.TB, *DB) (*Archive, int)
		}{{"year", fillYear}, {"day500", fillDay500}} {
			b.Run(fmt.Sprintf("%s/%s", engine, fill.name), func(b *testing.B) {
				stored := 0
				for b.Loop() {
					_, n := fill.fn(b, benchDB(b, engine))
					stored += n
				}
				b.ReportMetric(float64(stored)/b.Elapsed().Seconds(), "records/s")
				b.ReportMetric(float64(stored/b.N), "records")
			})
		}
	}
}

// BenchmarkRestart measures what a restarted archive does at a table's first batch: it
// restores the state kept at the table's last shoe end, then reads back and replays the
// records held after it ("replayed"), to derive the rows of the next. The batch is the
// table's last record sent again, signed: a duplicate, so the archive's work is the
// restart's. The table is "a year of one table" (a week in CI; see fillYear), "records"
// the records it holds.
func BenchmarkRestart(b *testing.B) {
	for _, engine := range []Engine{SQLite, Postgres} {
		b.Run(string(engine), func(b *testing.B) {
			db := benchDB(b, engine)
			_, n := fillYear(b, db)
			ctx := context.Background()
			var last Record
			for r, err := range db.Records(ctx, genTableID(0), uint64(n)) {
				if err != nil {
					b.Fatal(err)
				}
				last = r
			}
			again := genBatch(b, genTableID(0), []Record{last})
			for b.Loop() {
				a := New(db, genKeys(1), Options{Now: fixedNow})
				if res, err := a.Ingest(ctx, genTableID(0), again); err != nil || res.Duplicates != 1 {
					b.Fatalf("%+v %v", res, err)
				}
			}
			b.ReportMetric(float64(n), "records")
			b.ReportMetric(float64(count(b, db, `SELECT t.last_seq - COALESCE(s.seq, 0) FROM tables t
				LEFT JOIN replay_state s ON s.table_id = t.table_id WHERE t.table_id = $1`, genTableID(0))), "replayed")
		})
	}
}

// BenchmarkCatchUp measures records stored per second as an archive catches up after an
// outage: b.N records of the fixture's journal, as many tables as they need, each table's
// in batches of a round's records or so (shipRound), and each table's batches sent in
// order by a goroutine of its own, as the service's workers do. "alone" stores each batch
// in a transaction of its own; "group" stores the batches that come while one is stored
// together (group commit), the two one after the other on each engine.
// "batches/commit" is how many batches a transaction took, on average.
func BenchmarkCatchUp(b *testing.B) {
	f := loadFixture(b)
	for _, engine := range []Engine{SQLite, Postgres} {
		for _, mode := range []string{"alone", "group"} {
			b.Run(fmt.Sprintf("%s/%s", engine, mode), func(b *testing.B) { catchUpBench(b, f, engine, mode == "alone") })
		}
	}
}

// shipRound is about a round's records: what a table ships at a time while it deals.
const shipRound = 6

func catchUpBench(b *testing.B, f fixture, engine Engine, alone bool) {
	db := benchDB(b, engine)
	tables := (b.N + len(f.records) - 1) / len(f.records)
	keys := Keys{}
	for i := range tables {
		keys[fmt.Sprintf("t%05d", i)] = []ed25519.PublicKey{f.pub}
	}
	a := New(db, keys, Options{Now: fixedNow})
	a.alone = alone
	ctx := context.Background()
	perTable := make([][]Batch, tables)
	batches := 0
	for i, left := 0, b.N; left > 0; i++ {
		id := fmt.Sprintf("t%05d", i)
		recs := f.records[:min(len(f.records), left)]
		left -= len(recs)
		for len(recs) > 0 {
			n := min(shipRound, len(recs))
			perTable[i] = append(perTable[i], batchOf(b, f.key, id, recs[:n], nil))
			recs = recs[n:]
			batches++
		}
	}
	self0, server0, _ := cpuTimes(db)
	commits := a.commits.Load()
	b.ResetTimer()
	var stored atomic.Int64
	var wg sync.WaitGroup
	for i, bs := range perTable {
		id := fmt.Sprintf("t%05d", i)
		wg.Go(func() {
			for _, x := range bs {
				res, err := a.Ingest(ctx, id, x)
				if err != nil || res.Stored != len(x.Records) {
					b.Errorf("table %s: %+v %v", id, res, err)
					return
				}
				stored.Add(int64(res.Stored))
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(stored.Load())/b.Elapsed().Seconds(), "records/s")
	b.StopTimer()
	b.ReportMetric(float64(batches)/float64(a.commits.Load()-commits), "batches/commit")
	reportCPU(b, db, int(stored.Load()), self0, server0)
}
