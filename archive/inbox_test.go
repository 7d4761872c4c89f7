package archive

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/journal"
)

// inboxIDs lists the ids of a's inbox rows.
func inboxIDs(t *testing.T, a *Archive) []int64 {
	t.Helper()
	items, err := a.Inbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	return ids
}

// TestInbox: Receive keeps batches as they came and numbers them in order, on from the
// last number kept (a restarted archive too); Inbox lists them in that order, with their
// table, topic, payload and time; Done removes one. A batch's inbox row is removed in the
// transaction that takes the batch, whatever becomes of it: stored, held already,
// waiting, dropped or kept apart. A batch Ingest refuses (not a batch, a table not in the
// keys file) leaves its row, for the caller's Done.
func TestInbox(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := New(db, f.keys(), Options{Now: fixedNow, Window: 64})
		topic := "tablectl/v1/" + fixtureTable + "/archive/records"
		items := []InboxItem{
			{Table: fixtureTable, Topic: topic, Payload: []byte(`{"records":[]}`), At: fixedNow()},
			{Table: "pit9-bac99", Topic: "casino/site/pit9/tablectl/v1/pit9-bac99/archive/records", Payload: []byte{0, 1, 2}, At: fixedNow().Add(time.Microsecond)},
			{Table: fixtureTable, Topic: topic, Payload: []byte(`{}`), At: fixedNow().Add(time.Second)},
		}
		if err := a.Receive(ctx, items); err != nil {
			t.Fatal(err)
		}
		got, err := a.Inbox(ctx)
		if err != nil || len(got) != 3 {
			t.Fatalf("Inbox = %+v, %v", got, err)
		}
		for i, it := range got {
			if it.ID != int64(i+1) || items[i].ID != it.ID || it.Table != items[i].Table || it.Topic != items[i].Topic ||
				string(it.Payload) != string(items[i].Payload) || !it.At.Equal(items[i].At) {
				t.Fatalf("inbox row %d: %+v, want %+v numbered %d", i, it, items[i], i+1)
			}
		}
		if err := a.Done(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if err := a.Done(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if ids := inboxIDs(t, a); !slices.Equal(ids, []int64{1, 3}) {
			t.Fatalf("after Done(2) the inbox holds %v, want [1 3]", ids)
		}

		// A restarted archive numbers on, and each Ingest takes its own row.
		a = New(db, f.keys(), Options{Now: fixedNow, Window: 64})
		more := make([]InboxItem, 7)
		for i := range more {
			more[i] = InboxItem{Table: fixtureTable, Topic: topic, Payload: []byte(fmt.Sprint(i)), At: fixedNow()}
		}
		if err := a.Receive(ctx, more); err != nil || more[0].ID != 4 || more[6].ID != 10 {
			t.Fatalf("Receive after a restart: %v, ids %d to %d; want 4 to 10", err, more[0].ID, more[6].ID)
		}
		unsigned := f.batch(t, 11, 12)
		unsigned.Signed = journal.Checkpoint{}
		for _, c := range []struct {
			name string
			id   int64
			b    Batch
			kept bool
		}{
			{"stored", 1, f.batch(t, 1, 10), false},
			{"held already", 3, f.batch(t, 1, 10), false},
			{"waiting", 4, f.batch(t, 20, 25), false},
			{"dropped", 5, f.batch(t, 200, 201), false},
			{"kept apart", 6, unsigned, false},
			{"not a batch", 7, Batch{}, true},
		} {
			c.b.Inbox = c.id
			_, err := a.Ingest(ctx, fixtureTable, c.b)
			var be *BatchError
			if c.kept != errors.As(err, &be) || err != nil && be == nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if slices.Contains(inboxIDs(t, a), c.id) != c.kept {
				t.Fatalf("%s: inbox row %d kept %v, want %v", c.name, c.id, !c.kept, c.kept)
			}
		}
		b := batchOf(t, f.key, "pit9-bac99", f.records[:2], nil)
		b.Inbox = 8
		if _, err := a.Ingest(ctx, "pit9-bac99", b); !errors.Is(err, ErrUnknownTable) {
			t.Fatalf("a table not in the keys file: %v", err)
		}
		if ids := inboxIDs(t, a); !slices.Equal(ids, []int64{7, 8, 9, 10}) {
			t.Fatalf("the inbox holds %v, want [7 8 9 10]", ids)
		}
	})
}

