package service

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"go.uber.org/goleak"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/internal/pgtest"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/messages"
)

// fixtureTable is the table of ../testdata/table: a journal the table itself wrote.
const fixtureTable = "pit3-bac07"

var (
	pg       *pgtest.Server // the PostgreSQL cluster of the package's tests, nil without one
	pgReason string
)

func TestMain(m *testing.M) {
	s, ok, err := pgtest.StartMain()
	switch {
	case ok:
		pg = s
	case os.Getenv(pgtest.RequireEnv) == "1":
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		os.Exit(1)
	default:
		pgReason = fmt.Sprint(err)
	}
	code := m.Run()
	if pg != nil {
		if err := pg.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			code = 1
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// onEngines runs f on a new SQLite archive and on a new PostgreSQL one.
func onEngines(t *testing.T, f func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, filepath.Join(t.TempDir(), "archive.db")) })
	t.Run("postgres", func(t *testing.T) {
		if pg == nil {
			t.Skipf("no PostgreSQL: %s (apt-get install postgresql; %s=1 fails instead)", pgReason, pgtest.RequireEnv)
		}
		f(t, pg.NewDatabase(t))
	})
}

// fixture is the table's journal.
type fixture struct {
	records []archive.Record
	heads   []journal.Checkpoint
	key     ed25519.PrivateKey
	pub     ed25519.PublicKey
	seg     []byte // the journal's segment file
	headsB  []byte // its heads file
}

