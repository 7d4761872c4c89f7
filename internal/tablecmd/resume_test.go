package tablecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"golang.org/x/crypto/bcrypt"

	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// runTo runs "tablectl ARGS" in-process until it ends by itself (its dealing done), or
// fails the test after a generous deadline that only bounds a failure.
func runTo(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The embedded broker's listener may still log as it winds down.
	var out, errb lockedBuffer
	err = Run(ctx, args, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	if ctx.Err() != nil {
		t.Fatalf("tablectl %s did not end: %s", strings.Join(args, " "), errb.String())
	}
	return out.String(), errb.String(), err
}

// noBroker are the flags of a simulated run with its own broker on a free port, no board.
var noBroker = []string{"--http", "", "--broker-listen", "127.0.0.1:0", "--broker-websocket", ""}

// irregularitiesIn lists the irregularities raised in a journal.
func irregularitiesIn(t *testing.T, dir string) []string {
	t.Helper()
	return effectsIn(t, dir, round.IrregularityRaised)
}

// effectsIn lists the effects of kind the journal in dir records, in order.
func effectsIn(t *testing.T, dir string, kind round.EffectKind) []string {
	t.Helper()
	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("journal: %v", err)
	}
	defer j.Close()
	var out []string
	if _, _, err := table.ReplayRecords(j, func(_ uint64, _ table.Entry, effs []round.Effect, _ *round.Controller) {
		for _, e := range effs {
			if e.Kind == kind {
				out = append(out, e.String())
			}
		}
	}); err != nil && !strings.Contains(err.Error(), "torn") { // a record being written
		t.Fatalf("journal: %v", err)
	}
	return out
}

