package archive

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/journal"
)

// derived returns, for each record of the fixture, the first words of the statements
// its rows are written by (the deriver's, replaying the journal from its start).
func derived(t *testing.T, f fixture) map[uint64][]string {
	t.Helper()
	der := &deriver{db: &DB{engine: SQLite}, table: fixtureTable}
	out := map[uint64][]string{}
	for _, r := range f.records {
		stmts, err := der.take(r.Seq, r.Data)
		if err != nil {
			t.Fatalf("record %d: %v", r.Seq, err)
		}
		for _, s := range stmts {
			out[r.Seq] = append(out[r.Seq], s.what())
		}
	}
	return out
}

// commandRecord returns the first record after seq that writes a command's row (a
// confirmation writes its round's too), and the first words of its rows' statements.
func commandRecord(t *testing.T, f fixture, after uint64) (Record, []string) {
	t.Helper()
	d := derived(t, f)
	for _, r := range f.records[after:] {
		if slices.Contains(d[r.Seq], "INSERT INTO commands") {
			return r, d[r.Seq]
		}
	}
	t.Fatalf("no command after record %d", after)
	return Record{}, nil
}

// rowsFrom counts the searchable rows derived from records seq and after.
func rowsFrom(t *testing.T, db *DB, id string, seq uint64) int {
	t.Helper()
	return count(t, db, `SELECT COUNT(*) FROM commands WHERE table_id = $1 AND seq >= $2`, id, int64(seq)) +
		count(t, db, `SELECT COUNT(*) FROM rounds WHERE table_id = $1 AND last_seq >= $2`, id, int64(seq)) +
		count(t, db, `SELECT COUNT(*) FROM irregularities WHERE table_id = $1 AND (seq >= $2 OR decided_seq >= $2)`, id, int64(seq))
}

// expectAlarm fails the test unless res stored nothing and raised one alarm of kind for
// table id's item at seq, its text naming them.
func expectAlarm(t *testing.T, res Result, id string, kind AlarmKind, item string, seq uint64) Alarm {
	t.Helper()
	if res.Stored != 0 || len(res.Alarms) != 1 {
		t.Fatalf("got %+v, want one %s alarm for %s %d and nothing stored", res, kind, item, seq)
	}
	al := res.Alarms[0]
	if al.Kind != kind || al.Table != id || al.Item != item || al.Seq != seq {
		t.Fatalf("alarm %+v, want %s for table %s, %s %d", al, kind, id, item, seq)
	}
	if !strings.Contains(al.String(), fmt.Sprintf("table %s, %s %d: %s", id, item, seq, kind)) {
		t.Fatalf("alarm %q does not name the table and the place", al)
	}
	return al
}

