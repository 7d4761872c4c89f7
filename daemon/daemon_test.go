package daemon

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func testConfig(t *testing.T, dir string) Config {
	rc := round.DefaultConfig(baccarat.MustLookup("rws", baccarat.Options{}))
	rc.Burn = round.BurnNone
	rc.SimultaneousWindow = 0
	rc.CloseBetsOnFirstCard = true
	clock := time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC)
	return Config{Table: "T7", Round: rc, AutoConfirm: true, AutoCloseInsurance: true, JournalDir: dir,
		Roads: roadmap.Settings{}, Logger: quiet, Clock: &ticking{at: clock}}
}

// ticking is a clock that goes on a second at each reading.
type ticking struct {
	mu sync.Mutex
	at time.Time
}

func (c *ticking) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(time.Second)
	return c.at
}

// feed is a shoe and shuffler whose events the test writes.
type feed struct {
	shoe, shuffler chan device.Event
	seq            uint16
}

func newFeed() *feed {
	return &feed{shoe: make(chan device.Event, 64), shuffler: make(chan device.Event, 8)}
}

func (f *feed) cards(t *testing.T, s string) {
	t.Helper()
	cs, err := baccarat.ParseCards(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		f.seq++
		f.shoe <- device.Event{Kind: device.CardDrawn, Card: c, Seq: f.seq, HasSeq: true,
			Time: time.Date(2026, 11, 22, 22, 0, int(f.seq), 0, time.UTC)}
	}
}

// running is a daemon serving a Recorder in the background.
type running struct {
	d    *Daemon
	rec  *display.Recorder
	f    *feed
	stop context.CancelFunc
	done chan error
}

func start(t *testing.T, dir string) *running {
	t.Helper()
	return startWith(t, testConfig(t, dir), nil)
}

// startWith starts a daemon on cfg; prepare, when set, runs before it serves.
func startWith(t *testing.T, cfg Config, prepare func(*Daemon)) *running {
	t.Helper()
	return startFeed(t, cfg, newFeed(), prepare)
}

// startFeed is startWith with the devices' events written on f.
func startFeed(t *testing.T, cfg Config, f *feed, prepare func(*Daemon)) *running {
	t.Helper()
	d, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := display.NewRecorder("T7", 0, d.OnConnect)
	if err != nil {
		t.Fatal(err)
	}
	r := &running{d: d, rec: rec, f: f, done: make(chan error, 1)}
	d.out.attach(rec)
	rec.Reconnect() // as a Client's first connect
	if prepare != nil {
		prepare(d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	go func() { r.done <- d.Serve(ctx, rec, r.f.shoe, r.f.shuffler) }()
	return r
}

// settle waits until the daemon has taken every input sent and the broker acknowledged
// every message.
func (r *running) settle(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := r.d.Drained(ctx); err != nil {
		t.Fatalf("the daemon did not drain: %v", err)
	}
}

// idle waits until the daemon's loop has taken every input sent.
func (r *running) idle(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := r.d.Idle(ctx); err != nil {
		t.Fatalf("the daemon's loop did not go idle: %v", err)
	}
}

func (r *running) close(t *testing.T) {
	t.Helper()
	r.stop()
	if err := <-r.done; err != nil {
		t.Fatal(err)
	}
	r.rec.Close()
	if err := r.d.Close(); err != nil {
		t.Fatal(err)
	}
}

type envelope struct {
	api.Envelope
	Slot   string `json:"slot"`
	Card   string `json:"card"`
	Winner string `json:"winner"`
	Void   bool   `json:"void"`
	Event  string `json:"event"`
	Kind   string `json:"kind"`
}

// eventMessages are the card, result and irregularity messages published, deduplicated
// by sequence number as a subscriber does; it fails on a gap.
func eventMessages(t *testing.T, rec *display.Recorder) []envelope {
	t.Helper()
	seen := map[uint64]bool{}
	var out []envelope
	for _, m := range rec.Published() {
		if strings.HasSuffix(m.Topic, "/state") || strings.HasSuffix(m.Topic, "/roadmap") || strings.HasSuffix(m.Topic, "/status") {
			continue
		}
		var e envelope
		if err := json.Unmarshal(m.Payload, &e); err != nil {
			t.Fatalf("%s: %v", m.Topic, err)
		}
		if seen[e.Seq] {
			continue
		}
		if e.Seq != uint64(len(out))+1 {
			t.Fatalf("message seq %d after %d: a gap or a reordering (%s)", e.Seq, len(out), m.Payload)
		}
		seen[e.Seq] = true
		out = append(out, e)
	}
	return out
}

// irregularityEvents lists the irregularity messages published, "raised wrong_hand",
// comma-separated.
func irregularityEvents(t *testing.T, rec *display.Recorder) string {
	t.Helper()
	var kinds []string
	for _, m := range eventMessages(t, rec) {
		if m.Event != "" {
			kinds = append(kinds, m.Event+" "+m.Kind)
		}
	}
	return strings.Join(kinds, ",")
}

func TestPublishesRounds(t *testing.T) {
	t.Parallel()
	r := start(t, t.TempDir())
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.settle(t)
	r.f.cards(t, "9H 5C KS KD") // Player natural 9
	r.f.cards(t, "2H 3D 4C 5D") // Banker 8 natural
	r.settle(t)
	msgs := eventMessages(t, r.rec)
	var got []string
	for _, m := range msgs {
		switch {
		case m.Slot != "":
			got = append(got, m.Slot+" "+m.Card)
		case m.Winner != "":
			got = append(got, "result "+m.Winner)
		}
		if m.Table != "T7" || m.Shoe != 1 || m.Schema != api.Schema {
			t.Errorf("envelope %+v", m.Envelope)
		}
	}
	want := "P1 9H,B1 5C,P2 KS,B2 KD,result player,P1 2H,B1 3D,P2 4C,B2 5D,result banker"
	if strings.Join(got, ",") != want {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, ","), want)
	}
	// The retained state and roadmap follow the play.
	var state api.State
	var road struct {
		BigRoad []json.RawMessage `json:"big_road"`
	}
	for _, m := range r.rec.Published() {
		switch {
		case strings.HasSuffix(m.Topic, "/state"):
			json.Unmarshal(m.Payload, &state)
		case strings.HasSuffix(m.Topic, "/roadmap"):
			json.Unmarshal(m.Payload, &road)
		}
	}
	if state.Round != 3 || !state.BettingOpen || state.Rules != "rws" || state.CardsRemaining != 416-8 {
		t.Errorf("state %+v", state)
	}
	if len(road.BigRoad) != 2 {
		t.Errorf("big road has %d cells, want 2", len(road.BigRoad))
	}
	r.close(t)
}

