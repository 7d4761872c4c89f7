package daemon

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/metrics"
)

// published is one batch the shipper published, and the channel its acknowledgement
// goes to.
type published struct {
	batch api.ArchiveBatch
	res   chan error
}

// first and last are the batch's first and last records.
func (p published) first() uint64 { return p.batch.Records[0].Seq }
func (p published) last() uint64  { return p.batch.Records[len(p.batch.Records)-1].Seq }
func (p published) ack()          { p.res <- nil }

// shipPub is the shipper's publisher double: it hands each publish to the test, which
// acknowledges it (or not).
type shipPub struct {
	t   *testing.T
	got chan published
}

func (f *shipPub) Publish(topic string, b []byte, retained bool) <-chan error {
	res := make(chan error, 1)
	var batch api.ArchiveBatch
	if err := json.Unmarshal(b, &batch); err != nil || topic != "tablectl/v1/T7/archive/floor/records" || retained {
		f.t.Errorf("publish to %s (retained %v): %v", topic, retained, err)
	}
	f.got <- published{batch, res}
	return res
}

// manual is a clock moved by hand.
type manual struct{ clock }

func (m *manual) Now() time.Time { return m.now() }

// syncBuf is a log that the test reads while the shipper or the daemon writes.
type syncBuf struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed by the next write; nil until Changed asks
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written != nil {
		close(s.written)
		s.written = nil
	}
	return s.b.Write(p)
}

func (s *syncBuf) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// Changed returns a channel closed by the next write, as display.Recorder's Changed.
func (s *syncBuf) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written == nil {
		s.written = make(chan struct{})
	}
	return s.written
}

// shipping is a shipper running on a journal of the test's.
type shipping struct {
	t     *testing.T
	j     *journal.Journal
	key   ed25519.PrivateKey
	s     *Shipper
	pub   *shipPub
	clock *manual
	log   *syncBuf
	heldN int
	stop  context.CancelFunc
	done  chan struct{}
}

// startShipping opens a journal holding n records and runs a shipper on it with the
// window given.
func startShipping(t *testing.T, n int, window uint64) *shipping {
	return startShippingStall(t, n, window, 40*time.Millisecond)
}

// startShippingStall is startShipping with the stall time given.
func startShippingStall(t *testing.T, n int, window uint64, stall time.Duration) *shipping {
	t.Helper()
	j, _, err := journal.Open(t.TempDir(), journal.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	_, key, _ := ed25519.GenerateKey(nil)
	sh := &shipping{t: t, j: j, key: key, pub: &shipPub{t: t, got: make(chan published, 64)},
		clock: &manual{clock{t: time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)}}, log: &syncBuf{}, done: make(chan struct{})}
	sh.appendRecords(n)
	sh.s = NewShipper(ShipOptions{Table: "T7", Key: key, Journal: j, Window: window, Stall: stall, Clock: sh.clock,
		Logger: slog.New(slog.NewTextHandler(sh.log, nil))})
	sh.s.probe = make(chan chan<- int)
	ctx, cancel := context.WithCancel(context.Background())
	sh.stop = cancel
	go func() {
		defer close(sh.done)
		sh.s.Run(ctx, sh.pub)
	}()
	t.Cleanup(func() {
		sh.stop()
		<-sh.done
		j.Close()
	})
	return sh
}

func (sh *shipping) appendRecords(n int) {
	sh.t.Helper()
	for range n {
		seq := sh.j.LastSeq() + 1
		if _, err := sh.j.Append(fmt.Appendf(nil, `{"record":%d}`, seq)); err != nil {
			sh.t.Fatal(err)
		}
	}
	if sh.s != nil {
		sh.s.Written(sh.j.LastSeq())
	}
}

func (sh *shipping) sign() journal.Checkpoint {
	sh.t.Helper()
	c, err := sh.j.Checkpoint(sh.key)
	if err != nil {
		sh.t.Fatal(err)
	}
	return c
}

func (sh *shipping) hash(seq uint64) journal.Hash {
	sh.t.Helper()
	h, err := sh.j.HashAt(seq)
	if err != nil {
		sh.t.Fatal(err)
	}
	return h
}