// TestRunSimulateGoesOnFromTheJournal: a simulated table stopped in the middle of a round
// and started again on the same journal goes on where it was, as a table whose shoe
// stayed powered does: the simulated shoe deals the rest of the recorded order with its
// card numbers going on, then shuffles the sets it would have shuffled. No irregularity
// is raised, and the rounds are those of a run that never stopped, card for card.
func TestRunSimulateGoesOnFromTheJournal(t *testing.T) {
	t.Parallel()
	// The first run stops with three cards of round 3 dealt (a scenario ends there, as an
	// interrupt would leave it).
	scenario := filepath.Join(t.TempDir(), "stop.txt")
	if err := os.WriteFile(scenario, []byte("decks 1\nseed 5\nshuffle\nburn\nround 2\ndraw 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "journal")
	args := append([]string{"run", "--simulate", "--pace", "0", "--decks", "1", "--journal", dir}, noBroker...)
	if _, errs, err := runTo(t, append(args, "--scenario", scenario)...); err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	if !roundOpen(t, dir) {
		t.Fatal("the first run left no round open: the test does not restart mid-round")
	}
	before := roundsIn(t, dir, false)
	// Going on: the rest of shoe 1 (set 1, one deck, 7 rounds) and into shoe 2.
	if _, errs, err := runTo(t, append(args, "--seed", "5", "--rounds", "10")...); err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	got := roundsIn(t, dir, false)
	if irr := irregularitiesIn(t, dir); len(irr) > 0 {
		t.Errorf("irregularities after the restart: %q", irr)
	}
	// The same shoes dealt by a run that never stopped.
	want := filepath.Join(t.TempDir(), "journal")
	if _, errs, err := runTo(t, "run", "--simulate", "--pace", "0", "--decks", "1", "--journal", want, "--seed", "5", "--rounds", "12",
		"--http", "", "--broker-listen", "127.0.0.1:0", "--broker-websocket", ""); err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	wantRounds := roundsIn(t, want, false)
	if len(before) != 2 || len(got) != 12 || !strings.HasPrefix(got[11], "shoe 2 ") {
		t.Fatalf("%d rounds before the restart and %d after, want 2 and 12 reaching shoe 2:\n%s", len(before), len(got), strings.Join(got, "\n"))
	}
	if strings.Join(got, "\n") != strings.Join(wantRounds, "\n") {
		t.Errorf("the rounds differ from a run that never stopped:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(wantRounds, "\n     "))
	}
}

// TestRunSimulateRefusesWhatItCannotGoOn: a scenario on a journal that holds shoes
// already is refused before anything is dealt, with the journal named and what to do.
func TestRunSimulateRefusesWhatItCannotGoOn(t *testing.T) {
	t.Parallel()
	scenario := filepath.Join(t.TempDir(), "stop.txt")
	if err := os.WriteFile(scenario, []byte("decks 1\nshuffle\nburn\nround 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "journal")
	args := append([]string{"run", "--simulate", "--pace", "0", "--decks", "1", "--journal", dir, "--scenario", scenario}, noBroker...)
	if _, errs, err := runTo(t, args...); err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	n := len(roundsIn(t, dir, false))
	_, _, err := runTo(t, args...)
	if err == nil || !strings.Contains(err.Error(), "the journal "+dir) || !strings.Contains(err.Error(), "new --journal") {
		t.Fatalf("a scenario on a journal with a shoe: %v, want a refusal naming %s and what to do", err, dir)
	}
	if got := len(roundsIn(t, dir, false)); got != n {
		t.Errorf("%d rounds in the journal after the refusal, %d before", got, n)
	}
}

// heldRun is a simulated table started on a journal that left it held, with its own
// broker and a supervisor (s1) connected to it, listening to its status and replies.
type heldRun struct {
	id       string
	logs     *lockedBuffer
	done     chan error
	stop     context.CancelFunc
	c        mqtt.Client
	statuses chan heldStatus
	replies  chan string
	st       heldStatus // the latest status read
}

// heldStatus is what the tests read of a table's retained status.
type heldStatus struct {
	State string `json:"state"`
	Held  *struct {
		ID        uint32   `json:"id"`
		Kind      string   `json:"kind"`
		Rule      string   `json:"rule"`
		Reason    string   `json:"reason"`
		Choices   []string `json:"choices"`
		DecidedBy string   `json:"decided_by"`
	} `json:"held"`
}

// startHeld runs "tablectl run --simulate" as table id on the journal in dir, with args
// added, until ctx ends or the test stops it; it returns once the table's online status
// says it is held.
func startHeld(t *testing.T, ctx context.Context, id, dir string, args ...string) *heldRun {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte("sup-pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tablectl.yaml")
	conf := fmt.Sprintf("table: %s\nbroker:\n  listen: 127.0.0.1:0\n  websocket: \"\"\n  users:\n    - {name: s1, role: supervisor, password_hash: %q}\n", id, hash)
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	// The table runs until the test has seen what it checks: its broker, embedded, goes
	// with it, and what it passes on as it stops may not reach a subscriber.
	runCtx, stop := context.WithCancel(ctx)
	h := &heldRun{id: id, logs: &lockedBuffer{}, done: make(chan error, 1), stop: stop,
		statuses: make(chan heldStatus, 64), replies: make(chan string, 16)}
	t.Cleanup(stop)
	pr, pw := io.Pipe()
	go func() {
		err := Run(runCtx, append([]string{"run", "--config", file, "--simulate", "--journal", dir, "--http", ""}, args...),
			cli.Stdio{In: strings.NewReader(""), Out: pw, Err: h.logs})
		pw.Close()
		h.done <- err
	}()
	url := ""
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		buf := make([]byte, 4096)
		var acc []byte
		for {
			n, err := pr.Read(buf)
			acc = append(acc, buf[:n]...)
			for {
				i := bytes.IndexByte(acc, '\n')
				if i < 0 {
					break
				}
				lines <- string(acc[:i])
				acc = acc[i+1:]
			}
			if err != nil {
				return
			}
		}
	}()
	for l := range lines {
		if u, ok := strings.CutPrefix(l, "embedded MQTT broker: "); ok {
			url = strings.Split(u, ",")[0]
			break
		}
	}
	go func() {
		for range lines {
		}
	}()
	if url == "" {
		select {
		case err := <-h.done:
			t.Fatalf("tablectl ended before it printed its broker's address: %v\n%s", err, h.logs.String())
		case <-ctx.Done():
			t.Fatalf("no broker address printed: %s", h.logs.String())
		}
	}
	o := mqtt.NewClientOptions().AddBroker(url).SetClientID("pit").SetUsername("s1").SetPassword("sup-pw").SetConnectTimeout(30 * time.Second)
	h.c = mqtt.NewClient(o)
	if tok := h.c.Connect(); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	t.Cleanup(func() { h.c.Disconnect(50) })
	if tok := h.c.Subscribe("tablectl/v1/"+id+"/status", 1, func(_ mqtt.Client, m mqtt.Message) {
		var s heldStatus
		if json.Unmarshal(m.Payload(), &s) == nil {
			select {
			case h.statuses <- s:
			default: // the test reads no more: paho's delivery of the replies must not wait on it
			}
		}
	}); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	reply := "tablectl/v1/" + id + "/cmd/reply"
	tok := h.c.Subscribe(reply, 1, func(_ mqtt.Client, m mqtt.Message) { h.replies <- string(m.Payload()) })
	if !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	// Granted, though the broker's deliveries of the retained status may be unacknowledged
	// under the same packet identifier (broker.TestSubscribeWithTheIdentifierOfAnUnacknowledgedDelivery).
	if code := tok.(*mqtt.SubscribeToken).Result()[reply]; code != 1 {
		t.Fatalf("the broker answered the subscription to the replies with %#x, want 0x01", code)
	}
	// The table says it is online, and held: its commands are listened to from then on.
	for h.st.State != "online" || h.st.Held == nil {
		select {
		case h.st = <-h.statuses:
		case err := <-h.done:
			t.Fatalf("tablectl ended before its online status said it was held: %v\n%s", err, h.logs.String())
		case <-ctx.Done():
			t.Fatalf("no online status saying the table is held:\n%s", h.logs.String())
		}
	}
	return h
}

// waitLog waits until the table's log holds want.
func (h *heldRun) waitLog(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	h.waitLogUnless(t, ctx, want, "", 0)
}

// waitLogUnless waits until the table's log holds want, and fails the test once it
// holds bad n times first.
func (h *heldRun) waitLogUnless(t *testing.T, ctx context.Context, want, bad string, n int) {
	t.Helper()
	for {
		ok, written := h.logs.Holds(want)
		if ok {
			return
		}
		if bad != "" && strings.Count(h.logs.String(), bad) >= n {
			t.Fatalf("the log said %q %d times before %q:\n%s", bad, n, want, h.logs.String())
		}
		select {
		case <-written:
		case err := <-h.done:
			h.done <- err
			if ok, _ := h.logs.Holds(want); ok {
				return
			}
			t.Fatalf("tablectl ended (%v) before its log said %q:\n%s", err, want, h.logs.String())
		case <-ctx.Done():
			t.Fatalf("the log never said %q:\n%s", want, h.logs.String())
		}
	}
}

// decide has the supervisor decide the irregularity the table is held for with choice;
// it returns once the table has said it is no longer held.
func (h *heldRun) decide(t *testing.T, ctx context.Context, choice string) {
	t.Helper()
	cmd := fmt.Sprintf(`{"id":"d1","cmd":"decide","irregularity":%d,"choice":%q,"actor":"S1"}`, h.st.Held.ID, choice)
	if tok := h.c.Publish("tablectl/v1/"+h.id+"/cmd/supervisor", 1, false, cmd); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	select {
	case r := <-h.replies:
		if !strings.Contains(r, `"ok":true`) {
			t.Fatalf("decide: %s", r)
		}
	case <-ctx.Done():
		t.Fatalf("no reply to the decision:\n%s", h.logs.String())
	}
	// Decided, the status no longer says held, and the dealer deals its rounds.
	for h.st.Held != nil {
		select {
		case h.st = <-h.statuses:
		case <-ctx.Done():
			t.Fatalf("no status without the hold after the decision:\n%s", h.logs.String())
		}
	}
}

// TestRunSimulateHeldAfterRestart: a journal left held for a simultaneous draw (RWS
// Baccarat 5.10) keeps the table held when it starts again: the log and the retained
// status say which irregularity, why, and the decision it waits for, and the simulated
// dealer draws nothing until a supervisor decides; then it deals on from the recorded
// order with no further irregularity.
func TestRunSimulateHeldAfterRestart(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "journal")
	scenario := filepath.Join("..", "..", "table", "testdata", "scenarios", "simultaneous-draw.txt")
	if _, errs, err := runTo(t, append([]string{"run", "--simulate", "--table", "H1", "--scenario", scenario, "--pace", "0", "--journal", dir}, noBroker...)...); err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	held, heldCards := len(irregularitiesIn(t, dir)), len(effectsIn(t, dir, round.CardHeld))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h := startHeld(t, ctx, "H1", dir, "--pace", "0")
	if st := h.st.Held; st.ID != 1 || st.Kind != "simultaneous_draw" || st.Rule != "RWS Baccarat 5.10" || !strings.Contains(st.Reason, "two cards sensed at once") ||
		st.DecidedBy != "supervisor" || len(st.Choices) == 0 {
		t.Errorf("status held %+v: want #1 simultaneous_draw, its reason, rule and choices, decided by a supervisor", *st)
	}
	for _, want := range []string{"held for irregularity #1 (simultaneous_draw), as the journal left it", "a supervisor decides it",
		`reason="two cards sensed at once (RWS Baccarat 5.10)"`, `\"cmd\":\"decide\",\"irregularity\":1`, "tablectl/v1/H1/cmd/supervisor"} {
		if !strings.Contains(h.logs.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, h.logs.String())
		}
	}
	// The simulated dealer sees the red lamp before it draws a card, and stops.
	h.waitLog(t, ctx, "the simulated dealer stops dealing")
	if n := len(irregularitiesIn(t, dir)); n != held {
		t.Fatalf("%d irregularities while held, %d before the restart: the dealer drew while the table was held", n, held)
	}
	if n := len(effectsIn(t, dir, round.CardHeld)); n != heldCards {
		t.Fatalf("%d cards held, %d before the restart: the dealer drew while the table was held\n%s", n, heldCards, h.logs.String())
	}
	h.decide(t, ctx, "as-read")
	// The decided round and two more settle with no irregularity (tablectl logs each
	// irregularity it raises); then the table is stopped.
	h.waitLog(t, ctx, `effect="round-settled round=4 `)
	if before, _, _ := strings.Cut(h.logs.String(), `effect="round-settled round=4 `); strings.Contains(before, "irregularity-raised") {
		t.Errorf("irregularities after the decision:\n%s", h.logs.String())
	}
	h.stop()
	if err := <-h.done; err != nil {
		t.Fatalf("%v\n%s", err, h.logs.String())
	}
	if irr := irregularitiesIn(t, dir); len(irr) != held {
		t.Errorf("irregularities after the decision: %q\n%s", irr[held:], h.logs.String())
	}
}

// TestRunSimulateHeldForAnUnreadCardAfterRestart: a table stopped while held for a card
// its shoe could not read (RWS Baccarat 5.5.3) starts held; once a supervisor lets play
// go on, the simulated shoe deals on as the table counts the rounds. The unread card
// took a place in the set's order but none in the round, and in the round the cut card
// came out in, or the one more after it, the shoe ends where the table ends it: the
// dealer deals no card of the set after the shoe is done, and the next set is shuffled.
func TestRunSimulateHeldForAnUnreadCardAfterRestart(t *testing.T) {
	t.Parallel()
	// One deck with seed 5 brings the cut card out before round 6's first card: round 6
	// is the cut card's, round 7 the one more, and the shoe ends after it.
	for _, c := range []struct {
		name, at string
	}{
		{"before the cut card", "round 3\ndraw 1\nmisread\n"},
		{"in the cut card's round", "round 5\ndraw 1\nmisread\n"},
		{"in the one more round", "round 6\ndraw 1\nmisread\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			scenario := filepath.Join(t.TempDir(), "misread.txt")
			if err := os.WriteFile(scenario, []byte("decks 1\nseed 5\nshuffle\nburn\n"+c.at), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "journal")
			if _, errs, err := runTo(t, append([]string{"run", "--simulate", "--table", "H2", "--scenario", scenario, "--pace", "0", "--decks", "1", "--journal", dir}, noBroker...)...); err != nil {
				t.Fatalf("%v\n%s", err, errs)
			}
			if irr := irregularitiesIn(t, dir); len(irr) != 1 || !strings.Contains(irr[0], "incorrect_cards: an unreadable card") {
				t.Fatalf("the first run raised %q, want one unreadable card", irr)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			h := startHeld(t, ctx, "H2", dir, "--pace", "0", "--round-pause", "0", "--decks", "1", "--seed", "5", "--rounds", "10")
			if h.st.Held.Kind != "incorrect_cards" {
				t.Fatalf("held for %+v, want the unreadable card", *h.st.Held)
			}
			h.decide(t, ctx, "continue")
			// The dealer stops at a red lamp once more if the table is held again.
			h.waitLogUnless(t, ctx, "shoe-started shoe=2 ", "the simulated dealer stops dealing", 2)
			h.waitLog(t, ctx, `effect="round-settled round=1 `)
			h.stop()
			if err := <-h.done; err != nil {
				t.Fatalf("%v\n%s", err, h.logs.String())
			}
			if irr := irregularitiesIn(t, dir); len(irr) != 1 {
				t.Errorf("irregularities after the decision: %q\n%s", irr[1:], h.logs.String())
			}
			if ended := effectsIn(t, dir, round.ShoeFinished); len(ended) == 0 {
				t.Errorf("shoe 1 did not end")
			}
		})
	}
}