// TestHeartbeatComesFromTheTableLoop checks that the heartbeat (which feeds the service
// manager's watchdog) stops while the table's loop is stuck and comes back after it.
func TestHeartbeatComesFromTheTableLoop(t *testing.T) {
	t.Parallel()
	beats := make(chan struct{}, 1000)
	cfg := testConfig(t, t.TempDir())
	cfg.Watchdog = watchdog(beats)
	cfg.HeartbeatEvery = 2 * time.Millisecond
	acked, release := make(chan uint16, 1), make(chan struct{})
	r := startWith(t, cfg, func(d *Daemon) {
		// The acknowledgement runs on the table's loop: blocking it holds the loop.
		d.SetShoe(holdingAcker{acked, release})
	})
	for range 3 {
		<-beats
	}
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 1, Decks: 8, Cards: 416}
	r.f.shoe <- device.Event{Kind: device.CardDrawn, Card: baccarat.MustParseCard("9H"), CardNo: 1, HasCardNo: true,
		Time: time.Date(2026, 11, 22, 22, 0, 1, 0, time.UTC)}
	<-acked
	for len(beats) > 0 {
		<-beats
	}
	// While the loop is held no heartbeat is taken, however many ticks go by. The
	// ticker is the daemon's own, on the wall clock, and a tick not taken leaves no
	// trace: no event tells that 50 went by, so the test waits them out.
	select {
	case <-beats:
		t.Fatal("a heartbeat while the table's loop was stuck")
	case <-time.After(50 * cfg.HeartbeatEvery):
	}
	close(release)
	for range 3 {
		<-beats
	}
	r.close(t)
}

// watchdog counts beats on a channel.
type watchdog chan struct{}

func (w watchdog) Beat() { w <- struct{}{} }

// holdingAcker notes each acknowledgement and holds the loop until release is closed.
type holdingAcker struct {
	acked   chan uint16
	release chan struct{}
}

func (a holdingAcker) Ack(ev device.Event) error {
	a.acked <- ev.CardNo
	<-a.release
	return nil
}

// reply is the last reply published; the test has waited for the loop to be idle.
func reply(t *testing.T, rec *display.Recorder) api.Reply {
	t.Helper()
	rs := rec.Replies()
	if len(rs) == 0 {
		t.Fatal("no reply")
	}
	var rp api.Reply
	if err := json.Unmarshal(rs[len(rs)-1].Payload, &rp); err != nil {
		t.Fatal(err)
	}
	return rp
}