func loadFixture(t testing.TB) fixture {
	t.Helper()
	dir := filepath.Join("..", "testdata", "table")
	j, _, err := journal.Open(filepath.Join(dir, "journal"), journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var f fixture
	for r, err := range j.Records(1) {
		if err != nil {
			t.Fatal(err)
		}
		f.records = append(f.records, archive.Record{Seq: r.Seq, Hash: r.Hash, Data: r.Data})
	}
	if f.heads, err = j.Checkpoints(); err != nil {
		t.Fatal(err)
	}
	pubText, err := os.ReadFile(filepath.Join(dir, "public.key"))
	if err != nil {
		t.Fatal(err)
	}
	if f.pub, err = journal.ParsePublicKey(string(pubText)); err != nil {
		t.Fatal(err)
	}
	keyPEM, err := os.ReadFile(filepath.Join(dir, "test-only.key"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(keyPEM)
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	f.key = k.(ed25519.PrivateKey)
	if f.seg, err = os.ReadFile(filepath.Join(dir, "journal", "00000000000000000001.seg")); err != nil {
		t.Fatal(err)
	}
	if f.headsB, err = os.ReadFile(filepath.Join(dir, "journal", "heads")); err != nil {
		t.Fatal(err)
	}
	if len(f.records) < 200 || len(f.heads) < 40 {
		t.Fatalf("testdata: %d records, %d heads", len(f.records), len(f.heads))
	}
	return f
}

func (f fixture) last() uint64 { return f.records[len(f.records)-1].Seq }

// The broker's users in the tests, with the shipped ACL: the archives floor and
// standby, the fixture's table and a second table, each logged in as its id.
const (
	archivePassword = "archive-pw"
	tablePassword   = "table-pw"
	otherTable      = "pit3-bac08"
)

func startBroker(t *testing.T) *mosquittotest.Broker {
	acl, err := api.MosquittoACL(api.ACLOptions{Archives: []string{"floor", "standby"}})
	if err != nil {
		t.Fatal(err)
	}
	return mosquittotest.Start(t, mosquittotest.Config{
		Users: map[string]string{"archive-floor": archivePassword, "archive-standby": archivePassword,
			fixtureTable: tablePassword, otherTable: tablePassword},
		ACL:         string(acl),
		Persistence: true,
	})
}

// startOpenBroker is a broker that lets anyone publish and read anything.
func startOpenBroker(t *testing.T) *mosquittotest.Broker {
	return mosquittotest.Start(t, mosquittotest.Config{Persistence: true})
}

// logBuffer is a log the service writes to and the test reads.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// running is an archive service started by a test.
type running struct {
	svc    *Service
	cancel context.CancelFunc
	done   chan error
	db     *archive.DB
}

// startArchive opens the database, and runs the archive's service on the broker until
// stop (or the test's end).
func startArchive(t *testing.T, b *mosquittotest.Broker, dsn string, keys archive.Keys, log *logBuffer, wrap func(Store) Store, mods ...func(*Options)) *running {
	t.Helper()
	db, err := archive.OpenDB(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var store Store = archive.New(db, keys, archive.Options{Logger: logger})
	if wrap != nil {
		store = wrap(store)
	}
	opt := Options{Broker: b.URL(), Username: "archive-floor", Password: archivePassword,
		Logger: logger, RetryMax: 200 * time.Millisecond}
	for _, m := range mods {
		m(&opt)
	}
	svc, err := New(store, opt)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{svc: svc, cancel: cancel, done: make(chan error, 1), db: db}
	go func() { r.done <- svc.Run(ctx) }()
	t.Cleanup(r.stop)
	guard := time.NewTimer(30 * time.Second) // a guard against a hang, not a measure
	defer guard.Stop()
	select {
	case <-svc.Ready():
	case <-guard.C:
		t.Fatalf("the archive did not connect:\n%s", log.String())
	}
	return r
}

// stop cancels the service's context and waits for Run to return.
func (r *running) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	<-r.done
	r.db.Close()
	r.cancel = nil
}

// fakeTable is a table shipping its journal: a paho client logged in as the table's
// id that publishes batches, signed with the table's key, and reads the archive's
// held message.
type fakeTable struct {
	t       testing.TB
	pc      mqtt.Client
	f       fixture
	id      string // the table's id: fixtureTable unless another
	archive string // the archive shipped to: floor unless another
	held    chan api.ArchiveHeld
}

func newFakeTable(t *testing.T, b *mosquittotest.Broker, f fixture) *fakeTable {
	return newFakeTableOf(t, b, f, fixtureTable, "floor")
}

// newFakeTableOf is a fake table of id shipping f's journal to archive archiveID.
func newFakeTableOf(t *testing.T, b *mosquittotest.Broker, f fixture, id, archiveID string) *fakeTable {
	t.Helper()
	ft := &fakeTable{t: t, f: f, id: id, archive: archiveID, held: make(chan api.ArchiveHeld, 100000)}
	topics, _ := api.NewTopics(id)
	opts := mqtt.NewClientOptions().AddBroker(b.URL()).SetClientID("fake-" + id + "-" + archiveID).
		SetUsername(id).SetPassword(tablePassword).SetAutoReconnect(true).
		SetMaxReconnectInterval(200 * time.Millisecond).SetConnectRetry(true).SetConnectRetryInterval(100 * time.Millisecond).
		SetOnConnectHandler(func(c mqtt.Client) {
			c.Subscribe(topics.ArchiveHeld(archiveID), 1, func(_ mqtt.Client, m mqtt.Message) {
				var h api.ArchiveHeld
				if err := json.Unmarshal(m.Payload(), &h); err != nil {
					t.Errorf("held message %s: %v", m.Payload(), err)
					return
				}
				ft.held <- h
			})
		})
	ft.pc = mqtt.NewClient(opts)
	if tok := ft.pc.Connect(); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("the fake table does not connect: %v", tok.Error())
	}
	t.Cleanup(func() { ft.pc.Disconnect(100) })
	return ft
}

// publish sends payload on the table's records topic and waits for the broker.
func (ft *fakeTable) publish(payload []byte) {
	ft.t.Helper()
	topics, _ := api.NewTopics(ft.id)
	tok := ft.pc.Publish(topics.ArchiveRecords(ft.archive), 1, false, payload)
	if !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		ft.t.Fatalf("publish: %v", tok.Error())
	}
}

// batch is the batch of records from..to (by number) with the heads of their records,
// signed as the table signs it: the head of its last record, naming the table.
func (ft *fakeTable) batch(from, to uint64) api.ArchiveBatch {
	b := api.ArchiveBatch{Schema: api.Schema, Table: ft.id, Archive: ft.archive, Written: ft.f.last()}
	for _, r := range ft.f.records {
		if r.Seq >= from && r.Seq <= to {
			b.Records = append(b.Records, api.ArchiveRecord{Seq: r.Seq, Hash: api.Hash(r.Hash), Data: r.Data})
		}
	}
	for _, c := range ft.f.heads {
		if c.Seq >= from && c.Seq <= to {
			b.Heads = append(b.Heads, messages.WireHead(journal.Sign(ft.f.key, c.Seq, c.Hash))) // the table's own key
		}
	}
	ft.sign(&b)
	return b
}

// sign signs b's last record with the fixture's key, naming the table.
func (ft *fakeTable) sign(b *api.ArchiveBatch) {
	ft.t.Helper()
	last := b.Records[len(b.Records)-1]
	c, err := journal.SignTable(ft.f.key, ft.id, last.Seq, journal.Hash(last.Hash))
	if err != nil {
		ft.t.Fatal(err)
	}
	signed := messages.WireHead(c)
	b.Signed = &signed
}

// send publishes records from..to in batches of n.
func (ft *fakeTable) send(from, to uint64, n uint64) {
	ft.t.Helper()
	for s := from; s <= to; s += n {
		ft.sendBatch(ft.batch(s, min(s+n-1, to)))
	}
}

func (ft *fakeTable) sendBatch(b api.ArchiveBatch) {
	ft.t.Helper()
	payload, err := json.Marshal(b)
	if err != nil {
		ft.t.Fatal(err)
	}
	ft.publish(payload)
}

// waitHeld reads the held messages until one satisfies ok.
func (ft *fakeTable) waitHeld(what string, ok func(api.ArchiveHeld) bool) api.ArchiveHeld {
	ft.t.Helper()
	guard := time.NewTimer(60 * time.Second) // a guard against a hang, not a measure
	defer guard.Stop()
	for {
		select {
		case h := <-ft.held:
			if ok(h) {
				return h
			}
		case <-guard.C:
			ft.t.Fatalf("no held message %s", what)
		}
	}
}

// drainHeld drops the held messages received so far.
func (ft *fakeTable) drainHeld() {
	for {
		select {
		case <-ft.held:
		default:
			return
		}
	}
}

func heldAt(seq uint64) func(api.ArchiveHeld) bool {
	return func(h api.ArchiveHeld) bool { return h.Seq == seq }
}

// checkSigned checks that h carries the table's own head of the record it says is
// held, naming the table, signed with the fixture's key.
func checkSigned(t *testing.T, f fixture, table string, h api.ArchiveHeld) {
	t.Helper()
	if h.Seq == 0 {
		return
	}
	if h.Signed == nil || h.Signed.Table != table || h.Signed.Seq != h.Seq || h.Signed.Hash != h.Hash || !messages.HeadOf(*h.Signed).Verify(f.pub) {
		t.Fatalf("held message %+v: want the table's signed head of record %d (%+v)", h, h.Seq, h.Signed)
	}
}

// checkJournal checks that the database holds the table's journal whole, each record
// once and in order: the journal exported from it is the table's, byte for byte.
func checkJournal(t *testing.T, dsn string, f fixture) {
	t.Helper()
	ctx := context.Background()
	db, err := archive.OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, lo, hi int64
	if err := db.SQL().QueryRow(`SELECT COUNT(*), MIN(seq), MAX(seq) FROM records WHERE table_id = $1`, fixtureTable).Scan(&n, &lo, &hi); err != nil {
		t.Fatal(err)
	}
	if n != int64(len(f.records)) || lo != 1 || hi != int64(f.last()) {
		t.Fatalf("the archive holds %d records, %d to %d; want %d, 1 to %d", n, lo, hi, len(f.records), f.last())
	}
	dir := filepath.Join(t.TempDir(), "exported")
	if _, err := archive.Export(ctx, db, fixtureTable, dir); err != nil {
		t.Fatal(err)
	}
	seg, err := os.ReadFile(filepath.Join(dir, "00000000000000000001.seg"))
	if err != nil {
		t.Fatal(err)
	}
	heads, err := os.ReadFile(filepath.Join(dir, "heads"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(seg, f.seg) || !bytes.Equal(heads, f.headsB) {
		t.Fatalf("the journal exported from the archive is not the table's (segment equal %v, heads equal %v)",
			bytes.Equal(seg, f.seg), bytes.Equal(heads, f.headsB))
	}
}

func keysOf(f fixture) archive.Keys { return archive.Keys{fixtureTable: {f.pub}} }

// TestEveryRecordOnce: a table's journal sent in batches through Mosquitto is stored
// whole, each record once and in order, and the archive's retained held message says
// so: the last record, its hash, the table's written count, when it stored it, no alarm.
func TestEveryRecordOnce(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		b := startBroker(t)
		var log logBuffer
		r := startArchive(t, b, dsn, keysOf(f), &log, nil)
		ft := newFakeTable(t, b, f)
		ft.send(1, f.last(), 17)
		h := ft.waitHeld("at the last record", heldAt(f.last()))
		if h.Table != fixtureTable || h.Archive != "floor" || journal.Hash(h.Hash) != f.records[len(f.records)-1].Hash || h.Written != f.last() ||
			h.At.IsZero() || h.Alarms != 0 || h.Alarm != nil || h.Schema != api.Schema {
			t.Fatalf("held message %+v", h)
		}
		checkSigned(t, f, fixtureTable, h)
		st := r.svc.Stats()
		if st.Stored != int64(len(f.records)) || st.Malformed != 0 || st.Alarms != 0 {
			t.Fatalf("stats %+v", st)
		}
		r.stop()
		checkJournal(t, dsn, f)
	})
}

// TestArchiveRestartedMidStream: the archive stopped while batches are on their way,
// and batches sent while it is away, are taken when it starts again: the broker keeps
// its session and delivers what it had not acknowledged. The new archive tells the
// table how far it holds it, and the table's sending again from there stores nothing
// twice.
func TestArchiveRestartedMidStream(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		b := startBroker(t)
		var log logBuffer
		r := startArchive(t, b, dsn, keysOf(f), &log, nil)
		ft := newFakeTable(t, b, f)
		third := f.last() / 3
		ft.send(1, third, 5)
		ft.waitHeld("past the first batch", func(h api.ArchiveHeld) bool { return h.Seq >= 5 })
		ft.send(third+1, 2*third, 5) // on its way as the archive stops
		r.stop()
		ft.send(2*third+1, f.last(), 5) // while the archive is away
		ft.drainHeld()
		startArchive(t, b, dsn, keysOf(f), &log, nil)
		// The broker delivers what the first archive left: the whole journal, without
		// the table sending anything again.
		ft.waitHeld("at the last record after the restart", heldAt(f.last()))
		// The table, told where the archive is, sends again from a little before it.
		ft.send(f.last()-30, f.last(), 7)
		ft.waitHeld("after the sending again", heldAt(f.last()))
		checkJournal(t, dsn, f)
	})
}

