package table

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
)

var t0 = time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC)

func openJournal(t *testing.T, dir string) *journal.Journal {
	t.Helper()
	j, _, err := journal.Open(dir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func testConfig(rules string) Config {
	rc := round.DefaultConfig(baccarat.MustLookup(rules, baccarat.Options{}))
	rc.Burn = round.BurnNone
	return Config{Table: "T1", Round: rc}
}

// harness drives a node on a journal as the daemon's loop does: each input's Ready is
// persisted, then its effects noted, then the node advanced.
type harness struct {
	*Node
	j       *journal.Journal
	effects []string // of every step
	stepped []string // the events stepped
	acks    []string // the acknowledgements asked for
}

// start opens a node on j, and carries out its first Ready.
func start(cfg Config, j *journal.Journal) (*harness, error) {
	n, err := Open(cfg, j, t0)
	if err != nil {
		return nil, err
	}
	h := &harness{Node: n, j: j}
	return h, h.carryOut()
}

func (h *harness) carryOut() error {
	rd := h.Ready()
	if err := Persist(h.j, &rd); err != nil {
		return err
	}
	for _, ev := range rd.Acks {
		h.acks = append(h.acks, ev.String())
	}
	for _, s := range rd.Steps {
		h.stepped = append(h.stepped, s.Event.String())
		for _, e := range s.Effects {
			h.effects = append(h.effects, e.String())
		}
	}
	h.Advance()
	return nil
}

func (h *harness) Step(ev round.Event) error {
	h.Node.Step(ev)
	return h.carryOut()
}

func (h *harness) Shuffler(ev device.Event) error {
	h.Node.Shuffler(ev)
	return h.carryOut()
}

func (h *harness) Shoe(ev device.Event) error {
	h.Node.Shoe(ev)
	return h.carryOut()
}

func cards(t *testing.T, s string) []round.Event {
	t.Helper()
	cs, err := baccarat.ParseCards(s)
	if err != nil {
		t.Fatal(err)
	}
	var evs []round.Event
	for _, c := range cs {
		evs = append(evs, round.Event{Kind: round.CardDrawn, Card: c})
	}
	return evs
}

func steps(t *testing.T, tbl *harness, evs ...round.Event) {
	t.Helper()
	for i, ev := range evs {
		ev.At = t0.Add(time.Duration(i) * time.Second)
		if err := tbl.Step(ev); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRestartMidRound: the journal holds a round cut off after three cards; the table
// started again reaches the same state by replay, then RWS Baccarat 5.4 decides: under
// rws the Player Pair is decided by then, so the round goes on (5.4.1).
func TestRestartMidRound(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	tbl, err := start(testConfig("rws"), j)
	if err != nil {
		t.Fatal(err)
	}
	steps(t, tbl, append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8},
		{Kind: round.BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetPlayerPair, Stake: 10}}}},
		cards(t, "3H 4C 3D")...)...)
	before := tbl.State()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	j = openJournal(t, dir)
	defer j.Close()
	// Replay alone reaches exactly the state before the cut.
	ctl, settings, err := Replay(j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ctl.State(); !reflect.DeepEqual(before, got) {
		t.Errorf("state after replay differs:\n%+v\n%+v", before, got)
	}
	if settings == nil || settings.Table != "T1" || settings.Round.Rules.Name != "rws" {
		t.Errorf("settings replayed: %+v", settings)
	}
	var replayed []string
	if _, _, err := Replay(j, func(ev round.Event, effs []round.Effect, _ round.State) {
		for _, e := range effs {
			replayed = append(replayed, e.String())
		}
	}); err != nil {
		t.Fatal(err)
	}
	tbl, err = start(testConfig("rws"), j)
	if err != nil {
		t.Fatal(err)
	}
	after := tbl.effects
	if len(replayed) == 0 || !strings.Contains(strings.Join(replayed, "\n"), "card-placed P2 3D") {
		t.Errorf("replay gave %v", replayed)
	}
	want := []string{
		"irregularity-raised #1 technical_interruption: power restored with round 1 being dealt (RWS Baccarat 5.4)",
		"irregularity-resolved #1 technical_interruption continue by rule: an outcome has been established (RWS Baccarat 5.4.1)",
		"resumed: the round continues (RWS Baccarat 5.4.1)",
	}
	if strings.Join(after, "\n") != strings.Join(want, "\n") {
		t.Errorf("after the restart:\n%s\nwant\n%s", strings.Join(after, "\n"), strings.Join(want, "\n"))
	}
	// The round goes on and settles the Player Pair.
	tbl.effects = nil
	steps(t, tbl, append(cards(t, "5S"), round.Event{Kind: round.ConfirmResult})...)
	if s := strings.Join(tbl.effects, "\n"); !strings.Contains(s, "1:player_pair:10 win 11:1 returned=120") {
		t.Errorf("the resumed round settled as:\n%s", s)
	}
}

