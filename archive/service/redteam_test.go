package service

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// The red-team tests of docs/archive.md ("What each layer stops"): each is an attack
// or a fault that once stored a forgery or stopped the floor's archive.

// client connects a paho client to b as user (anonymous when ""), and fails the test
// when the broker refuses it.
func client(t *testing.T, b *mosquittotest.Broker, id, user, password string) mqtt.Client {
	t.Helper()
	o := mqtt.NewClientOptions().AddBroker(b.URL()).SetClientID(id).SetAutoReconnect(false)
	if user != "" {
		o.SetUsername(user).SetPassword(password)
	}
	c := mqtt.NewClient(o)
	if tok := c.Connect(); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("%s does not connect: %v", id, tok.Error())
	}
	t.Cleanup(func() { c.Disconnect(100) })
	return c
}

// publishJSON publishes v on topic through c and waits for the broker.
func publishJSON(t *testing.T, c mqtt.Client, topic string, retained bool, v any) {
	t.Helper()
	payload, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if tok := c.Publish(topic, 1, retained, payload); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("publish on %s: %v", topic, tok.Error())
	}
}

// appended is the record after record prev of f's journal, as a forger writes it: an
// event of its choosing, chained correctly.
func appended(t *testing.T, prev archive.Record, ev round.Event) archive.Record {
	t.Helper()
	data, err := json.Marshal(table.Entry{Event: &ev})
	if err != nil {
		t.Fatal(err)
	}
	seq := prev.Seq + 1
	return archive.Record{Seq: seq, Hash: journal.ChainHash(prev.Hash, seq, data), Data: data}
}

// batchOf is the batch of recs for table id and archive floor, unsigned.
func batchOf(id string, recs ...archive.Record) api.ArchiveBatch {
	b := api.ArchiveBatch{Schema: api.Schema, Table: id, Archive: "floor", Written: recs[len(recs)-1].Seq}
	for _, r := range recs {
		b.Records = append(b.Records, api.ArchiveRecord{Seq: r.Seq, Hash: api.Hash(r.Hash), Data: r.Data})
	}
	return b
}

// count counts the rows of a query on dsn.
func count(t *testing.T, dsn, query string, args ...any) int {
	t.Helper()
	db, err := archive.OpenReader(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.SQL().QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// mallory is the forger's record: a confirmation by "MALLORY", appended to the table's
// chain after record k.
func mallory(t *testing.T, f fixture, k uint64) archive.Record {
	return appended(t, f.records[k-1], round.Event{Kind: round.ConfirmResult, At: time.Date(2026, 11, 27, 5, 0, 0, 0, time.UTC),
		Role: irregularities.Dealer, Actor: "MALLORY"})
}

// TestForgeryThroughTheShippedACL: with the shipped ACL, another table's login cannot
// publish a record on this table's topic, and an anonymous client cannot log in at all:
// the forger's record never reaches the archive, nothing is held of it, and the table's
// own records from there on are stored.
func TestForgeryThroughTheShippedACL(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		b := startBroker(t)
		var log logBuffer
		r := startArchive(t, b, dsn, keysOf(f), &log, nil)
		ft := newFakeTable(t, b, f)
		k := f.last() / 2
		ft.send(1, k, 20)
		ft.waitHeld("at k", heldAt(k))

		other := client(t, b, "other-table", otherTable, tablePassword)
		forged := batchOf(fixtureTable, mallory(t, f, k))
		c, _ := journal.SignTable(f.key, otherTable, k+1, journal.Hash(forged.Records[0].Hash)) // even with a signature
		signed := messages.WireHead(c)
		forged.Signed = &signed
		topics, _ := api.NewTopics(fixtureTable)
		publishJSON(t, other, topics.ArchiveRecords("floor"), false, forged) // acknowledged, dropped (MQTT 3.1.1)
		anon := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL()).SetClientID("anonymous").SetAutoReconnect(false))
		if tok := anon.Connect(); tok.WaitTimeout(15*time.Second) && tok.Error() == nil {
			anon.Disconnect(100)
			t.Fatal("the shipped broker lets an anonymous client in")
		}

		ft.send(k+1, f.last(), 20)
		h := ft.waitHeld("at the last record", heldAt(f.last()))
		if h.Alarms != 0 || r.svc.Stats().Alarms != 0 {
			t.Fatalf("held %+v, stats %+v: the forgery reached the archive", h, r.svc.Stats())
		}
		checkSigned(t, f, fixtureTable, h)
		r.stop()
		checkJournal(t, dsn, f)
		if n := count(t, dsn, `SELECT COUNT(*) FROM commands WHERE actor = 'MALLORY'`); n != 0 {
			t.Fatalf("%d commands by MALLORY in the archive", n)
		}
	})
}

