package archive

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/journal"
)

// inTheWay makes the database fail, at run time and not as a refusal (Refused is false),
// each statement of the trigger's event on table: a trigger that raises (PostgreSQL's
// default code P0001; SQLite's json() of no JSON, SQLITE_ERROR). It returns the statement
// that drops it.
func inTheWay(t *testing.T, db *DB, name, event, table string) string {
	t.Helper()
	stmts := []string{fmt.Sprintf(`CREATE TRIGGER %s BEFORE %s ON %s BEGIN SELECT json('in the way'); END`, name, event, table)}
	drop := `DROP TRIGGER ` + name
	if db.Engine() == Postgres {
		stmts = []string{
			fmt.Sprintf(`CREATE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'in the way'; END $$`, name),
			fmt.Sprintf(`CREATE TRIGGER %s BEFORE %s ON %s FOR EACH ROW EXECUTE FUNCTION %s()`, name, event, table, name),
		}
		drop = fmt.Sprintf(`DROP TRIGGER %s ON %s; DROP FUNCTION %s()`, name, table, name)
	}
	for _, q := range stmts {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return drop
}

// TestBatchIsOneTransaction: a batch whose last write fails (the removal of its inbox
// row, with a trigger in the way that fails at run time) stores nothing of what it
// queued before: no records, no rows derived from them, no heads, no quarantine (a head
// of the batch signed with another key is one), no new position, and its inbox row
// stays. A batch failing at an earlier write (the table's row) leaves its inbox row too.
// The archive holds the table as before; the same batch sent again once the obstacle is
// gone stores all of it, as the table wrote it, and removes its inbox row. (A record row
// in the way, the obstacle once, is now a refusal: the records are stored one by one,
// TestRefusedRecord.)
func TestBatchIsOneTransaction(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		const first = 50
		ingestAll(t, a, f, first)
		items := []InboxItem{{Table: fixtureTable, Topic: "tablectl/v1/" + fixtureTable + "/archive/records", Payload: []byte("{}"), At: fixedNow()}}
		if err := a.Receive(ctx, items); err != nil {
			t.Fatal(err)
		}
		_, stranger, _ := ed25519.GenerateKey(nil)
		batch := f.batch(t, first+1, uint64(len(f.records)))
		batch.Heads = append(slices.Clone(batch.Heads), journal.Sign(stranger, first+1, f.records[first].Hash))
		batch.Inbox = items[0].ID

		counts := func() [7]int {
			var c [7]int
			for i, q := range []string{`records`, `rounds`, `commands`, `irregularities`, `quarantine`, `heads`, `inbox`} {
				c[i] = count(t, db, `SELECT COUNT(*) FROM `+q)
			}
			return c
		}
		before := counts()
		if before[1] == 0 && before[2] == 0 {
			t.Fatal("the first batches derived no rows: the test would prove nothing")
		}
		for _, obstacle := range []struct{ event, table string }{{"DELETE", "inbox"}, {"UPDATE", "tables"}} {
			drop := inTheWay(t, db, "in_the_way", obstacle.event, obstacle.table)
			res, err := a.Ingest(ctx, fixtureTable, batch)
			if err == nil || Refused(err) {
				t.Fatalf("a batch meeting a failing %s on %s: %+v, %v; want an error, not a refusal", obstacle.event, obstacle.table, res, err)
			}
			if after := counts(); after != before {
				t.Fatalf("after the failed batch the archive has %v rows (records, rounds, commands, irregularities, quarantine, heads, inbox), want %v as before", after, before)
			}
			if n := count(t, db, `SELECT last_seq FROM tables WHERE table_id = $1`, fixtureTable); n != first {
				t.Fatalf("tables says record %d is held, want %d", n, first)
			}
			if held, err := a.Held(ctx, fixtureTable); err != nil || held.Seq != first {
				t.Fatalf("Held = %+v, %v; want record %d", held, err, first)
			}
			if _, err := db.SQL().Exec(drop); err != nil {
				t.Fatal(err)
			}
		}

		res, err := a.Ingest(ctx, fixtureTable, batch)
		if err != nil || res.Stored != len(f.records)-first || len(res.Alarms) != 1 || res.Alarms[0].Kind != BadSignature ||
			res.Alarms[0].Item != "head" || res.Alarms[0].Seq != first+1 {
			t.Fatalf("the batch again: %+v %v; want %d stored and the alarm of the head of record %d", res, err, len(f.records)-first, first+1)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM quarantine`); n != 1 {
			t.Fatalf("quarantine has %d rows, want 1", n)
		}
		if left, err := a.Inbox(ctx); err != nil || len(left) != 0 {
			t.Fatalf("the inbox after the batch is stored: %+v %v; want it empty", left, err)
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
	t.Parallel()
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
		b := f.batch(t, 1, uint64(len(f.records)))
		b.Heads = nil
		res, err = a.Ingest(ctx, fixtureTable, b)
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
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		b := f.batch(t, 1, uint64(len(f.records)))
		b.Heads = nil
		if res, err := a.Ingest(ctx, fixtureTable, b); err != nil || res.Stored != len(f.records) {
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