// TestRestartVoids: under classic rules two cards decide nothing: the round is void and
// the bets returned (RWS Baccarat 5.4.2, 5.15).
func TestRestartVoids(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	tbl, err := start(testConfig("classic"), j)
	if err != nil {
		t.Fatal(err)
	}
	steps(t, tbl, append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8},
		{Kind: round.BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetBanker, Stake: 100}}}},
		cards(t, "3H 4C")...)...)
	j.Close()
	j = openJournal(t, dir)
	defer j.Close()
	tbl, err = start(testConfig("classic"), j)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Join(tbl.effects, "\n")
	for _, want := range []string{"round-voided round=1: technical interruption before any outcome was established (RWS Baccarat 5.4.2)",
		"1:banker:100 push returned=100", "betting-opened round=2"} {
		if !strings.Contains(s, want) {
			t.Errorf("after the restart:\n%s\nlacks %q", s, want)
		}
	}
}

// TestRestartUnnumberedShoe: the round was dealt from a shoe that numbers its cards; the
// table comes back with a shoe that does not (a Bee-Tek shoe, which reports its failed
// reads, so its settings are the same). No number will show a card that passed while
// the table was down, so RWS Baccarat 5.4 decides the round at once: under classic rules
// two cards decide nothing, and the round is void (5.4.2).
func TestRestartUnnumberedShoe(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	tbl, err := start(testConfig("classic"), j)
	if err != nil {
		t.Fatal(err)
	}
	dealt := cards(t, "3H 4C")
	for i := range dealt {
		dealt[i].Seq = uint64(i + 1)
	}
	steps(t, tbl, append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8},
		{Kind: round.BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetBanker, Stake: 100}}}},
		dealt...)...)
	j.Close()
	j = openJournal(t, dir)
	defer j.Close()
	cfg := testConfig("classic")
	cfg.Unnumbered = true
	if tbl, err = start(cfg, j); err != nil {
		t.Fatal(err)
	}
	want := "round-voided round=1: technical interruption before any outcome was established (RWS Baccarat 5.4.2)"
	if s := strings.Join(tbl.effects, "\n"); !strings.Contains(s, want) {
		t.Errorf("restarted with an unnumbered shoe:\n%s\nlacks %q", s, want)
	}
}

// TestSettingsSeqlessKey: the settings record keeps UnreadableIsCard under the key
// "seqless", so journals written before read with the same settings.
func TestSettingsSeqlessKey(t *testing.T) {
	var s Settings
	if err := json.Unmarshal([]byte(`{"table":"T1","round":{},"seqless":true}`), &s); err != nil || !s.UnreadableIsCard {
		t.Errorf("a settings record with seqless: %+v, %v", s, err)
	}
	b, err := json.Marshal(Settings{UnreadableIsCard: true})
	if err != nil || !strings.Contains(string(b), `"seqless":true`) {
		t.Errorf("settings written as %s (%v), want the key seqless", b, err)
	}
}

func TestSettingsChange(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	tbl, err := start(testConfig("rws"), j)
	if err != nil {
		t.Fatal(err)
	}
	steps(t, tbl, round.Event{Kind: round.NewShoe, Set: "S7", Decks: 8})
	j.Close()
	j = openJournal(t, dir)
	if _, err := start(testConfig("classic"), j); err == nil || !strings.Contains(err.Error(), "shoe 1 (set S7) is in play") {
		t.Errorf("changing the rules mid-shoe: %v", err)
	}
	j.Close()
	// Once the shoe is ended, the rules may change; the new settings are recorded.
	j = openJournal(t, dir)
	tbl, err = start(testConfig("rws"), j)
	if err != nil {
		t.Fatal(err)
	}
	steps(t, tbl, round.Event{Kind: round.ShoeEnd})
	j.Close()
	j = openJournal(t, dir)
	defer j.Close()
	tbl, err = start(testConfig("classic"), j)
	if err != nil {
		t.Fatal(err)
	}
	if st := tbl.State(); st.Shoe != 1 || st.Phase != round.NoShoe {
		t.Errorf("history lost across the change: %+v", st)
	}
	var last Entry
	for rec, err := range j.Records(1) {
		if err != nil {
			t.Fatal(err)
		}
		e, err := DecodeEntry(rec.Seq, rec.Data)
		if err != nil {
			t.Fatal(err)
		}
		if e.Settings != nil {
			last = e
		}
	}
	if last.Settings == nil || last.Settings.Round.Rules.Name != "classic" {
		t.Errorf("last settings recorded: %+v", last.Settings)
	}
}