// TestArchiveRestartedTableResends: an archive stopped mid-stream announces, when it
// starts again, how far it holds the table; the table sends again from the record
// after, and the journal is whole.
func TestArchiveRestartedTableResends(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		b := startBroker(t)
		var log logBuffer
		r := startArchive(t, b, dsn, keysOf(f), &log, nil)
		ft := newFakeTable(t, b, f)
		half := f.last() / 2
		ft.send(1, half, 9)
		ft.waitHeld("at half", heldAt(half))
		r.stop()
		// The archive's database lost nothing; the table sent nothing more. The new
		// archive's held message, published as it connects, starts the table again.
		ft.drainHeld()
		startArchive(t, b, dsn, keysOf(f), &log, nil)
		h := ft.waitHeld("from the new archive", func(api.ArchiveHeld) bool { return true })
		if h.Seq != half {
			t.Fatalf("the new archive says it holds record %d, want %d", h.Seq, half)
		}
		ft.send(h.Seq+1, f.last(), 11)
		ft.waitHeld("at the last record", heldAt(f.last()))
		checkJournal(t, dsn, f)
	})
}

// TestBrokerRestarted: Mosquitto stopped and started again mid-stream; the archive
// connects again by itself, the table sends again from the retained held message, and
// the journal is whole.
func TestBrokerRestarted(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		b := startBroker(t)
		var log logBuffer
		startArchive(t, b, dsn, keysOf(f), &log, nil)
		ft := newFakeTable(t, b, f)
		half := f.last() / 2
		ft.send(1, half, 13)
		ft.waitHeld("past the first batch", func(h api.ArchiveHeld) bool { return h.Seq >= 13 })
		b.Restart()
		// The table, connected again, reads the retained held message and sends from it.
		h := ft.waitHeld("after the broker's restart", func(api.ArchiveHeld) bool { return true })
		ft.send(h.Seq+1, f.last(), 13)
		ft.waitHeld("at the last record", heldAt(f.last()))
		checkJournal(t, dsn, f)
		if !strings.Contains(log.String(), "MQTT connection lost") {
			t.Fatalf("the archive did not see the broker go:\n%s", log.String())
		}
	})
}