// TestUnsignedAppend: a record appended to the table's chain by someone without the
// table's key (a person's command, a confirmation settling a round, with another actor,
// chained correctly after the last record held) is never held, whatever head it comes
// under: none, one naming another table, an unnamed head, one of another key, the
// table's own head of another record, or another table's batch (signed with the same
// key, naming that table) replayed under this table's id. Nor is the table's own head of the record over another payload. Each
// raises its alarm naming the table and the record, is kept in quarantine, one row a
// batch, and derives no row; the archive holds the table as before; the true batch of
// that record is stored after them, with its rows, and the journal exported is the
// table's. (A refused batch is kept apart whole, in one row of quarantine.)
func TestUnsignedAppend(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	next, rows := commandRecord(t, f, 100)
	if len(rows) < 2 {
		t.Fatalf("record %d writes %v: the test wants a command that settles a round", next.Seq, rows)
	}
	k := next.Seq - 1
	const other = "pit3-bac08"
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		keys := f.keys()
		keys[other] = []ed25519.PublicKey{f.pub} // a table sharing the key
		a := newArchive(t, db, keys)
		ingestAll(t, a, f, k)
		held := f.records[k-1]

		forged := next
		forged.Data = []byte(withActor(next.Seq, "mallory")(next.Seq, string(next.Data)))
		if string(forged.Data) == string(next.Data) {
			t.Fatal("the forgery changed nothing")
		}
		forged.Hash = journal.ChainHash(held.Hash, forged.Seq, forged.Data)
		sign := func(key ed25519.PrivateKey, table string, seq uint64, h journal.Hash) journal.Checkpoint {
			c, err := journal.SignTable(key, table, seq, h)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		_, stranger, _ := ed25519.GenerateKey(nil)
		// The other table's journal: this one's up to k, then the forged record, which
		// that table wrote and signed as its own.
		if res, err := a.Ingest(ctx, other, batchOf(t, f.key, other, append(slices.Clone(f.records[:k]), forged), nil)); err != nil || res.Stored != int(next.Seq) {
			t.Fatalf("the other table's journal: %+v %v", res, err)
		}
		cases := []struct {
			name   string
			signed journal.Checkpoint
			rec    Record
			kind   AlarmKind
		}{
			{"no head", journal.Checkpoint{}, forged, NotSigned},
			{"a head naming another table", sign(f.key, "pit9-bac99", forged.Seq, forged.Hash), forged, NotSigned},
			{"an unnamed head", journal.Sign(f.key, forged.Seq, forged.Hash), forged, NotSigned},
			{"another key's head", sign(stranger, fixtureTable, forged.Seq, forged.Hash), forged, BadSignature},
			{"the table's head of the record before", sign(f.key, fixtureTable, held.Seq, held.Hash), forged, NotSigned},
			{"another table's batch replayed", sign(f.key, other, forged.Seq, forged.Hash), forged, NotSigned},
			{"the table's head of the record over another payload", sign(f.key, fixtureTable, next.Seq, next.Hash),
				Record{Seq: next.Seq, Hash: next.Hash, Data: forged.Data}, NotChained},
		}
		var want []Alarm
		for _, c := range cases {
			res, err := a.Ingest(ctx, fixtureTable, Batch{Records: []Record{c.rec}, Signed: c.signed, Written: c.rec.Seq})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			want = append(want, expectAlarm(t, res, fixtureTable, c.kind, "batch", next.Seq))
			if res.Held != (Position{held.Seq, held.Hash}) {
				t.Fatalf("%s: the archive holds %+v, want record %d as it was", c.name, res.Held, k)
			}
			if n := count(t, db, `SELECT COUNT(*) FROM records WHERE table_id = $1 AND seq > $2`, fixtureTable, int64(k)); n != 0 {
				t.Fatalf("%s: %d records held after record %d", c.name, n, k)
			}
			if n := rowsFrom(t, db, fixtureTable, next.Seq); n != 0 {
				t.Fatalf("%s: %d rows derived from record %d on", c.name, n, next.Seq)
			}
		}
		got, err := a.Quarantined(ctx, fixtureTable)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("quarantine holds\n%v\nwant\n%v", got, want)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM quarantine WHERE item = 'batch' AND seq = $1`, int64(next.Seq)); n != len(cases) {
			t.Fatalf("%d batches in quarantine, want %d", n, len(cases))
		}
		if n := count(t, db, `SELECT COUNT(*) FROM commands WHERE actor = 'mallory' AND table_id = $1`, fixtureTable); n != 0 {
			t.Fatal("the forger's command is among the table's")
		}
		if n := count(t, db, `SELECT COUNT(*) FROM commands WHERE actor = 'mallory' AND table_id = $1`, other); n != 1 {
			t.Fatalf("%d commands of the forger at the other table, which wrote it, want 1", n)
		}

		res := ingestBatch(t, a, fixtureTable, f.batch(t, next.Seq, next.Seq))
		if res.Stored != 1 || len(res.Alarms) != 0 || res.Held != (Position{next.Seq, next.Hash}) {
			t.Fatalf("the true record %d: %+v", next.Seq, res)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM commands WHERE table_id = $1 AND seq = $2`, fixtureTable, int64(next.Seq)); n != 1 {
			t.Fatalf("the true record %d derived %d commands, want 1", next.Seq, n)
		}
		ingestAll(t, a, f, 1<<62)
		checkRoundsAgainstReport(t, db, f)
		exportAndCompare(t, db, f)
	})
}