func TestDecodeEntryErrors(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{`, "journal record 7: unexpected end"},
		{`{}`, "want settings, an event, a key or a recovery"},
		{`{"event":{"kind":"card"},"settings":{"round":{"rules":{"name":"rws"}}}}`, "want settings, an event, a key or a recovery"},
		{`{"event":{"kind":"card"},"key":{"public":"ed25519:AAAA"}}`, "want settings, an event, a key or a recovery"},
		{`{"key":{"public":"rsa:AAAA"}}`, `journal record 7: key: public key "rsa:AAAA"`},
		{`{"event":{"kind":"dance"}}`, `unknown event kind "dance"`},
		{`{"event":{}}`, "journal record 7: an event without a kind"},
		{`{"settings":{"round":{"rules":{"name":"punto"}}}}`, `unknown rule set "punto"`},
		{`{"event":{"kind":"card","card":"ZZ"}}`, `card "ZZ"`},
	} {
		_, err := DecodeEntry(7, []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.data, err, tc.want)
		}
	}
	// Settings and events round-trip.
	cfg := testConfig("royal")
	b, _ := json.Marshal(Entry{Settings: &Settings{Table: "T9", Round: cfg.Round}})
	e, err := DecodeEntry(1, b)
	if err != nil || e.Settings.Round.Rules.Name != "royal" || e.Settings.Round.Rules.RoyalTiers != 4 || e.Settings.Table != "T9" {
		t.Errorf("round trip: %+v %v", e.Settings, err)
	}
}

func TestReplayRefusesEventsBeforeSettings(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	if err := Persist(j, &Ready{Records: []Entry{{Event: &round.Event{Kind: round.ShoeEnd}}}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Replay(j, nil); err == nil || !strings.Contains(err.Error(), "record 1") {
		t.Errorf("replay: %v", err)
	}
	j.Close()
	if _, err := os.Stat(filepath.Join(dir)); err != nil {
		t.Fatal(err)
	}
}

// TestRestartConfirmsCompleteRound: the table stopped after a round was complete and
// before its automatic confirmation was recorded; started again, it confirms it, as it
// would have.
func TestRestartConfirmsCompleteRound(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	cfg := testConfig("classic")
	cfg.AutoConfirm = true
	tbl, err := start(cfg, j)
	if err != nil {
		t.Fatal(err)
	}
	// The table stops between recording the round complete and recording its automatic
	// confirmation: here, its stand-in is switched off for the round.
	tbl.Node.cfg.AutoConfirm = false
	steps(t, tbl, append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8}, {Kind: round.BetsClosed}},
		cards(t, "9H 5C KS KD")...)...)
	if st := tbl.State(); st.Phase != round.Complete {
		t.Fatalf("phase %s", st.Phase)
	}
	j.Close()
	j = openJournal(t, dir)
	defer j.Close()
	tbl, err = start(cfg, j)
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(tbl.effects, "\n"); !strings.Contains(s, "round-settled round=1 P") || tbl.State().Round != 2 {
		t.Errorf("after the restart:\n%s", s)
	}
}

// TestPersistSyncsOnceABatch: the records of one Ready are appended and made durable
// with one sync, and the snapshot covers the record that ended the shoe, not those after.
func TestPersistSyncsOnceABatch(t *testing.T) {
	j := openJournal(t, t.TempDir())
	defer j.Close()
	tbl, err := start(testConfig("classic"), j)
	if err != nil {
		t.Fatal(err)
	}
	syncs := j.Stats().Syncs
	batch := append([]round.Event{{Kind: round.NewShoe, Set: "A", Decks: 8}, {Kind: round.BetsClosed}}, cards(t, "9H 5C KS KD")...)
	for i, ev := range append(batch, round.Event{Kind: round.ConfirmResult}) {
		ev.At = t0.Add(time.Duration(i) * time.Second)
		tbl.Node.Step(ev)
	}
	if n := len(tbl.Ready().Records); n != 7 {
		t.Fatalf("%d records ready, want 7", n)
	}
	if err := tbl.carryOut(); err != nil {
		t.Fatal(err)
	}
	if got := j.Stats().Syncs - syncs; got != 1 {
		t.Errorf("%d syncs for a batch of 7 records, want 1", got)
	}
	records := j.LastSeq()
	tbl.Node.Step(round.Event{Kind: round.ShoeEnd, At: t0.Add(time.Minute)})
	tbl.Node.Step(round.Event{Kind: round.NewShoe, Set: "B", Decks: 8, At: t0.Add(time.Minute)})
	rd := tbl.Ready()
	if len(rd.Records) != 2 || rd.Snapshot == nil || rd.SnapshotAt != 1 {
		t.Fatalf("ready: %d records, snapshot %v after %d", len(rd.Records), rd.Snapshot != nil, rd.SnapshotAt)
	}
	if err := tbl.carryOut(); err != nil {
		t.Fatal(err)
	}
	if seq, _, ok, _ := j.Snapshot(); !ok || seq != records+1 {
		t.Errorf("snapshot covers record %d (ok %v), want %d: the shoe's end", seq, ok, records+1)
	}
}