// TestAlarmsInHeld: a forged record (its payload changed, its hash and the table's
// signature replayed) and a rolled-back journal the table's key signed are refused,
// raised in the held message (count and latest, naming the place) and in the log, and
// not stored; the true records are taken after them.
func TestAlarmsInHeld(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		b := startBroker(t)
		var log logBuffer
		startArchive(t, b, dsn, keysOf(f), &log, nil)
		ft := newFakeTable(t, b, f)
		k := f.last() / 2
		ft.send(1, k, 20)
		ft.waitHeld("at k", heldAt(k))

		forged := ft.batch(k+1, k+1)
		forged.Records[0].Data = append(bytes.Clone(forged.Records[0].Data), ' ')
		forged.Heads = nil
		ft.sendBatch(forged)
		h := ft.waitHeld("with the forged record's alarm", func(h api.ArchiveHeld) bool { return h.Alarms == 1 })
		if h.Seq != k || h.Alarm == nil || h.Alarm.Kind != string(archive.NotChained) || h.Alarm.Item != "batch" ||
			h.Alarm.Seq != k+1 || h.Alarm.At.IsZero() || !strings.Contains(h.Alarm.Reason, "chain hash") {
			t.Fatalf("held after a forged record: %+v alarm %+v", h, h.Alarm)
		}
		checkSigned(t, f, fixtureTable, h)

		// A rolled-back journal: records k-5 to k-3 written again, otherwise, chained on
		// their own from record k-6, and signed with the table's key.
		rb := api.ArchiveBatch{Schema: api.Schema, Table: fixtureTable, Archive: "floor", Written: k - 3}
		prev := f.records[k-7].Hash // record k-6's
		for s := k - 5; s <= k-3; s++ {
			data := []byte(fmt.Sprintf(`{"event":{"kind":"power-restored","at":"2026-11-27T05:00:0%dZ"}}`, s-(k-5)))
			hh := journal.ChainHash(prev, s, data)
			rb.Records = append(rb.Records, api.ArchiveRecord{Seq: s, Hash: api.Hash(hh), Data: data})
			prev = hh
		}
		ft.sign(&rb)
		ft.sendBatch(rb)
		h = ft.waitHeld("with the rollback's alarm", func(h api.ArchiveHeld) bool { return h.Alarms == 2 })
		if h.Seq != k || h.Alarm == nil || h.Alarm.Kind != string(archive.Rollback) || h.Alarm.Seq != k-5 {
			t.Fatalf("held after a rolled-back batch: %+v alarm %+v", h, h.Alarm)
		}
		for _, want := range []string{"alarm=not-chained", fmt.Sprintf("seq=%d", k+1), "alarm=rollback", fmt.Sprintf("seq=%d", k-5), "table=" + fixtureTable} {
			if !strings.Contains(log.String(), want) {
				t.Fatalf("the log does not say %q:\n%s", want, log.String())
			}
		}
		ft.send(k+1, f.last(), 20)
		h = ft.waitHeld("at the last record", heldAt(f.last()))
		if h.Alarms != 2 {
			t.Fatalf("held at the end: %+v", h)
		}
		checkJournal(t, dsn, f)
	})
}

