package archive

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// queued starts an Ingest of each batch at once, while the test holds the writer, and
// returns once all are in the queue: so the archive takes them as one group when the
// writer is let go. It returns the answers, once all have come.
func queued(t *testing.T, a *Archive, ids []string, batches []Batch) func() ([]Result, []error) {
	t.Helper()
	a.writer <- struct{}{}
	res, errs := make([]Result, len(ids)), make([]error, len(ids))
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() { res[i], errs[i] = a.Ingest(context.Background(), ids[i], batches[i]) })
	}
	deadline := time.Now().Add(30 * time.Second) // bounds a failure alone
	for {
		a.qmu.Lock()
		n := len(a.queue)
		a.qmu.Unlock()
		if n == len(ids) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d batches queued", n, len(ids))
		}
		runtime.Gosched()
	}
	<-a.writer
	return func() ([]Result, []error) {
		wg.Wait()
		return res, errs
	}
}

// TestGroupCommit: the batches of many tables that come while one is being stored are
// stored together, in one transaction (docs/BENCHMARKS.md, "Group commit"), and each
// gets its own answer. A fault of one batch stays its own: a forged batch in the group
// is kept apart with its alarm and the others are stored in the same transaction; a
// batch whose write fails (its inbox row's removal, with a trigger in the way) fails
// alone, the group stored batch by batch then, and it is stored once the obstacle is
// gone. Each table's journal exported at the end is the fixture's.
func TestGroupCommit(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		var ids []string
		keys := Keys{}
		for i := range 6 {
			id := fmt.Sprintf("g%d", i)
			ids = append(ids, id)
			keys[id] = []ed25519.PublicKey{f.pub}
		}
		a := newArchive(t, db, keys)
		const first = 60
		batch := func(id string, from, to int) Batch { return batchOf(t, f.key, id, f.records[from-1:to], f.heads) }

		var bs []Batch
		for _, id := range ids {
			bs = append(bs, batch(id, 1, first))
		}
		commits := a.commits.Load()
		res, errs := queued(t, a, ids, bs)()
		for i, id := range ids {
			if errs[i] != nil || res[i].Stored != first || len(res[i].Alarms) != 0 || res[i].Held.Seq != first {
				t.Fatalf("table %s in the group: %+v %v; want %d records stored", id, res[i], errs[i], first)
			}
		}
		if n := a.commits.Load() - commits; n != 1 {
			t.Fatalf("%d batches of %d tables stored in %d transactions, want 1", len(ids), len(ids), n)
		}

		// The rest: g2's batch forged (a payload changed after the table signed), g4's
		// with an inbox row whose removal fails.
		last := len(f.records)
		bs = bs[:0]
		for _, id := range ids {
			bs = append(bs, batch(id, first+1, last))
		}
		forged := slices.Clone(bs[2].Records)
		forged[5].Data = append([]byte(nil), forged[5].Data...)
		forged[5].Data[len(forged[5].Data)-2] ^= 1
		bs[2].Records = forged
		items := []InboxItem{{Table: "g4", Topic: "tablectl/v1/g4/archive/records", Payload: []byte("{}"), At: fixedNow()}}
		if err := a.Receive(ctx, items); err != nil {
			t.Fatal(err)
		}
		bs[4].Inbox = items[0].ID
		drop := inTheWay(t, db, "in_the_way", "DELETE", "inbox")
		res, errs = queued(t, a, ids, bs)()
		for i, id := range ids {
			switch id {
			case "g2":
				if errs[i] != nil || res[i].Stored != 0 || len(res[i].Alarms) != 1 || res[i].Alarms[0].Kind != NotChained || res[i].Held.Seq != first {
					t.Fatalf("the forged batch of %s: %+v %v; want its alarm, nothing stored, held at %d", id, res[i], errs[i], first)
				}
			case "g4":
				if errs[i] == nil || Refused(errs[i]) {
					t.Fatalf("the batch of %s meeting a failing DELETE: %+v %v; want an error of the database", id, res[i], errs[i])
				}
			default:
				if errs[i] != nil || res[i].Stored != last-first || res[i].Held.Seq != uint64(last) {
					t.Fatalf("table %s in the group with a failing batch: %+v %v; want %d records stored", id, res[i], errs[i], last-first)
				}
			}
		}
		if held, err := a.Held(ctx, "g4"); err != nil || held.Seq != first {
			t.Fatalf("g4 after its failed batch: held %+v %v; want record %d", held, err, first)
		}
		if _, err := db.SQL().Exec(drop); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"g2", "g4"} {
			b := batch(id, first+1, last)
			if id == "g4" {
				b.Inbox = items[0].ID
			}
			if r, err := a.Ingest(ctx, id, b); err != nil || r.Stored != last-first {
				t.Fatalf("the batch of %s again: %+v %v", id, r, err)
			}
		}
		if left, err := a.Inbox(ctx); err != nil || len(left) != 0 {
			t.Fatalf("the inbox at the end: %+v %v; want it empty", left, err)
		}
		for _, id := range ids {
			ex, err := Export(ctx, db, id, t.TempDir())
			if err != nil || ex.Records != last || ex.Heads != len(f.heads) || ex.Signed != uint64(last) {
				t.Fatalf("table %s exported: %+v %v; want %d records, %d heads", id, ex, err, last, len(f.heads))
			}
		}
		if n := count(t, db, `SELECT COUNT(*) FROM quarantine WHERE table_id = 'g2'`); n != 1 {
			t.Fatalf("g2 has %d items in quarantine, want the forged batch", n)
		}
	})
}

// TestPostgresPoolBounded: an archive, and a reader, open at most maxPostgresConns
// connections to PostgreSQL, so that the statuses of a floor's tables asked at once
// wait for a connection rather than fail at the server's max_connections.
func TestPostgresPoolBounded(t *testing.T) {
	t.Parallel()
	if pg == nil {
		t.Skipf("no PostgreSQL: %s", pgReason)
	}
	dsn := pg.NewDatabase(t)
	db := openDB(t, dsn)
	r, err := OpenReader(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for name, d := range map[string]*DB{"archive": db, "reader": r} {
		if n := d.SQL().Stats().MaxOpenConnections; n != maxPostgresConns {
			t.Errorf("the %s's pool opens at most %d connections, want %d", name, n, maxPostgresConns)
		}
	}
}