// TestAlteredMiddleRecord: a batch the table signed whose middle record is altered is
// refused as not chained, at the first record that no longer chains: the altered one
// when its hash is kept, the one after it when the forger chains it again; when every
// record after it is chained again too, the table's head no longer covers the last one
// (not signed). The first record of the batch altered breaks the chain from the last
// record held. Nothing of any is held or derived; the true batch is stored after them.
func TestAlteredMiddleRecord(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	const k, n = 100, 20 // the batch is records k+1 to k+n
	onEngines(t, func(t *testing.T, dsn string) {
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		ingestAll(t, a, f, k)
		genuine := f.batch(t, k+1, k+n)
		// alter returns the true batch with record seq's payload changed and each record
		// from seq through record through chained again (none when through < seq).
		alter := func(seq, through uint64) Batch {
			b := genuine
			b.Records = slices.Clone(genuine.Records)
			i := int(seq - (k + 1))
			b.Records[i].Data = append(slices.Clone(b.Records[i].Data), ' ')
			for j := i; j < len(b.Records) && b.Records[j].Seq <= through; j++ {
				prev := f.records[k-1].Hash
				if j > 0 {
					prev = b.Records[j-1].Hash
				}
				b.Records[j].Hash = journal.ChainHash(prev, b.Records[j].Seq, b.Records[j].Data)
			}
			return b
		}
		const mid = k + n/2
		for _, c := range []struct {
			name string
			b    Batch
			kind AlarmKind
			seq  uint64
		}{
			{"the middle record altered, its hash kept", alter(mid, 0), NotChained, mid},
			{"the middle record altered and chained again", alter(mid, mid), NotChained, mid + 1},
			{"the middle record altered, it and the rest chained again", alter(mid, k+n), NotSigned, k + 1},
			{"the first record altered, its hash kept", alter(k+1, 0), NotChained, k + 1},
		} {
			res := ingestBatch(t, a, fixtureTable, c.b)
			expectAlarm(t, res, fixtureTable, c.kind, "batch", c.seq)
			if res.Held.Seq != k || count(t, db, `SELECT MAX(seq) FROM records`) != k || rowsFrom(t, db, fixtureTable, k+1) != 0 {
				t.Fatalf("%s: the archive holds %+v, want record %d as it was, nothing derived after it", c.name, res.Held, k)
			}
		}
		if res := ingestBatch(t, a, fixtureTable, genuine); res.Stored != n || len(res.Alarms) != 0 {
			t.Fatalf("the true batch: %+v", res)
		}
		ingestAll(t, a, f, 1<<62)
		checkRoundsAgainstReport(t, db, f)
		exportAndCompare(t, db, f)
	})
}

// otherHistory is the fixture's journal rewritten from record from on: other payloads,
// chained from the true record before, through record to.
func otherHistory(f fixture, from, to uint64) []Record {
	prev := f.records[from-2].Hash
	var out []Record
	for seq := from; seq <= to; seq++ {
		data := []byte(fmt.Sprintf(`{"event":{"kind":"power-restored","at":"2026-11-27T05:%02d:00Z"}}`, seq%60))
		r := Record{Seq: seq, Hash: journal.ChainHash(prev, seq, data), Data: data}
		out = append(out, r)
		prev = r.Hash
	}
	return out
}