// TestMalformedDropped: bad JSON, another table's batch on this table's topic, a field
// the batch does not have and a schema this archive does not read are each logged with
// the table and the topic, counted and dropped; the batches around them are stored.
func TestMalformedDropped(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		b := startBroker(t)
		var log logBuffer
		r := startArchive(t, b, dsn, keysOf(f), &log, nil)
		ft := newFakeTable(t, b, f)
		third := f.last() / 3
		ft.send(1, third, 25)
		ft.publish([]byte(`{"schema":2,"table":"pit3-bac07","records":[{"seq":`))
		other := ft.batch(third+1, third+3)
		other.Table = "pit3-bac08"
		ft.sendBatch(other)
		ft.publish([]byte(`{"schema":2,"table":"pit3-bac07","records":[],"extra":1}`))
		future := ft.batch(third+1, third+3)
		future.Schema = api.Schema + 1
		ft.sendBatch(future)
		elsewhere := ft.batch(third+1, third+3)
		elsewhere.Archive = "standby"
		ft.sendBatch(elsewhere)
		gap := ft.batch(third+1, third+3)
		gap.Records = append(gap.Records[:1], gap.Records[2])
		ft.sendBatch(gap)
		ft.send(third+1, f.last(), 25)
		ft.waitHeld("at the last record", heldAt(f.last()))
		if st := r.svc.Stats(); st.Malformed != 6 || st.Alarms != 0 || st.Stored != int64(len(f.records)) {
			t.Fatalf("stats %+v: want 6 malformed, no alarm, every record stored", st)
		}
		topics, _ := api.NewTopics(fixtureTable)
		n := 0
		for _, line := range strings.Split(log.String(), "\n") {
			if strings.Contains(line, `msg="a malformed batch: dropped"`) && strings.Contains(line, " table="+fixtureTable+" ") &&
				strings.Contains(line, " topic="+topics.ArchiveRecords("floor")+" ") {
				n++
			}
		}
		if n == 0 {
			t.Fatalf("no malformed batch logged with table and topic:\n%s", log.String())
		}
		for _, want := range []string{"unexpected EOF", `the batch is table \"pit3-bac08\"'s`, `unknown field \"extra\"`, fmt.Sprintf("schema %d", api.Schema+1),
			`the batch is for archive \"standby\"`, "with no gap"} {
			if !strings.Contains(log.String(), want) {
				t.Fatalf("the log does not say %q:\n%s", want, log.String())
			}
		}
		r.stop()
		checkJournal(t, dsn, f)
	})
}

