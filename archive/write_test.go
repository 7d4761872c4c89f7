package archive

import (
	"context"
	"testing"

	"github.com/tablectl/tablectl/journal"
)

// TestBatchIsOneTransaction: a batch whose last write fails (its records' INSERT meets a
// row already there) stores nothing of what it queued before: no rows derived from its
// records, no quarantine, no new position. The archive holds the table as before; the
// same batch sent again once the obstacle is gone stores all of it, as the table wrote it.
func TestBatchIsOneTransaction(t *testing.T) {
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		const first = 50
		if res, err := a.Ingest(ctx, fixtureTable, f.records[:first]); err != nil || res.Stored != first {
			t.Fatalf("first batch: %+v %v", res, err)
		}
		// A row in the way of the next batch's records, written behind the archive's back.
		planted := f.records[199]
		if _, err := db.SQL().Exec(`INSERT INTO records (table_id, seq, hash, payload, received_at) VALUES ($1, $2, $3, $4, $5)`,
			fixtureTable, int64(planted.Seq), planted.Hash[:], planted.Data, db.ts(fixedNow())); err != nil {
			t.Fatal(err)
		}
		// The next batch: the rest of the journal and a rolled-back record 10 (an alarm).
		rb := Record{Seq: 10, Data: []byte(`{"event":{"kind":"power-restored","at":"2026-11-27T05:00:00Z"}}`)}
		rb.Hash = journal.ChainHash(f.records[8].Hash, rb.Seq, rb.Data)
		batch := append([]Record{rb}, f.records[first:]...)

		counts := func() [6]int {
			var c [6]int
			for i, q := range []string{`records`, `rounds`, `commands`, `irregularities`, `quarantine`, `heads`} {
				c[i] = count(t, db, `SELECT COUNT(*) FROM `+q)
			}
			return c
		}
		before := counts()
		if before[1] == 0 && before[2] == 0 {
			t.Fatal("the first batch derived no rows: the test would prove nothing")
		}
		res, err := a.Ingest(ctx, fixtureTable, batch)
		if err == nil {
			t.Fatalf("a batch meeting a record already there: %+v, want an error", res)
		}
		if after := counts(); after != before {
			t.Fatalf("after the failed batch the archive has %v rows (records, rounds, commands, irregularities, quarantine, heads), want %v as before", after, before)
		}
		if n := count(t, db, `SELECT last_seq FROM tables WHERE table_id = $1`, fixtureTable); n != first {
			t.Fatalf("tables says record %d is held, want %d", n, first)
		}
		if held, err := a.Held(ctx, fixtureTable); err != nil || held.Seq != first {
			t.Fatalf("Held = %+v, %v; want record %d", held, err, first)
		}

		if _, err := db.SQL().Exec(`DELETE FROM records WHERE table_id = $1 AND seq = $2`, fixtureTable, int64(planted.Seq)); err != nil {
			t.Fatal(err)
		}
		res, err = a.Ingest(ctx, fixtureTable, batch)
		if err != nil || res.Stored != len(f.records)-first || len(res.Alarms) != 1 || res.Alarms[0].Seq != 10 {
			t.Fatalf("the batch again: %+v %v; want %d stored and the alarm of record 10", res, err, len(f.records)-first)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM quarantine`); n != 1 {
			t.Fatalf("quarantine has %d rows, want 1", n)
		}
		for _, c := range f.heads {
			if _, err := a.IngestHead(ctx, fixtureTable, c); err != nil {
				t.Fatal(err)
			}
		}
		checkRoundsAgainstReport(t, db, f)
		exportAndCompare(t, db, f)
	})
}