func TestCommands(t *testing.T) {
	t.Parallel()
	r := start(t, t.TempDir())
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.f.cards(t, "4S 9H")
	r.settle(t)
	ask := func(role, payload string) api.Reply {
		t.Helper()
		n := len(r.rec.Replies())
		if err := r.rec.Inject(role, []byte(payload)); err != nil {
			t.Fatal(err)
		}
		r.idle(t)
		if len(r.rec.Replies()) != n+1 {
			t.Fatalf("%s %s: %d replies, want 1", role, payload, len(r.rec.Replies())-n)
		}
		return reply(t, r.rec)
	}
	for _, tc := range []struct {
		role, payload, err string
	}{
		{"dealer", `{"cmd":"confirm"`, "malformed command"},
		{"dealer", `{"cmd":"confirm","colour":"red"}`, `unknown field "colour"`},
		{"dealer", `{"cmd":"shuffle"}`, `unknown command "shuffle"`},
		{"croupier", `{"cmd":"confirm"}`, `unknown role "croupier"`},
		{"dealer", `{"cmd":"decide","irregularity":1,"choice":"void"}`, `a dealer may not give "decide"`},
		{"dealer", `{"cmd":"report","kind":"spilled_drink"}`, `unknown irregularity "spilled_drink"`},
		{"supervisor", `{"cmd":"decide","irregularity":1,"choice":"void"}`, "no irregularity is waiting"},
		{"dealer", `{"id":"c9","cmd":"confirm"}`, "the round is not complete"},
	} {
		rp := ask(tc.role, tc.payload)
		if rp.OK || !strings.Contains(rp.Error, tc.err) {
			t.Errorf("%s %s: %+v, want an error with %q", tc.role, tc.payload, rp, tc.err)
		}
	}
	// A dealer reports a card dealt to the wrong hand; a supervisor decides it.
	rp := ask("dealer", `{"id":"r1","cmd":"report","kind":"wrong_hand","actor":"D4"}`)
	if !rp.OK || rp.ID != "r1" || !strings.Contains(strings.Join(rp.Effects, "\n"), "irregularity-raised #1 wrong_hand") {
		t.Errorf("report: %+v", rp)
	}
	rp = ask("supervisor", `{"id":"d1","cmd":"decide","irregularity":1,"choice":"reconstructed","actor":"S17"}`)
	if !rp.OK || !strings.Contains(strings.Join(rp.Effects, "\n"), "reconstructed by supervisor S17") {
		t.Errorf("decide: %+v", rp)
	}
	r.settle(t)
	if got := irregularityEvents(t, r.rec); got != "raised wrong_hand,resolved wrong_hand" {
		t.Errorf("irregularity messages: %v", got)
	}
	r.close(t)
}

// TestBrokerAwayAndRestart: messages made while the broker is away go out, in order,
// on the reconnect; after a restart the shoe's messages go out again with the same
// numbers, so a subscriber dropping duplicates sees each exactly once.
func TestBrokerAwayAndRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := start(t, dir)
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.f.cards(t, "9H 5C KS KD")
	r.settle(t)
	r.rec.Down()
	r.f.cards(t, "2H 3D 4C 5D")
	r.idle(t)
	if n, _ := r.d.Pending(); n == 0 {
		t.Fatal("messages made while the broker is away were not kept")
	}
	r.rec.Reconnect()
	r.settle(t)
	first := eventMessages(t, r.rec)
	if len(first) != 10 {
		t.Fatalf("%d messages after the reconnect, want 10", len(first))
	}
	published := r.rec.Published()
	r.close(t)

	// Restart on the same journal: the shoe's messages again, then the restart's own.
	r = start(t, dir)
	r.f.seq = 8
	r.f.cards(t, "8S 8C KC KH") // both 8: a tie
	r.settle(t)
	again := eventMessages(t, r.rec)
	for i, m := range first {
		if again[i].Seq != m.Seq || again[i].Slot != m.Slot || again[i].Card != m.Card || again[i].Winner != m.Winner {
			t.Errorf("message %d after the restart: %+v, before %+v", i+1, again[i], m)
		}
	}
	var tail []string
	for _, m := range again[len(first):] {
		tail = append(tail, m.Slot+m.Winner)
	}
	// The restart between rounds: 5.4 finds betting open and nothing to decide; the next
	// round's four cards and result follow.
	if strings.Join(tail, ",") != "P1,B1,P2,B2,tie" {
		t.Errorf("after the restart: %v", tail)
	}
	if len(published) == 0 {
		t.Fatal("nothing published")
	}
	r.close(t)
}
