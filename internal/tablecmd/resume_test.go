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
	hash, err := bcrypt.GenerateFromPassword([]byte("sup-pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tablectl.yaml")
	conf := fmt.Sprintf("table: H1\nbroker:\n  listen: 127.0.0.1:0\n  websocket: \"\"\n  users:\n    - {name: s1, role: supervisor, password_hash: %q}\n", hash)
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The table runs until the test has seen what it checks: its broker, embedded, goes
	// with it, and what it passes on as it stops may not reach a subscriber.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	logs := &lockedBuffer{}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Run(runCtx, []string{"run", "--config", file, "--simulate", "--pace", "0", "--journal", dir, "--http", ""},
			cli.Stdio{In: strings.NewReader(""), Out: pw, Err: logs})
		pw.Close()
		done <- err
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
		t.Fatalf("no broker address printed: %s", logs.String())
	}
	o := mqtt.NewClientOptions().AddBroker(url).SetClientID("pit").SetUsername("s1").SetPassword("sup-pw").SetConnectTimeout(30 * time.Second)
	c := mqtt.NewClient(o)
	if tok := c.Connect(); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	defer c.Disconnect(50)
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
	statuses := make(chan heldStatus, 64)
	if tok := c.Subscribe("tablectl/v1/H1/status", 1, func(_ mqtt.Client, m mqtt.Message) {
		var s heldStatus
		if json.Unmarshal(m.Payload(), &s) == nil {
			select {
			case statuses <- s:
			default: // the test reads no more: paho's delivery of the replies must not wait on it
			}
		}
	}); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	replies := make(chan string, 16)
	tok := c.Subscribe("tablectl/v1/H1/cmd/reply", 1, func(_ mqtt.Client, m mqtt.Message) { replies <- string(m.Payload()) })
	if !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	// Granted, though the broker's deliveries of the retained status may be unacknowledged
	// under the same packet identifier (broker.TestSubscribeWithTheIdentifierOfAnUnacknowledgedDelivery).
	if code := tok.(*mqtt.SubscribeToken).Result()["tablectl/v1/H1/cmd/reply"]; code != 1 {
		t.Fatalf("the broker answered the subscription to the replies with %#x, want 0x01", code)
	}
	// The table says it is online, and held: its commands are listened to from then on.
	var st heldStatus
	for st.State != "online" || st.Held == nil {
		select {
		case st = <-statuses:
		case err := <-done:
			t.Fatalf("tablectl ended before its online status said it was held: %v\n%s", err, logs.String())
		case <-ctx.Done():
			t.Fatalf("no online status saying the table is held:\n%s", logs.String())
		}
	}
	if h := st.Held; h.ID != 1 || h.Kind != "simultaneous_draw" || h.Rule != "RWS Baccarat 5.10" || !strings.Contains(h.Reason, "two cards sensed at once") ||
		h.DecidedBy != "supervisor" || len(h.Choices) == 0 {
		t.Errorf("status held %+v: want #1 simultaneous_draw, its reason, rule and choices, decided by a supervisor", *h)
	}
	for _, want := range []string{"held for irregularity #1 (simultaneous_draw), as the journal left it", "a supervisor decides it",
		`reason="two cards sensed at once (RWS Baccarat 5.10)"`, `\"cmd\":\"decide\",\"irregularity\":1`, "tablectl/v1/H1/cmd/supervisor"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logs.String())
		}
	}
	// The simulated dealer sees the red lamp before it draws a card, and stops.
	for {
		stopped, written := logs.Holds("the simulated dealer stops dealing")
		if stopped {
			break
		}
		select {
		case <-written:
		case <-ctx.Done():
			t.Fatalf("the simulated dealer did not stop for the red lamp:\n%s", logs.String())
		}
	}
	if n := len(irregularitiesIn(t, dir)); n != held {
		t.Fatalf("%d irregularities while held, %d before the restart: the dealer drew while the table was held", n, held)
	}
	if n := len(effectsIn(t, dir, round.CardHeld)); n != heldCards {
		t.Fatalf("%d cards held, %d before the restart: the dealer drew while the table was held\n%s", n, heldCards, logs.String())
	}
	if tok := c.Publish("tablectl/v1/H1/cmd/supervisor", 1, false, `{"id":"d1","cmd":"decide","irregularity":1,"choice":"as-read","actor":"S1"}`); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	select {
	case r := <-replies:
		if !strings.Contains(r, `"ok":true`) {
			t.Fatalf("decide: %s", r)
		}
	case <-ctx.Done():
		t.Fatalf("no reply to the decision:\n%s", logs.String())
	}
	// Decided, the status no longer says held, and the dealer deals its rounds.
	for st.Held != nil {
		select {
		case st = <-statuses:
		case <-ctx.Done():
			t.Fatalf("no status without the hold after the decision:\n%s", logs.String())
		}
	}
	// The decided round and two more settle with no irregularity (tablectl logs each
	// irregularity it raises); then the table is stopped.
	for {
		settled, written := logs.Holds(`effect="round-settled round=4 `)
		if settled {
			break
		}
		select {
		case <-written:
		case err := <-done:
			t.Fatalf("tablectl ended before round 4 settled: %v\n%s", err, logs.String())
		case <-ctx.Done():
			t.Fatalf("round 4 did not settle:\n%s", logs.String())
		}
	}
	if before, _, _ := strings.Cut(logs.String(), `effect="round-settled round=4 `); strings.Contains(before, "irregularity-raised") {
		t.Errorf("irregularities after the decision:\n%s", logs.String())
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	if irr := irregularitiesIn(t, dir); len(irr) != held {
		t.Errorf("irregularities after the decision: %q\n%s", irr[held:], logs.String())
	}
}
