package archive

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"strings"
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

// TestHeadsInOneCall: the table's heads sent in one IngestHeads, ahead of their records,
// with a head that signs another hash for a number signed earlier in the same call and a
// head signed with another key: the heads are stored, the two others raise their alarms
// (the first checked against the head stored by the same call), and a head sent again is
// taken once. The records sent after agree with the heads, and the journal exported is
// the table's.
func TestHeadsInOneCall(t *testing.T) {
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		last := f.heads[len(f.heads)-1]
		other := journal.Sign(f.key, last.Seq, journal.ChainHash(journal.Hash{}, last.Seq, []byte("another record")))
		_, stranger, _ := ed25519.GenerateKey(nil)
		hs := append(append([]journal.Checkpoint(nil), f.heads...), other, journal.Sign(stranger, 1, f.records[0].Hash), f.heads[0])
		res, err := a.IngestHeads(ctx, fixtureTable, hs)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stored != len(f.heads) || res.Duplicates != 1 || len(res.Alarms) != 2 ||
			res.Alarms[0].Kind != Rollback || res.Alarms[0].Seq != last.Seq || res.Alarms[1].Kind != BadSignature {
			t.Fatalf("got %+v; want %d stored, 1 taken once, a rollback alarm for head %d and a bad signature", res, len(f.heads), last.Seq)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM quarantine WHERE item = 'head'`); n != 2 {
			t.Fatalf("%d heads in quarantine, want 2", n)
		}
		res, err = a.Ingest(ctx, fixtureTable, f.records)
		if err != nil || res.Stored != len(f.records) || len(res.Alarms) != 0 {
			t.Fatalf("the records after their heads: %+v %v", res, err)
		}
		exportAndCompare(t, db, f)
	})
}

// TestHeadsAfterTheirRecords: heads sent in one IngestHeads after their records, as a
// table sends them, half of them again: the new ones are stored, those held taken once,
// and a head the table's key signed over another hash for a record held raises a
// rollback alarm naming the record.
func TestHeadsAfterTheirRecords(t *testing.T) {
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		if res, err := a.Ingest(ctx, fixtureTable, f.records); err != nil || res.Stored != len(f.records) {
			t.Fatalf("records: %+v %v", res, err)
		}
		half := len(f.heads) / 2
		if res, err := a.IngestHeads(ctx, fixtureTable, f.heads[:half]); err != nil || res.Stored != half {
			t.Fatalf("half the heads: %+v %v", res, err)
		}
		signed := map[uint64]bool{}
		for _, c := range f.heads {
			signed[c.Seq] = true
		}
		var seq uint64 = f.heads[half].Seq - 1
		for signed[seq] {
			seq--
		}
		forged := journal.Sign(f.key, seq, journal.ChainHash(journal.Hash{}, seq, []byte("another record")))
		hs := append(append([]journal.Checkpoint(nil), f.heads...), forged)
		res, err := a.IngestHeads(ctx, fixtureTable, hs)
		if err != nil || res.Stored != len(f.heads)-half || res.Duplicates != half || len(res.Alarms) != 1 ||
			res.Alarms[0].Kind != Rollback || res.Alarms[0].Seq != seq || !strings.Contains(res.Alarms[0].Reason, fmt.Sprintf("holds record %d", seq)) {
			t.Fatalf("got %+v %v; want %d stored, %d taken once and a rollback alarm for head %d", res, err, len(f.heads)-half, half, seq)
		}
		exportAndCompare(t, db, f)
	})
}