// TestForgeryOnAnOpenBroker: on a broker that lets anyone publish anything, a record
// appended to the table's chain (chained correctly, the hash to go on from read off the
// held message) is never held, whatever signature it carries: none, one made with
// another key, another table's genuine one, the table's unnamed journal head. Each
// raises an alarm naming the table and the record; no row of History comes from it;
// the held message does not move; the table's own record at that number is stored
// after them, and the copy exported from the archive is the table's journal.
func TestForgeryOnAnOpenBroker(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		b := startOpenBroker(t)
		var log logBuffer
		r := startArchive(t, b, dsn, keysOf(f), &log, nil, func(o *Options) { o.Username, o.Password = "", "" })
		ft := newFakeTable(t, b, f)
		k := f.last() / 2
		ft.send(1, k, 20)
		held := ft.waitHeld("at k", heldAt(k))

		rec := mallory(t, f, k)
		if f.records[k-1].Hash != journal.Hash(held.Hash) {
			t.Fatal("the held message does not give the hash to go on from")
		}
		_, stranger, _ := ed25519.GenerateKey(nil)
		byStranger, _ := journal.SignTable(stranger, fixtureTable, rec.Seq, rec.Hash)
		otherTables, _ := journal.SignTable(f.key, otherTable, rec.Seq, rec.Hash)
		unnamed := journal.Sign(f.key, rec.Seq, rec.Hash)
		anon := client(t, b, "anonymous", "", "")
		topics, _ := api.NewTopics(fixtureTable)
		for i, c := range []struct {
			signed journal.Checkpoint
			kind   archive.AlarmKind
		}{
			{journal.Checkpoint{}, archive.NotSigned},
			{byStranger, archive.BadSignature},
			{otherTables, archive.NotSigned},
			{unnamed, archive.NotSigned},
		} {
			forged := batchOf(fixtureTable, rec)
			if c.signed.Sig != nil {
				signed := messages.WireHead(c.signed)
				forged.Signed = &signed
			}
			publishJSON(t, anon, topics.ArchiveRecords("floor"), false, forged)
			h := ft.waitHeld(fmt.Sprintf("with alarm %d", i+1), func(h api.ArchiveHeld) bool { return h.Alarms == i+1 })
			if h.Seq != k || h.Hash != held.Hash || h.Alarm == nil || h.Alarm.Kind != string(c.kind) || h.Alarm.Seq != k+1 ||
				!strings.Contains(h.Alarm.Reason, fmt.Sprintf("records %d to %d", k+1, k+1)) {
				t.Fatalf("forgery %d: held %+v, alarm %+v; want held still %d and a %s alarm at record %d", i+1, h, h.Alarm, k, c.kind, k+1)
			}
			checkSigned(t, f, fixtureTable, h)
		}
		if !strings.Contains(log.String(), "table="+fixtureTable) || !strings.Contains(log.String(), fmt.Sprintf("seq=%d", k+1)) {
			t.Fatalf("the log does not name the table and the record:\n%s", log.String())
		}
		ft.send(k+1, f.last(), 20)
		h := ft.waitHeld("at the last record", heldAt(f.last()))
		if h.Alarms != 4 {
			t.Fatalf("held at the end %+v: want the 4 alarms", h)
		}
		r.stop()
		checkJournal(t, dsn, f)
		if n := count(t, dsn, `SELECT COUNT(*) FROM commands WHERE actor = 'MALLORY'`); n != 0 {
			t.Fatalf("%d commands by MALLORY in the archive", n)
		}
		if n := count(t, dsn, `SELECT COUNT(*) FROM quarantine WHERE table_id = $1 AND item = 'batch' AND seq = $2`, fixtureTable, int64(k+1)); n != 4 {
			t.Fatalf("%d batches kept apart at record %d, want 4", n, k+1)
		}
	})
}