// TestRollback: the table's own key signing a second history over what the archive
// holds is refused as a rollback: a batch all held already whose last record the table
// signed with another hash (one comparison), a batch overlapping the records held that
// disagrees at the last one held, a batch that follows what is held but disagrees with
// a journal head the table signed ahead of the record, a journal head in a batch that
// disagrees with a record held, and that head sent alone. Nothing of any is held, and
// the true journal is stored after them.
func TestRollback(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	var ahead journal.Checkpoint // a journal head after record k
	for _, c := range f.heads {
		if c.Seq > 110 {
			ahead = c
			break
		}
	}
	k := ahead.Seq - 5
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		ingestAll(t, a, f, k)
		if res, err := a.IngestHead(ctx, fixtureTable, ahead); err != nil || res.Stored != 1 {
			t.Fatalf("the head of record %d ahead of it: %+v %v", ahead.Seq, res, err)
		}
		held := Position{k, f.records[k-1].Hash}
		second := otherHistory(f, k-5, ahead.Seq)
		inHeld := second[:5]                                   // records k-5 to k-1
		over := second[:9]                                     // records k-5 to k+3, before the head ahead
		after := otherHistory(f, k+1, ahead.Seq)               // chained from the true record k
		rolledHead := journal.Sign(f.key, k-5, second[0].Hash) // a journal head of the second history
		withHead := f.batch(t, k-5, k-1)                       // the true records k-5 to k-1, held already...
		withHead.Heads = []journal.Checkpoint{rolledHead}      // ...with that head
		for _, c := range []struct {
			name string
			b    Batch
			item string
			seq  uint64
		}{
			{"held already, another last record", batchOf(t, f.key, fixtureTable, inHeld, nil), "batch", k - 5},
			{"over the last record held", batchOf(t, f.key, fixtureTable, over, nil), "batch", k - 5},
			{"after what is held, against a head of the journal", batchOf(t, f.key, fixtureTable, after, nil), "batch", k + 1},
			{"a head of the journal against a record held", withHead, "head", k - 5},
		} {
			res := ingestBatch(t, a, fixtureTable, c.b)
			if len(res.Alarms) != 1 || res.Alarms[0].Kind != Rollback || res.Alarms[0].Item != c.item || res.Alarms[0].Seq != c.seq ||
				res.Alarms[0].Table != fixtureTable || res.Stored != 0 || res.Held != held {
				t.Fatalf("%s: %+v; want one rollback alarm of %s %d, nothing stored, record %d held", c.name, res, c.item, c.seq, k)
			}
		}
		res, err := a.IngestHead(ctx, fixtureTable, rolledHead)
		if err != nil {
			t.Fatal(err)
		}
		expectAlarm(t, res, fixtureTable, Rollback, "head", k-5)
		if n := count(t, db, `SELECT COUNT(*) FROM quarantine WHERE alarm = 'rollback'`); n != 5 {
			t.Fatalf("%d rollbacks in quarantine, want 5", n)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM records WHERE table_id = $1 AND seq > $2`, fixtureTable, int64(k)); n != 0 {
			t.Fatalf("%d records held after record %d", n, k)
		}
		ingestAll(t, a, f, 1<<62)
		checkRoundsAgainstReport(t, db, f)
		exportAndCompare(t, db, f)
	})
}

// TestNotABatch: what is not a batch (no records, records out of order, a gap, a record
// numbered 0, written below its last record, a head naming a table among the journal's
// heads) is a *BatchError naming the table: nothing of it is stored or kept apart. A
// table the keys file does not name is ErrUnknownTable, for records and heads alike, and
// nothing of it is stored, kept apart or counted (the service counts it, CountUnknown):
// no alarm and no quarantine row.
func TestNotABatch(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		ingestAll(t, a, f, 10)
		good := f.batch(t, 11, 14)
		with := func(edit func(b *Batch)) Batch {
			b := good
			b.Records = slices.Clone(good.Records)
			edit(&b)
			return b
		}
		named, err := journal.SignTable(f.key, fixtureTable, 12, f.records[11].Hash)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name, reason string
			b            Batch
		}{
			{"no records", "no records", with(func(b *Batch) { b.Records = nil })},
			{"out of order", "record 11 after record 12", with(func(b *Batch) { b.Records[0], b.Records[1] = b.Records[1], b.Records[0] })},
			{"a gap", "record 14 after record 12", with(func(b *Batch) { b.Records = slices.Delete(b.Records, 2, 3) })},
			{"record 0", "record number 0", with(func(b *Batch) { b.Records = append([]Record{{Seq: 0}}, b.Records...) })},
			{"written below", "written 13, below its last record 14", with(func(b *Batch) { b.Written = 13 })},
			{"a named head", "the head of record 12 names a table", with(func(b *Batch) { b.Heads = []journal.Checkpoint{named} })},
		} {
			res, err := a.Ingest(ctx, fixtureTable, c.b)
			var be *BatchError
			if !errors.As(err, &be) || be.Table != fixtureTable || !strings.Contains(be.Error(), c.reason) {
				t.Fatalf("%s: %+v, %v; want a *BatchError of %s saying %q", c.name, res, err, fixtureTable, c.reason)
			}
		}
		for _, call := range []func() (Result, error){
			func() (Result, error) {
				return a.Ingest(ctx, "pit9-bac99", batchOf(t, f.key, "pit9-bac99", f.records[:3], f.heads))
			},
			func() (Result, error) { return a.IngestHeads(ctx, "pit9-bac99", f.heads[:2]) },
		} {
			if res, err := call(); !errors.Is(err, ErrUnknownTable) || !strings.Contains(err.Error(), "pit9-bac99") {
				t.Fatalf("a table not in the keys file: %+v, %v; want ErrUnknownTable naming it", res, err)
			}
		}
		for q, want := range map[string]int{`records`: 10, `quarantine`: 0, `unknown_tables`: 0, `heads`: len(f.headsUpTo(10))} {
			if n := count(t, db, `SELECT COUNT(*) FROM `+q); n != want {
				t.Errorf("%d rows in %s, want %d", n, q, want)
			}
		}
		if res := ingestBatch(t, a, fixtureTable, good); res.Stored != 4 || len(res.Alarms) != 0 {
			t.Fatalf("the batch itself: %+v", res)
		}
	})
}

// TestWaitingBounded: a batch ahead of a gap waits in memory only within the window past
// what is held and within the bytes a table may keep waiting; past either it is dropped
// (and the table sends it again): one ending past the window, one numbered near 2^64, and
// the batches past the bytes, sent one record each. The bytes kept never pass the bound.
// When the gap fills, the batches waiting are taken and their memory let go. A batch
// ending at the window's end waits; the same from its first record, one record longer,
// is dropped. The ones dropped, sent again, are stored, and the journal is the table's.
func TestWaitingBounded(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	const window, k = 64, 10
	// The bound: the bytes of records k+2 to k+31 waiting, a batch each.
	limit := 0
	for _, r := range f.records[k+1 : k+31] {
		limit += batchBytes(Batch{Records: []Record{r}})
	}
	onEngines(t, func(t *testing.T, dsn string) {
		db := openDB(t, dsn)
		a := New(db, f.keys(), Options{Now: fixedNow, Window: window, MaxWaitingBytes: limit})
		ingestAll(t, a, f, k)
		state := func() *tableState {
			a.mu.Lock()
			defer a.mu.Unlock()
			return a.tables[fixtureTable]
		}
		// Past the window: the batch's last record beyond k+window, and far beyond.
		res := ingestBatch(t, a, fixtureTable, f.batch(t, k+window-1, k+window+1))
		if res.Dropped != 3 || res.Waiting != 0 || res.Stored != 0 || len(res.Alarms) != 0 {
			t.Fatalf("a batch past the window: %+v; want it dropped", res)
		}
		far := []Record{{Seq: math.MaxUint64 - 1, Data: []byte(`{"event":{"kind":"power-restored"}}`)}}
		far[0].Hash = journal.ChainHash(journal.Hash{1}, far[0].Seq, far[0].Data)
		far = append(far, Record{Seq: math.MaxUint64, Data: far[0].Data})
		far[1].Hash = journal.ChainHash(far[0].Hash, far[1].Seq, far[1].Data)
		b := batchOf(t, f.key, fixtureTable, far, nil)
		b.Written = math.MaxUint64
		res = ingestBatch(t, a, fixtureTable, b)
		if res.Dropped != 2 || res.Waiting != 0 || len(res.Alarms) != 0 || state().bytes != 0 || len(state().waiting) != 0 {
			t.Fatalf("a batch numbered near 2^64: %+v, %d bytes waiting; want it dropped", res, state().bytes)
		}
		// The batches ahead of record k+1, one record each, up to the window's end.
		dropped := 0
		for seq := uint64(k + 2); seq <= k+window; seq++ {
			res := ingestBatch(t, a, fixtureTable, f.batch(t, seq, seq))
			dropped += res.Dropped
			st := state()
			sum := 0
			for _, ws := range st.waiting {
				for _, w := range ws {
					sum += batchBytes(w)
				}
			}
			if st.bytes > limit || st.bytes != sum || res.Waiting != len(st.waiting) || res.Stored != 0 {
				t.Fatalf("record %d ahead of the gap: %+v, %d bytes kept (%d counted), bound %d", seq, res, sum, st.bytes, limit)
			}
		}
		if w := len(state().waiting); w != 30 || dropped != window-1-30 {
			t.Fatalf("%d batches waiting, %d dropped; want 30 and %d", w, dropped, window-1-30)
		}
		res = ingestBatch(t, a, fixtureTable, f.batch(t, k+1, k+1))
		if res.Stored != 31 || res.Waiting != 0 || res.Held.Seq != k+31 || state().bytes != 0 || len(state().waiting) != 0 {
			t.Fatalf("the gap filled: %+v, %d bytes still kept; want records %d to %d stored, nothing waiting", res, state().bytes, k+1, k+31)
		}
		const held = k + 31
		if res := ingestBatch(t, a, fixtureTable, f.batch(t, held+window-5, held+window)); res.Waiting != 6 || res.Dropped != 0 {
			t.Fatalf("a batch ending at the window's end: %+v; want it waiting", res)
		}
		if res := ingestBatch(t, a, fixtureTable, f.batch(t, held+window-5, held+window+1)); res.Waiting != 6 || res.Dropped != 7 {
			t.Fatalf("a batch ending past the window's end: %+v; want it dropped, the one before waiting", res)
		}
		if res := ingestBatch(t, a, fixtureTable, f.batch(t, held+1, held+window-6)); res.Stored != window || res.Held.Seq != held+window || state().bytes != 0 {
			t.Fatalf("the gap filled again: %+v; want the batch and the one waiting stored", res)
		}
		ingestAll(t, a, f, 1<<62)
		checkRoundsAgainstReport(t, db, f)
		exportAndCompare(t, db, f)
	})
}