// held sends the archive's held message of record seq, with the journal's hash of it,
// and waits until the shipper took it.
func (sh *shipping) held(seq uint64) {
	sh.t.Helper()
	var h journal.Hash
	if seq > 0 {
		h = sh.hash(seq)
	}
	sh.heldAs(seq, h)
	sh.settle() // a turn with the held message waiting is not the last
	if lag := sh.s.Lag(); lag.Held != seq || !sh.heldTaken() {
		sh.t.Fatalf("the shipper did not take held %d: lag %+v", seq, lag)
	}
}

// heldTaken reports whether the last held message was taken.
func (sh *shipping) heldTaken() bool {
	sh.s.mu.Lock()
	defer sh.s.mu.Unlock()
	return sh.s.heldMsg == nil
}

// heldAs sends a held message of record seq with hash h, stamped later than the one
// before.
func (sh *shipping) heldAs(seq uint64, h journal.Hash) {
	sh.heldN++
	sh.heldAt(seq, h, time.Date(2026, 11, 27, 0, 0, 0, sh.heldN, time.UTC))
}

func (sh *shipping) heldAt(seq uint64, h journal.Hash, at time.Time) {
	sh.s.Held(heldMessage(sh.t, sh.key, "T7", "floor", seq, h, at))
}

// heldMessage is archive archiveID's held message of record seq with hash h, as the
// archive writes it: with the table's head of that record, naming the table, signed with
// key.
func heldMessage(t *testing.T, key ed25519.PrivateKey, table, archiveID string, seq uint64, h journal.Hash, at time.Time) []byte {
	t.Helper()
	m := api.ArchiveHeld{Schema: api.Schema, Table: table, Archive: archiveID, Seq: seq, Hash: api.Hash(h), At: at}
	if seq > 0 {
		c, err := journal.SignTable(key, table, seq, h)
		if err != nil {
			t.Fatal(err)
		}
		signed := messages.WireHead(c)
		m.Signed = &signed
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// next waits for the next publish and checks that it holds records first to last,
// each with the journal's hash and payload, and Written the journal's last record.
func (sh *shipping) next(first, last uint64) published {
	sh.t.Helper()
	select {
	case p := <-sh.pub.got:
		if len(p.batch.Records) == 0 || p.first() != first || p.last() != last {
			sh.t.Fatalf("published records %s, want %d to %d", span(p), first, last)
		}
		for i, r := range p.batch.Records {
			if r.Seq != first+uint64(i) || journal.Hash(r.Hash) != sh.hash(r.Seq) || string(r.Data) != fmt.Sprintf(`{"record":%d}`, r.Seq) {
				sh.t.Fatalf("record %d of the batch: %+v", i, r)
			}
		}
		if p.batch.Written != sh.j.LastSeq() || p.batch.Table != "T7" || p.batch.Archive != "floor" || p.batch.Schema != api.Schema {
			sh.t.Fatalf("batch written %d table %q archive %q schema %d, want %d T7 floor %d",
				p.batch.Written, p.batch.Table, p.batch.Archive, p.batch.Schema, sh.j.LastSeq(), api.Schema)
		}
		if s := p.batch.Signed; s == nil || s.Table != "T7" || s.Seq != last || journal.Hash(s.Hash) != sh.hash(last) || !messages.HeadOf(*s).Verify(sh.key.Public().(ed25519.PublicKey)) {
			sh.t.Fatalf("batch %s: signed head %+v: want T7's head of record %d, signed with the table's key", span(p), s, last)
		}
		return p
	case <-time.After(10 * time.Second):
		sh.t.Fatalf("nothing published, want records %d to %d", first, last)
		return published{}
	}
}

// settle asks the shipper's loop for turns until one leaves no input waiting: whatever
// it would publish by then is published.
func (sh *shipping) settle() {
	sh.t.Helper()
	settleShipper(sh.t, sh.s)
}

// settleShipper asks s's loop for turns until one leaves no input waiting: every record
// written by then is in its lag, and whatever it would publish is published. s.probe
// must be set before s runs.
func settleShipper(t *testing.T, s *Shipper) {
	t.Helper()
	guard := time.After(10 * time.Second) // only bounds a failure
	for {
		answer := make(chan int, 1)
		select {
		case s.probe <- answer:
		case <-guard:
			t.Fatal("the shipper's loop took no turn")
		}
		if waiting := <-answer; waiting == 0 {
			return
		}
	}
}

func span(p published) string {
	if len(p.batch.Records) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d to %d", p.first(), p.last())
}

// none checks that nothing was published once the shipper's loop took every input
// waiting for it and checked the stall.
func (sh *shipping) none(why string) {
	sh.t.Helper()
	sh.settle()
	select {
	case p := <-sh.pub.got:
		sh.t.Fatalf("%s: published records %s", why, span(p))
	default:
	}
}

// TestShipperSendsFromHeldWithinTheWindow: once connected and told what the archive
// holds, the shipper sends from the record after it in batches of at most
// MaxArchiveBatch, one at a time, each after the last one's acknowledgement, and no more
// than the window past what is held.
func TestShipperSendsFromHeldWithinTheWindow(t *testing.T) {
	t.Parallel()
	sh := startShipping(t, 1000, 2*api.MaxArchiveBatch)
	sh.s.Connected()
	sh.none("connected, before the archive's held message")
	sh.held(100)
	p := sh.next(101, 356)
	sh.none("before the acknowledgement")
	p.ack()
	sh.next(357, 612).ack()
	sh.none("the window is full")
	sh.held(356)
	sh.next(613, 868).ack()
	sh.held(868)
	sh.next(869, 1000).ack()
	sh.none("everything sent")
	if lag := sh.s.Lag(); lag.Held != 868 || lag.Behind != 132 {
		t.Fatalf("lag %+v, want held 868, behind 132", lag)
	}
}

// TestShipperSendsAgainFromHeld: on every connect, and at once when the archive's held
// message goes back, the shipper sends again from the record after what it holds.
func TestShipperSendsAgainFromHeld(t *testing.T) {
	t.Parallel()
	sh := startShipping(t, 600, 4*api.MaxArchiveBatch)
	sh.s.Connected()
	sh.held(0)
	sh.next(1, 256).ack()
	sh.held(256)
	sh.next(257, 512).ack()
	sh.next(513, 600).ack()
	sh.held(512)
	sh.s.Connected()
	sh.next(513, 600).ack()
	sh.held(600)
	sh.none("everything held")
	sh.held(300) // the archive lost records
	sh.next(301, 556).ack()
	sh.next(557, 600) // not acknowledged: the connection is lost
	sh.s.Connected()  // and made again
	sh.next(301, 556).ack()
	if !strings.Contains(sh.log.String(), "holds less than it said") {
		t.Errorf("no word of the archive holding less:\n%s", sh.log)
	}
}

// TestShipperTakesAnOlderHeldMessageLate: a held message below the one taken, and
// stamped no later, may be an older one delivered out of order: the shipper takes it
// only when no later one came within the stall time.
func TestShipperTakesAnOlderHeldMessageLate(t *testing.T) {
	t.Parallel()
	sh := startShipping(t, 100, 0)
	sh.s.Connected()
	sh.held(0)
	sh.next(1, 100).ack()
	sh.held(100)
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sh.heldAt(60, sh.hash(60), old)
	sh.none("an older message")
	sh.held(100) // a later one: the older one is dropped
	sh.clock.add(time.Minute)
	sh.none("the older message was followed by a later one")
	if lag := sh.s.Lag(); lag.Held != 100 {
		t.Fatalf("lag %+v, want held 100", lag)
	}
	sh.heldAt(60, sh.hash(60), old)
	sh.none("an older message")
	sh.clock.add(40 * time.Millisecond)
	sh.next(61, 100).ack()
	if lag := sh.s.Lag(); lag.Held != 60 || lag.Behind != 40 {
		t.Fatalf("lag %+v, want held 60, 40 behind", lag)
	}
}

// TestShipperSendsAgainWhenTheArchiveStalls: when the archive's held message stays
// below what was sent for the stall time, the shipper sends again from it, then waits
// twice as long before the next time.
func TestShipperSendsAgainWhenTheArchiveStalls(t *testing.T) {
	t.Parallel()
	sh := startShipping(t, 300, 4*api.MaxArchiveBatch)
	sh.s.Connected()
	sh.held(10)
	sh.next(11, 266).ack()
	sh.next(267, 300).ack()
	sh.none("the archive has not stalled yet")
	sh.clock.add(40 * time.Millisecond)
	sh.next(11, 266).ack()
	sh.next(267, 300).ack()
	sh.clock.add(40 * time.Millisecond)
	sh.none("the second wait is twice as long")
	sh.clock.add(40 * time.Millisecond)
	sh.next(11, 266).ack()
	sh.next(267, 300).ack()
	sh.held(300)
	sh.clock.add(time.Minute)
	sh.none("everything held")
}

// TestShipperWithNoHeldMessage: with no held message at all (an archive that never saw
// the table), the shipper sends from the first record once the stall time has passed
// since it connected.
func TestShipperWithNoHeldMessage(t *testing.T) {
	t.Parallel()
	sh := startShipping(t, 20, 0)
	sh.s.Connected()
	sh.none("connected a moment ago")
	sh.clock.add(40 * time.Millisecond)
	sh.next(1, 20).ack()
}

// TestShipperRefusesAnotherHistory: a held message ahead of the journal, or naming a
// hash that is not the journal's, says the archive holds another history: the shipper
// logs both and sends nothing until the archive agrees.
func TestShipperRefusesAnotherHistory(t *testing.T) {
	t.Parallel()
	sh := startShipping(t, 50, 0)
	sh.s.Connected()
	sh.heldAs(51+1000, journal.Hash{})
	waitLog(t, sh.log, "the archive holds record 1051, the table's journal ends at record 50")
	var other journal.Hash
	other[0] = 0xAB
	sh.heldAs(20, other)
	waitLog(t, sh.log, fmt.Sprintf("record 20: the archive holds hash %s, the table's journal has %s", other, sh.hash(20)))
	sh.clock.add(time.Minute) // no stall, no first sending either
	sh.none("the archive holds another history")
	sh.held(30)
	sh.next(31, 50).ack()
	waitLog(t, sh.log, "agrees with the journal again")
}

// waitLog waits until the log says want.
func waitLog(t *testing.T, log *syncBuf, want string) {
	t.Helper()
	said := false
	defer func() {
		if !said {
			t.Logf("the log:\n%s", log)
		}
	}()
	waitFor(t, fmt.Sprintf("the log to say %q", want), log.Changed, func() bool { return strings.Contains(log.String(), want) })
	said = true
}

// TestShipperWakesOnAppendAndFollowsTheLag: a record written wakes the shipper, which
// sends it; the lag says how many records the archive does not hold and since when;
// the archive is late once a record it does not hold was written the stall time ago.
func TestShipperWakesOnAppendAndFollowsTheLag(t *testing.T) {
	t.Parallel()
	sh := startShippingStall(t, 10, 0, time.Hour)
	if lag := sh.s.Lag(); lag.Behind != 10 || lag.Since.IsZero() || sh.s.Late() {
		t.Fatalf("lag at start %+v, late %v: want 10 behind, not late", lag, sh.s.Late())
	}
	sh.s.Connected()
	sh.held(10)
	sh.none("everything held")
	if lag := sh.s.Lag(); lag != (api.ArchiveLag{Held: 10}) {
		t.Fatalf("lag %+v, want held 10, none behind", lag)
	}
	// Less than the stall time: the archive last moved at held 10, and a tick (on the
	// real clock, at any moment) would send again from it once the stall time had passed.
	sh.clock.add(time.Minute)
	at := sh.clock.now()
	sh.appendRecords(3)
	sh.next(11, 13).ack() // the turn that sent them noted them first
	if lag := sh.s.Lag(); lag.Held != 10 || lag.Behind != 3 || !lag.Since.Equal(at) || sh.s.Late() {
		t.Fatalf("lag %+v, late %v: want held 10, 3 behind since %v, not late", lag, sh.s.Late(), at)
	}
	sh.clock.add(15 * time.Second)
	sh.appendRecords(2)
	sh.next(14, 15).ack()
	sh.held(13)
	if lag := sh.s.Lag(); lag.Held != 13 || lag.Behind != 2 || !lag.Since.Equal(at.Add(15*time.Second)) {
		t.Fatalf("lag %+v, want held 13, 2 behind since %v", lag, at.Add(15*time.Second))
	}
	sh.clock.add(time.Hour - 5*time.Second)
	sh.none("not late yet")
	if sh.s.Late() {
		t.Fatal("late before the stall time")
	}
	sh.clock.add(5 * time.Second)
	sh.settle() // its turn checks the stall, as a tick does
	if !sh.s.Late() {
		t.Fatal("not late at the stall time")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sh.s.CaughtUp(ctx); err == nil {
		t.Fatal("CaughtUp returned nil while 2 records are not held")
	}
	sh.held(15)
	if lag := sh.s.Lag(); lag != (api.ArchiveLag{Held: 15}) || sh.s.Late() {
		t.Fatalf("lag %+v, late %v: want held 15, none behind", lag, sh.s.Late())
	}
	if err := sh.s.CaughtUp(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// waitFor waits until ok holds, looking again each time the channel changed gives is
// closed: at each message or reply a display.Recorder records (its Changed), or each
// line a syncBuf takes. The minute only bounds a failure.
func waitFor(t *testing.T, what string, changed func() <-chan struct{}, ok func() bool) {
	t.Helper()
	guard := time.NewTimer(time.Minute)
	defer guard.Stop()
	for {
		c := changed() // before ok: a change after it closes c
		if ok() {
			return
		}
		select {
		case <-c:
		case <-guard.C:
			t.Fatalf("waited for %s", what)
		}
	}
}

// TestShipperSendsHeadsWithTheirRecords: each signed head goes once, with the first
// batch whose last record it covers; one signed after its records went goes with the
// last record again; sending again from held sends the heads from held on again.
func TestShipperSendsHeadsWithTheirRecords(t *testing.T) {
	t.Parallel()
	sh := startShipping(t, 50, 0)
	h50 := sh.sign()
	sh.appendRecords(70)
	h120 := sh.sign()
	sh.appendRecords(180)
	h300 := sh.sign()
	sh.s.Connected()
	sh.held(0)
	heads := func(p published, want ...journal.Checkpoint) {
		t.Helper()
		if len(p.batch.Heads) != len(want) {
			t.Fatalf("batch %s: %d heads, want %d", span(p), len(p.batch.Heads), len(want))
		}
		for i, c := range want {
			if got := p.batch.Heads[i]; got.Seq != c.Seq || journal.Hash(got.Hash) != c.Hash || !bytes.Equal(got.Sig, c.Sig) {
				t.Fatalf("batch %s: head %d is %+v, want %+v", span(p), i, got, c)
			}
		}
	}
	p := sh.next(1, 256)
	heads(p, h50, h120)
	p.ack()
	p = sh.next(257, 300)
	heads(p, h300)
	p.ack()
	sh.appendRecords(10)
	p = sh.next(301, 310)
	heads(p)
	p.ack()
	h310 := sh.sign()
	sh.s.Signed()
	p = sh.next(310, 310)
	heads(p, h310)
	p.ack()
	sh.none("every head sent")
	sh.held(120)
	sh.s.Connected()
	p = sh.next(121, 310)
	heads(p, h120, h300, h310)
	p.ack()
}

// TestShipperStopsWithItsContext: Run returns when its context is done, with a publish
// unacknowledged (goleak, in TestMain, checks nothing is left behind).
func TestShipperStopsWithItsContext(t *testing.T) {
	t.Parallel()
	sh := startShipping(t, 5, 0)
	sh.s.Connected()
	sh.held(0)
	sh.next(1, 5)
	sh.stop()
	select {
	case <-sh.done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
}

// archiveFields are the archive fields of the status messages published, in order ("-" for
// a status without one).
func archiveFields(t *testing.T, rec []display.Message) []string {
	t.Helper()
	var out []string
	for _, m := range rec {
		if m.Topic != "tablectl/v1/T7/status" {
			continue
		}
		var s api.Status
		if err := json.Unmarshal(m.Payload, &s); err != nil {
			t.Fatal(err)
		}
		if s.Archive == nil {
			out = append(out, "-")
		} else {
			out = append(out, fmt.Sprintf("held %d behind %d since %v", s.Archive.Held, s.Archive.Behind, !s.Archive.Since.IsZero()))
		}
	}
	return out
}

// TestDaemonWithoutShipping: a table that does not ship publishes nothing on the
// archive's topics and no archive field in its status.
func TestDaemonWithoutShipping(t *testing.T) {
	t.Parallel()
	r := start(t, t.TempDir())
	// The shuffler's report first: cards with no set wait out the report's wait.
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.f.cards(t, "9H 5C KS KD")
	r.settle(t)
	r.close(t)
	for _, m := range r.rec.Published() {
		if strings.Contains(m.Topic, "/archive/") {
			t.Errorf("published on %s", m.Topic)
		}
	}
	for _, s := range archiveFields(t, r.rec.Published()) {
		if s != "-" {
			t.Errorf("a status with an archive field: %s", s)
		}
	}
}

// TestDaemonShipsAndSaysTheLag: a table that ships sends its records as it writes them,
// and publishes its status again when the archive is late and when it holds every
// record.
func TestDaemonShipsAndSaysTheLag(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.TempDir())
	cfg.Ship, cfg.ShipStall = true, 3*time.Second // the clock goes on a second at each reading
	_, cfg.SigningKey, _ = ed25519.GenerateKey(nil)
	cfg.Metrics = metrics.New(nil)
	r := startWith(t, cfg, nil)
	r.d.ArchiveHeld("floor", []byte(`{"schema":2,"table":"T7","archive":"floor","seq":0}`))
	r.f.cards(t, "9H 5C KS KD")
	r.settle(t)
	seq, hash := r.d.j.Head()
	var sent uint64
	waitFor(t, fmt.Sprintf("the records up to %d sent", seq), r.rec.Changed, func() bool {
		sent = 0
		for _, m := range r.rec.Published() {
			if m.Topic != "tablectl/v1/T7/archive/floor/records" {
				continue
			}
			var b api.ArchiveBatch
			if err := json.Unmarshal(m.Payload, &b); err != nil || m.Retained {
				t.Fatalf("batch %s: %v", m.Payload, err)
			}
			for _, rc := range b.Records {
				if rc.Seq > sent+1 {
					t.Fatalf("record %d after %d", rc.Seq, sent)
				}
				sent = max(sent, rc.Seq) // sent again when the archive stalls
			}
		}
		return sent >= seq
	})
	if got, want := scrape(t, cfg.Metrics), fmt.Sprintf("tablectl_archive_behind_records %d\n", seq); !strings.Contains(got, want) {
		t.Errorf("metrics lack %q", want)
	}
	holdAllAndStop(t, r, seq, hash)
	if got := scrape(t, cfg.Metrics); !strings.Contains(got, "tablectl_archive_behind_records 0\n") {
		t.Errorf("metrics say the archive is behind:\n%s", got)
	}
	st := archiveFields(t, r.rec.Published())
	want := fmt.Sprintf("held %d behind 0 since false", seq)
	if len(st) < 2 || st[len(st)-1] != want {
		t.Fatalf("statuses %q, want the last %q", st, want)
	}
	behind := 0
	for _, s := range st {
		if strings.HasPrefix(s, "held 0 behind ") && strings.HasSuffix(s, "since true") {
			behind++
		}
		if s == "-" {
			t.Errorf("a shipping table's status without the archive field")
		}
	}
	if behind == 0 {
		t.Errorf("no status said the archive was behind: %q", st)
	}
	if len(st) > 6 {
		t.Errorf("%d statuses: published at every record? %q", len(st), st)
	}
}

// TestDaemonArchivedSaysWhatTheArchiveHolds: an archive that keeps up never makes the
// table late, so no status follows its held point on the way; once the table has waited
// for the archive (Archived, as a run does before it stops), its status says the archive
// holds every record, not what it held when a status was last published.
func TestDaemonArchivedSaysWhatTheArchiveHolds(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.TempDir())
	cfg.Ship, cfg.ShipStall = true, 24*time.Hour // never late
	_, cfg.SigningKey, _ = ed25519.GenerateKey(nil)
	r := startWith(t, cfg, nil)
	first, firstHash := r.d.j.Head()
	archiveHolds(t, r, first, firstHash)
	r.f.cards(t, "9H 5C KS KD")
	r.settle(t)
	seq, hash := r.d.j.Head()
	if seq <= first {
		t.Fatalf("no record written after record %d", first)
	}
	holdAllAndStop(t, r, seq, hash)
	st := archiveFields(t, r.rec.Published())
	if want := fmt.Sprintf("held %d behind 0 since false", seq); len(st) == 0 || st[len(st)-1] != want {
		t.Fatalf("statuses %q, want the last %q", st, want)
	}
}

// archiveHolds hands the table the archive's held message: it holds up to record seq,
// whose chain hash is hash.
func archiveHolds(t *testing.T, r *running, seq uint64, hash journal.Hash) {
	r.d.ArchiveHeld(api.DefaultArchiveID, heldMessage(t, r.d.key, "T7", "floor", seq, hash, time.Time{}))
}

// holdAllAndStop tells the table the archive holds up to record seq, the journal's last
// (archiveHolds), waits for the table to know it (Daemon.Archived), lets the table carry
// out what follows, and stops it.
func holdAllAndStop(t *testing.T, r *running, seq uint64, hash journal.Hash) {
	t.Helper()
	archiveHolds(t, r, seq, hash)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.d.Archived(ctx); err != nil {
		t.Fatal(err)
	}
	r.settle(t)
	r.close(t)
}

// TestShipperBelievesOnlyItsOwnSignature: a held message is believed only when it is of
// the table and the archive shipped to, and carries the table's own head of the record
// it says is held, naming the table, signed with its key. Anyone who may publish on the
// held topic can write one; a message that fails any of these moves nothing and stops
// nothing: the table goes on from the last it believed.
func TestShipperBelievesOnlyItsOwnSignature(t *testing.T) {
	t.Parallel()
	sh := startShipping(t, 50, 0)
	sh.s.Connected()
	sh.held(10)
	sh.next(11, 50).ack()
	_, other, _ := ed25519.GenerateKey(nil)
	h50 := sh.hash(50)
	sign := func(key ed25519.PrivateKey, table string, seq uint64, h journal.Hash) *api.Checkpoint {
		c, err := journal.SignTable(key, table, seq, h)
		if err != nil {
			t.Fatal(err)
		}
		w := messages.WireHead(c)
		return &w
	}
	base := api.ArchiveHeld{Schema: api.Schema, Table: "T7", Archive: "floor", Seq: 50, Hash: api.Hash(h50)}
	unnamed := messages.WireHead(journal.Sign(sh.key, 50, h50))
	for _, tc := range []struct {
		name   string
		edit   func(m *api.ArchiveHeld)
		reason string
	}{
		{"no signed head", func(m *api.ArchiveHeld) {}, "carries no head the table signed of it"},
		{"another key", func(m *api.ArchiveHeld) { m.Signed = sign(other, "T7", 50, h50) }, "is not signed with the table's key"},
		{"another table's head", func(m *api.ArchiveHeld) { m.Signed = sign(sh.key, "T8", 50, h50) }, "its signed head is table T8's record 50"},
		{"the head of another record", func(m *api.ArchiveHeld) { m.Signed = sign(sh.key, "T7", 40, sh.hash(40)) }, "its signed head is table T7's record 40"},
		{"an unnamed head", func(m *api.ArchiveHeld) { m.Signed = &unnamed }, "its head of record 50 names no table"},
		{"another archive's", func(m *api.ArchiveHeld) { m.Archive, m.Signed = "standby", sign(sh.key, "T7", 50, h50) }, "it is archive standby's"},
		{"another table's", func(m *api.ArchiveHeld) { m.Table = "T8" }, "it is table T8's"},
	} {
		m := base
		tc.edit(&m)
		b, _ := json.Marshal(m)
		sh.s.Held(b)
		waitLog(t, sh.log, tc.reason)
		sh.none(tc.name + ": nothing to send")
		if lag := sh.s.Lag(); lag.Held != 10 || lag.Behind != 40 {
			t.Fatalf("%s: lag %+v, want held 10 as believed, 40 behind", tc.name, lag)
		}
	}
	// The stall goes on from what was believed: the table sends again from record 11.
	sh.clock.add(40 * time.Millisecond)
	sh.next(11, 50).ack()
	sh.held(50)
	sh.clock.add(time.Minute)
	sh.none("everything held")
}

// TestDaemonShipsToEachArchive: a table that ships to two archives sends its journal to
// each on its own topic, from what each holds: the archive that holds everything gets
// nothing again when the other holds nothing; the status says the lag of the one
// furthest behind, by name; a held message of an archive the table does not ship to
// changes nothing; Archived waits for both.
func TestDaemonShipsToEachArchive(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.TempDir())
	cfg.Ship, cfg.ShipTo, cfg.ShipStall = true, []string{"floor", "standby"}, 24*time.Hour
	_, cfg.SigningKey, _ = ed25519.GenerateKey(nil)
	r := startWith(t, cfg, func(d *Daemon) {
		for _, sh := range d.ship.ships {
			sh.probe = make(chan chan<- int)
		}
	})
	first, firstHash := r.d.j.Head()
	for _, id := range []string{"floor", "standby"} {
		r.d.ArchiveHeld(id, []byte(`{"schema":2,"table":"T7","archive":"`+id+`","seq":0}`))
	}
	r.f.cards(t, "9H 5C KS KD")
	r.settle(t)
	seq, hash := r.d.j.Head()
	sent := func(id string) uint64 {
		var last uint64
		for _, m := range r.rec.Published() {
			if m.Topic != "tablectl/v1/T7/archive/"+id+"/records" {
				continue
			}
			var b api.ArchiveBatch
			if err := json.Unmarshal(m.Payload, &b); err != nil || b.Archive != id {
				t.Fatalf("batch on %s: archive %q, %v", m.Topic, b.Archive, err)
			}
			last = max(last, b.Records[len(b.Records)-1].Seq)
		}
		return last
	}
	waitFor(t, "every record sent to both archives", r.rec.Changed, func() bool { return sent("floor") == seq && sent("standby") == seq })
	r.d.ArchiveHeld("floor", heldMessage(t, cfg.SigningKey, "T7", "floor", seq, hash, time.Time{}))
	r.d.ArchiveHeld("nowhere", heldMessage(t, cfg.SigningKey, "T7", "nowhere", first, firstHash, time.Time{}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a failure
	if err := r.d.ship.byID["floor"].CaughtUp(ctx); err != nil {
		t.Fatalf("archive floor: %v", err)
	}
	cancel()
	// Standby's shipper may have sent the last record before taking the wake of its
	// write: its lag is as of its last turn.
	settleShipper(t, r.d.ship.byID["standby"])
	if lag, _ := r.d.ship.lag(); lag.Archive != "standby" || lag.Behind != seq || lag.Held != 0 {
		t.Fatalf("lag %+v once floor holds every record: want standby's, %d behind, holding none", lag, seq)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	if err := r.d.Archived(ctx); err == nil {
		t.Fatal("Archived returned while archive standby holds nothing")
	}
	cancel()
	r.d.ArchiveHeld("standby", heldMessage(t, cfg.SigningKey, "T7", "standby", seq, hash, time.Time{}))
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.d.Archived(ctx); err != nil {
		t.Fatal(err)
	}
	r.settle(t)
	r.close(t)
	st := archiveFields(t, r.rec.Published())
	if want := fmt.Sprintf("held %d behind 0 since false", seq); len(st) == 0 || st[len(st)-1] != want {
		t.Fatalf("statuses %q, want the last %q", st, want)
	}
}

// TestDaemonShipsOnlySigned: a table with no signing key does not start shipping:
// every batch the archive stores is signed.
func TestDaemonShipsOnlySigned(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.TempDir())
	cfg.Ship = true
	if _, err := Open(cfg); err == nil || !strings.Contains(err.Error(), "no signing key") {
		t.Fatalf("Open without a key: %v, want it refused", err)
	}
}