// TestEveryByteOfANoteStored: a dealer's report whose note holds each control
// character (NUL among them), a byte that is not UTF-8 and a C1 character is stored as
// the table journalled it, on PostgreSQL as on SQLite: the table is archived to its last
// record, its commands rows written with the characters spelled out, and a second table
// shipping at the same time is archived to its last record too.
func TestEveryByteOfANoteStored(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		b := startBroker(t)
		var log logBuffer
		otherPub, otherKey, _ := ed25519.GenerateKey(nil)
		keys := keysOf(f)
		keys[otherTable] = []ed25519.PublicKey{otherPub}
		r := startArchive(t, b, dsn, keys, &log, nil)

		ext := f
		ext.records = append([]archive.Record(nil), f.records...)
		at := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
		var notes []string
		for c := rune(0); c < 0x20; c++ {
			notes = append(notes, fmt.Sprintf("note %c end", c))
		}
		notes = append(notes, "del \x7f end", "c1 \u0085 end")
		for _, n := range notes {
			ext.records = append(ext.records, appended(t, ext.records[len(ext.records)-1], round.Event{Kind: round.Report, At: at,
				Role: irregularities.Dealer, Actor: "D1", Irregularity: irregularities.ExposedCard, Detail: n}))
		}
		// A byte that is not UTF-8, as the table's JSON may hold it.
		last := ext.records[len(ext.records)-1]
		raw := []byte(`{"event":{"kind":"report","at":"2026-11-27T06:00:00Z","role":"dealer","actor":"D1","irregularity":"exposed_card","detail":"bad ` + "\xff\xfe" + ` end"}}`)
		ext.records = append(ext.records, archive.Record{Seq: last.Seq + 1, Hash: journal.ChainHash(last.Hash, last.Seq+1, raw), Data: raw})

		ft := newFakeTable(t, b, ext)
		second := newFakeTableOf(t, b, f, otherTable, "floor")
		second.f.key = otherKey
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); ft.send(1, ext.last(), 10) }()
		go func() { defer wg.Done(); second.send(1, f.last(), 7) }()
		wg.Wait()
		h := ft.waitHeld("the notes' table at its last record", heldAt(ext.last()))
		second.waitHeld("the second table at its last record", heldAt(f.last()))
		if h.Alarms != 0 {
			t.Fatalf("held %+v: alarms", h)
		}
		r.stop()
		db, err := archive.OpenReader(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, rec := range ext.records[len(f.records):] {
			var payload []byte
			if err := db.SQL().QueryRow(`SELECT payload FROM records WHERE table_id = $1 AND seq = $2`, fixtureTable, int64(rec.Seq)).Scan(&payload); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(payload, rec.Data) {
				t.Fatalf("record %d stored as %q, journalled as %q", rec.Seq, payload, rec.Data)
			}
		}
		var detail string
		if err := db.SQL().QueryRow(`SELECT detail FROM commands WHERE table_id = $1 AND seq = $2`, fixtureTable, int64(f.last()+1)).Scan(&detail); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(detail, `note \u0000 end`) {
			t.Fatalf("the NUL note's row reads %q: want the NUL written out", detail)
		}
		var n int
		if err := db.SQL().QueryRow(`SELECT COUNT(*) FROM commands WHERE table_id = $1 AND seq > $2`, fixtureTable, int64(f.last())).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != len(notes)+1 {
			t.Fatalf("%d commands rows of the notes, want %d", n, len(notes)+1)
		}
	})
}