// failingStore fails Ingest the first n times, as a database that is away does.
type failingStore struct {
	Store
	mu sync.Mutex
	n  int
}

func (s *failingStore) Ingest(ctx context.Context, table string, b archive.Batch) (archive.Result, error) {
	s.mu.Lock()
	fail := s.n > 0
	s.n--
	s.mu.Unlock()
	if fail {
		return archive.Result{}, fmt.Errorf("the database is away")
	}
	return s.Store.Ingest(ctx, table, b)
}

// TestDatabaseErrorRetried: a batch the database fails is not dropped: the archive
// tries it again until it is stored, and the journal is whole without the table
// sending anything again.
func TestDatabaseErrorRetried(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	b := startBroker(t)
	var log logBuffer
	dsn := filepath.Join(t.TempDir(), "archive.db")
	r := startArchive(t, b, dsn, keysOf(f), &log, func(s Store) Store { return &failingStore{Store: s, n: 3} })
	ft := newFakeTable(t, b, f)
	ft.send(1, f.last(), 30)
	ft.waitHeld("at the last record", heldAt(f.last()))
	if st := r.svc.Stats(); st.Retries != 3 {
		t.Fatalf("stats %+v: want 3 retries", st)
	}
	if !strings.Contains(log.String(), "the database failed a batch: trying again") {
		t.Fatalf("the log does not say the database failed:\n%s", log.String())
	}
	r.stop()
	checkJournal(t, dsn, f)
}