// TestCountUnknown: batches of 2,000 distinct tables the keys file does not name are
// counted in at most MaxUnknownTables rows of their own and one more, under the id "",
// for the rest together; an id counted before goes on on its row, a restarted archive
// too; Ingest of such a table is ErrUnknownTable and keeps nothing, not in quarantine
// either: no alarm and no quarantine row for an unknown table.
func TestCountUnknown(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	const ids = 2000
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		ghost := func(i int) string { return fmt.Sprintf("ghost-%04d", i) }
		for i := range ids {
			if err := a.CountUnknown(ctx, ghost(i), 10+i%7); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := a.Ingest(ctx, ghost(3), batchOf(t, f.key, ghost(3), f.records[:5], nil)); !errors.Is(err, ErrUnknownTable) {
			t.Fatalf("Ingest of an unknown table: %v, want ErrUnknownTable", err)
		}
		later := func() time.Time { return fixedNow().Add(time.Hour) }
		a = New(db, f.keys(), Options{Now: later}) // restarted
		for _, i := range []int{5, ids - 1, ids + 1} {
			if err := a.CountUnknown(ctx, ghost(i), 1); err != nil {
				t.Fatal(err)
			}
		}
		us, err := a.UnknownTables(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(us) != DefaultMaxUnknownTables+1 {
			t.Fatalf("%d rows of unknown tables, want %d", len(us), DefaultMaxUnknownTables+1)
		}
		byID := map[string]UnknownTable{}
		for _, u := range us {
			byID[u.Table] = u
		}
		rest, restBytes := int64(0), int64(0)
		for i := DefaultMaxUnknownTables; i < ids; i++ {
			rest, restBytes = rest+1, restBytes+int64(10+i%7)
		}
		all := byID[""]
		if all.Batches != rest+2 || all.Bytes != restBytes+2 || !all.First.Equal(fixedNow()) || !all.Last.Equal(later()) {
			t.Fatalf("the rest together: %+v; want %d batches, %d bytes, from %s to %s", all, rest+2, restBytes+2, fixedNow(), later())
		}
		if u := byID[ghost(5)]; u.Batches != 2 || u.Bytes != 10+5%7+1 || !u.Last.Equal(later()) {
			t.Fatalf("%s counted again: %+v", ghost(5), u)
		}
		if u, ok := byID[ghost(0)]; !ok || u.Batches != 1 {
			t.Fatalf("%s: %+v", ghost(0), u)
		}
		if _, ok := byID[ghost(DefaultMaxUnknownTables)]; ok {
			t.Fatalf("%s has a row of its own, past the bound", ghost(DefaultMaxUnknownTables))
		}
		for _, q := range []string{"quarantine", "records", "tables"} {
			if n := count(t, db, `SELECT COUNT(*) FROM `+q); n != 0 {
				t.Fatalf("%d rows in %s, want none", n, q)
			}
		}
	})
}

// TestClaim: a database is one archive's: the first Claim records its id, the same id
// claims it again (after a reopening too), another id is refused, naming both.
func TestClaim(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		for _, id := range []string{"floor-a", "floor-a"} {
			if err := db.Claim(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		refused := func(db *DB) {
			t.Helper()
			err := db.Claim(ctx, "floor-b")
			if err == nil || !strings.Contains(err.Error(), `"floor-a"`) || !strings.Contains(err.Error(), `"floor-b"`) {
				t.Fatalf("another archive's claim: %v; want it refused, naming both", err)
			}
		}
		refused(db)
		db.Close()
		db = openDB(t, dsn)
		refused(db)
		if err := db.Claim(ctx, "floor-a"); err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM archive_meta`); n != 1 {
			t.Fatalf("%d rows in archive_meta, want 1", n)
		}
	})
}

// TestStatus: Status says how far the archive holds a table, the table's head naming it
// of the last record it signed that the archive holds, the last record the table said it
// had written, when the archive last stored a record of it, and its alarms with the
// latest; a restarted archive reads the same from the table's row. A table held nothing
// has a zero Status.
func TestStatus(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		if st, err := a.Status(ctx, fixtureTable); err != nil || st.Held.Seq != 0 || st.Signed.Seq != 0 || !st.At.IsZero() || st.Alarms != 0 || st.Latest != nil {
			t.Fatalf("Status of a table held nothing: %+v, %v", st, err)
		}
		b := f.batch(t, 1, 60)
		b.Written = 80
		ingestBatch(t, a, fixtureTable, b)
		unsigned := f.batch(t, 61, 62)
		unsigned.Signed = journal.Checkpoint{}
		ingestBatch(t, a, fixtureTable, unsigned)
		ingestBatch(t, a, fixtureTable, f.batch(t, 1, 30)) // held already: changes nothing
		for _, a := range []*Archive{a, newArchive(t, db, f.keys())} {
			st, err := a.Status(ctx, fixtureTable)
			if err != nil {
				t.Fatal(err)
			}
			last := f.records[59]
			if st.Held != (Position{60, last.Hash}) || st.Signed.Table != fixtureTable || st.Signed.Seq != 60 || st.Signed.Hash != last.Hash ||
				!st.Signed.Verify(f.pub) || st.Written != 80 || !st.At.Equal(fixedNow()) {
				t.Fatalf("Status = %+v; want record 60 held and signed, 80 written, stored at %s", st, fixedNow())
			}
			if st.Alarms != 1 || st.Latest == nil || st.Latest.Kind != NotSigned || st.Latest.Seq != 61 || !st.Latest.At.Equal(fixedNow()) {
				t.Fatalf("Status's alarms: %d, latest %+v; want the unsigned batch of record 61", st.Alarms, st.Latest)
			}
		}
	})
}