// TestTwoArchivesOnOneBroker: two archives of one floor on one broker, the floor's
// (on either engine) and a standby on SQLite, each with its own id, user and keys
// file, each hold every record of the tables shipped to them, on their own topics:
// neither's held message moves the other's, no table sends anything twice, and the
// standby publishes no held message of a table its keys file does not name, even when
// that table's batches reach it.
func TestTwoArchivesOnOneBroker(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		b := startBroker(t)
		var floorLog, standbyLog logBuffer
		otherPub, otherKey, _ := ed25519.GenerateKey(nil)
		floorKeys := keysOf(f)
		floorKeys[otherTable] = []ed25519.PublicKey{otherPub}
		floor := startArchive(t, b, dsn, floorKeys, &floorLog, nil)
		standbyDSN := filepath.Join(t.TempDir(), "standby.db")
		standby := startArchive(t, b, standbyDSN, keysOf(f), &standbyLog, nil, func(o *Options) {
			o.Archive, o.Username = "standby", "archive-standby"
		})

		toFloor := newFakeTable(t, b, f)
		toStandby := newFakeTableOf(t, b, f, fixtureTable, "standby")
		other := newFakeTableOf(t, b, f, otherTable, "floor")
		other.f.key = otherKey
		otherAtStandby := newFakeTableOf(t, b, f, otherTable, "standby")
		otherAtStandby.f.key = otherKey

		half := f.last() / 2
		toFloor.send(1, f.last(), 16)
		toStandby.send(1, half, 16)
		other.send(1, f.last(), 16)
		otherAtStandby.send(1, 16, 16) // a table the standby does not know
		hf := toFloor.waitHeld("floor at the last record", heldAt(f.last()))
		hs := toStandby.waitHeld("standby at half", heldAt(half))
		if hf.Archive != "floor" || hs.Archive != "standby" {
			t.Fatalf("held messages of archives %q and %q", hf.Archive, hs.Archive)
		}
		checkSigned(t, f, fixtureTable, hf)
		checkSigned(t, f, fixtureTable, hs)
		toStandby.send(half+1, f.last(), 16)
		toStandby.waitHeld("standby at the last record", heldAt(f.last()))
		other.waitHeld("the other table at the floor's last record", heldAt(f.last()))
		// The floor's held message stood at the last record all along.
		toFloor.drainHeld()
		floor.stop()
		standby.stop()
		checkJournal(t, dsn, f)
		checkJournal(t, standbyDSN, f)
		for name, st := range map[string]Stats{"floor": floor.svc.Stats(), "standby": standby.svc.Stats()} {
			if st.Alarms != 0 || st.Malformed != 0 {
				t.Errorf("archive %s: stats %+v", name, st)
			}
		}
		if st := standby.svc.Stats(); st.Unknown != 1 {
			t.Errorf("standby: %d batches of unknown tables counted, want 1", st.Unknown)
		}
		if n := count(t, standbyDSN, `SELECT COUNT(*) FROM records WHERE table_id = $1`, otherTable); n != 0 {
			t.Errorf("the standby stored %d records of a table it does not know", n)
		}
		// No held message of the other table on the standby's topics: the retained ones
		// come with the subscription, before a marker published after it.
		got := make(chan api.ArchiveHeld, 100)
		reader := client(t, b, "standby-reader", "archive-standby", archivePassword)
		if tok := reader.Subscribe(api.ArchiveHeldFilter("standby"), 1, func(_ mqtt.Client, m mqtt.Message) {
			var h api.ArchiveHeld
			_ = json.Unmarshal(m.Payload(), &h)
			got <- h
		}); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
		markers, _ := api.NewTopics("marker")
		publishJSON(t, reader, markers.ArchiveHeld("standby"), false, api.ArchiveHeld{Table: "marker"})
		for seen := map[string]bool{}; ; {
			select {
			case h := <-got:
				if h.Table == "marker" {
					if !seen[fixtureTable] {
						t.Fatalf("no held message of %s on the standby's topic", fixtureTable)
					}
					return
				}
				if h.Table != fixtureTable {
					t.Fatalf("the standby published a held message of %s: %+v", h.Table, h)
				}
				seen[h.Table] = true
			case <-time.After(30 * time.Second):
				t.Fatal("the marker did not come back")
			}
		}
	})
}

// blockingStore holds every Ingest of one table until released, as a table whose
// batches are slow to store would.
type blockingStore struct {
	Store
	table   string
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (s *blockingStore) Ingest(ctx context.Context, table string, b archive.Batch) (archive.Result, error) {
	if table == s.table {
		s.once.Do(func() { close(s.entered) })
		select {
		case <-s.release:
		case <-ctx.Done():
			return archive.Result{}, ctx.Err()
		}
	}
	return s.Store.Ingest(ctx, table, b)
}

// countingStore is a Store that keeps the tables it counted a batch of
// (CountUnknown), with a signal after each count.
type countingStore struct {
	Store
	mu      sync.Mutex
	tables  map[string]bool
	counted chan struct{}
}

func (s *countingStore) CountUnknown(ctx context.Context, table string, bytes int) error {
	err := s.Store.CountUnknown(ctx, table, bytes)
	if err == nil {
		s.mu.Lock()
		s.tables[table] = true
		s.mu.Unlock()
	}
	select {
	case s.counted <- struct{}{}:
	default: // one waiting signal is enough: the waiter counts the tables
	}
	return err
}

// distinct is how many tables the store has counted a batch of.
func (s *countingStore) distinct() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tables)
}