// gateStore holds the first Ingest until release is closed, and tells each batch of an
// unknown table counted and each inbox row removed apart.
type gateStore struct {
	Store
	once             sync.Once
	entered, release chan struct{}
	counted          chan string
	removed          chan int64
}

func (s *gateStore) Ingest(ctx context.Context, table string, b archive.Batch) (archive.Result, error) {
	s.once.Do(func() {
		close(s.entered)
		<-s.release
	})
	return s.Store.Ingest(ctx, table, b)
}

func (s *gateStore) CountUnknown(ctx context.Context, table string, n int) error {
	err := s.Store.CountUnknown(ctx, table, n)
	s.counted <- table
	return err
}

func (s *gateStore) Done(ctx context.Context, id int64) error {
	err := s.Store.Done(ctx, id)
	s.removed <- id
	return err
}

// TestKeysChangedWhileRunning: a batch received while its table was in the keys file,
// and stored after the table left it, is counted as an unknown table's batch, not as a
// malformed one, and leaves the inbox; nothing of it is stored. The table put back is
// stored from its next batch.
func TestKeysChangedWhileRunning(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	b := startBroker(t)
	var log logBuffer
	dsn := filepath.Join(t.TempDir(), "archive.db")
	var a *archive.Archive
	gate := &gateStore{entered: make(chan struct{}), release: make(chan struct{}), counted: make(chan string, 10), removed: make(chan int64, 10)}
	r := startArchive(t, b, dsn, keysOf(f), &log, func(s Store) Store {
		a = s.(*archive.Archive)
		gate.Store = s
		return gate
	})
	ft := newFakeTable(t, b, f)
	ft.send(1, 10, 10)
	guard := time.NewTimer(60 * time.Second) // a guard against a hang, not a measure
	defer guard.Stop()
	wait := func(what string, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-guard.C:
			t.Fatalf("%s:\n%s", what, log.String())
		}
	}
	wait("the batch was not taken to be stored", gate.entered)
	if added, removed := a.SetKeys(archive.Keys{}); len(added) != 0 || fmt.Sprint(removed) != "[pit3-bac07]" {
		t.Fatalf("SetKeys: added %v, removed %v", added, removed)
	}
	close(gate.release)
	select {
	case table := <-gate.counted:
		if table != fixtureTable {
			t.Fatalf("counted a batch of %q", table)
		}
	case <-guard.C:
		t.Fatalf("the batch of the table taken away was not counted:\n%s", log.String())
	}
	select {
	case <-gate.removed:
	case <-guard.C:
		t.Fatalf("the batch of the table taken away was not removed from the inbox:\n%s", log.String())
	}
	if st := r.svc.Stats(); st.Unknown != 1 || st.Malformed != 0 || st.Batches != 0 || st.Stored != 0 {
		t.Fatalf("stats %+v: want 1 batch of an unknown table and nothing else", st)
	}
	if n := count(t, dsn, `SELECT COUNT(*) FROM inbox`); n != 0 {
		t.Fatalf("%d batches left in the inbox", n)
	}
	if n := count(t, dsn, `SELECT batches FROM unknown_tables WHERE table_id = $1`, fixtureTable); n != 1 {
		t.Fatalf("%d batches of %s counted, want 1", n, fixtureTable)
	}
	a.SetKeys(keysOf(f))
	ft.send(1, 10, 10)
	ft.waitHeld("at record 10", heldAt(10))
	r.stop()
}