// TestOneTableCannotStallAnother: while one table's batches cannot be stored, another
// table's are stored to its last record, through a broker that keeps at most 20
// messages in flight to the archive (Mosquitto's default) and more batches of the
// stuck table than that waiting; once released, the stuck table is stored whole too.
func TestOneTableCannotStallAnother(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	b := mosquittotest.Start(t, mosquittotest.Config{Persistence: true, Extra: "max_inflight_messages 20"})
	dsn := filepath.Join(t.TempDir(), "archive.db")
	var log logBuffer
	otherPub, otherKey, _ := ed25519.GenerateKey(nil)
	keys := keysOf(f)
	keys[otherTable] = []ed25519.PublicKey{otherPub}
	bs := &blockingStore{table: fixtureTable, entered: make(chan struct{}), release: make(chan struct{})}
	r := startArchive(t, b, dsn, keys, &log, func(s Store) Store { bs.Store = s; return bs },
		func(o *Options) { o.Username, o.Password = "", "" })
	stuck := newFakeTable(t, b, f)
	stuck.send(1, 60, 2) // 30 batches, the first held in the store
	<-bs.entered
	other := newFakeTableOf(t, b, f, otherTable, "floor")
	other.f.key = otherKey
	other.send(1, f.last(), 4)
	other.waitHeld("the other table at its last record", heldAt(f.last()))
	close(bs.release)
	stuck.send(61, f.last(), 25)
	stuck.waitHeld("the stuck table at its last record", heldAt(f.last()))
	r.stop()
	checkJournal(t, dsn, f)
}

// TestUnknownTablesCounted: batches of 200 table ids the keys file does not name are
// counted, one row an id, and nothing else: no record, no quarantine row, no worker and
// no held message of any of them, and the tables of the keys file are archived as usual.
func TestUnknownTablesCounted(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	b := startOpenBroker(t)
	dsn := filepath.Join(t.TempDir(), "archive.db")
	var log logBuffer
	cs := &countingStore{tables: map[string]bool{}, counted: make(chan struct{}, 1)}
	r := startArchive(t, b, dsn, keysOf(f), &log, func(s Store) Store { cs.Store = s; return cs },
		func(o *Options) { o.Username, o.Password = "", "" })
	anon := client(t, b, "anonymous", "", "")
	const ids = 200
	for i := range ids {
		id := fmt.Sprintf("fake-%03d", i)
		batch := batchOf(id, f.records[0])
		topics, _ := api.NewTopics(id)
		publishJSON(t, anon, topics.ArchiveRecords("floor"), false, batch)
	}
	ft := newFakeTable(t, b, f)
	ft.send(1, f.last(), 50)
	ft.waitHeld("at the last record", heldAt(f.last()))
	// The counting runs apart from the batches stored: wait until the store has counted
	// a batch of every id.
	guard := time.After(30 * time.Second) // a guard against a hang, not a measure
	for cs.distinct() < ids {
		select {
		case <-cs.counted:
		case <-guard:
			t.Fatalf("stats %+v, %d ids counted by the store; want %d", r.svc.Stats(), cs.distinct(), ids)
		}
	}
	if st, n := r.svc.Stats(), count(t, dsn, `SELECT COUNT(*) FROM unknown_tables`); st.Unknown < ids || n < ids {
		t.Fatalf("stats %+v, %d unknown tables counted; want %d", st, n, ids)
	}
	if n := count(t, dsn, `SELECT COUNT(*) FROM quarantine`); n != 0 {
		t.Fatalf("%d quarantine rows", n)
	}
	if n := count(t, dsn, `SELECT COUNT(*) FROM records WHERE table_id <> $1`, fixtureTable); n != 0 {
		t.Fatalf("%d records of unknown tables", n)
	}
	r.svc.mu.Lock()
	workers := len(r.svc.tables)
	r.svc.mu.Unlock()
	if workers != 1 {
		t.Fatalf("%d workers, want the known table's alone", workers)
	}
	if n := strings.Count(log.String(), "a table the keys file does not name"); n == 0 || n > 10 {
		t.Fatalf("%d log lines of unknown tables: want a few, thinned", n)
	}
	r.stop()
	checkJournal(t, dsn, f)
}