// TestArchiveTopic: the table's id and the archive's are taken from the topic, on a
// table's broker and, with central, under casino/<site>/<pit>/.
func TestArchiveTopic(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		topic           string
		central         bool
		prefix          string
		table, id, part string
		ok              bool
	}{
		{"tablectl/v1/pit3-bac07/archive/floor/records", false, "", "pit3-bac07", "floor", api.ArchiveRecordsPart, true},
		{"tablectl/v1/pit3-bac07/archive/standby/held", false, "", "pit3-bac07", "standby", api.ArchiveHeldPart, true},
		{"casino/macau/pit3/tablectl/v1/pit3-bac07/archive/floor/records", true, "casino/macau/pit3/", "pit3-bac07", "floor", api.ArchiveRecordsPart, true},
		{"casino/macau/pit3/tablectl/v1/pit3-bac07/archive/floor/records", false, "", "", "", "", false},
		{"tablectl/v1/pit3-bac07/archive/records", false, "", "", "", "", false},
		{"tablectl/v1/pit3-bac07/archive/Floor/records", false, "", "", "", "", false},
		{"tablectl/v1/pit3-bac07/result", false, "", "", "", "", false},
		{"casino//pit3/tablectl/v1/t/archive/floor/records", true, "", "", "", "", false},
		{"tablectl/v1/a/b/archive/floor/records", false, "", "", "", "", false},
	} {
		p, at, ok := archiveTopic(c.topic, c.central)
		if p != c.prefix || at.Table != c.table || at.Archive != c.id || at.Part != c.part || ok != c.ok {
			t.Errorf("archiveTopic(%q, %v) = %q %+v %v; want %q %q %q %q %v", c.topic, c.central, p, at, ok, c.prefix, c.table, c.id, c.part, c.ok)
		}
	}
}

// TestCentralStaleHeldReplaced: on a central broker, a table's batches under
// casino/<site>/<pit>/ are answered there. An archive started again finds there a held
// message that disagrees with its database (a database restored from a backup, say)
// and replaces it with what it holds, so the table sends again from there.
func TestCentralStaleHeldReplaced(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	b := mosquittotest.Start(t, mosquittotest.Config{Persistence: true})
	dsn := filepath.Join(t.TempDir(), "archive.db")
	var log logBuffer
	central := func(o *Options) { o.Central, o.Username, o.Password = true, "", "" }
	r := startArchive(t, b, dsn, keysOf(f), &log, nil, central)

	const prefix = "casino/macau/pit3/"
	topics, _ := api.NewTopics(fixtureTable)
	held := make(chan api.ArchiveHeld, 1000)
	pc := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL()).SetClientID("central-table"))
	if tok := pc.Connect(); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	defer pc.Disconnect(100)
	if tok := pc.Subscribe(prefix+topics.ArchiveHeld("floor"), 1, func(_ mqtt.Client, m mqtt.Message) {
		var h api.ArchiveHeld
		if json.Unmarshal(m.Payload(), &h) == nil {
			held <- h
		}
	}); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	ft := &fakeTable{t: t, f: f, id: fixtureTable, archive: "floor", held: held}
	publish := func(topic string, retained bool, v any) {
		t.Helper()
		payload, _ := json.Marshal(v)
		if tok := pc.Publish(topic, 1, retained, payload); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
			t.Fatalf("publish: %v", tok.Error())
		}
	}
	k := uint64(40)
	publish(prefix+topics.ArchiveRecords("floor"), false, ft.batch(1, k))
	ft.waitHeld("at k under the casino prefix", heldAt(k))
	r.stop()

	// The broker's retained message says more than the database holds.
	publish(prefix+topics.ArchiveHeld("floor"), true, api.ArchiveHeld{Schema: api.Schema, Table: fixtureTable, Archive: "floor", Seq: 999999})
	ft.waitHeld("stale", heldAt(999999))
	startArchive(t, b, dsn, keysOf(f), &log, nil, central)
	h := ft.waitHeld("from the new archive under the casino prefix", func(api.ArchiveHeld) bool { return true })
	if h.Seq != k || journal.Hash(h.Hash) != f.records[k-1].Hash {
		t.Fatalf("the new archive's held message under %s: %+v, want record %d", prefix, h, k)
	}
	publish(prefix+topics.ArchiveRecords("floor"), false, ft.batch(k+1, 2*k))
	ft.waitHeld("at 2k", heldAt(2*k))
}
