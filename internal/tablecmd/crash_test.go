package tablecmd

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/internal/artifacts"
	"github.com/tablectl/tablectl/internal/cmdtest"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/simulator"
	"github.com/tablectl/tablectl/table"
)

// TestCrashRecovery kills tablectl with SIGKILL at random moments while a seeded shoe is
// dealt (at least 100 kills over at least 300 rounds, mid-card and mid-round among them),
// starts it again each time, and compares the rounds in its journal with those of an
// uninterrupted run of the same shoe: no round lost, none duplicated, each the same. The
// shoe resends every card and signal tablectl has not acknowledged (docs/protocol.md), so
// nothing the shoe sends while tablectl is down is lost; a round interrupted by a restart
// goes on where it stopped (its cards are all accounted for: RWS Baccarat 5.4 has nothing
// to decide, and the round's outcome is the uninterrupted run's). The tablectl killed is
// the table's own binary, built without the race detector (cmdtest.Binary): under it, each
// of the two hundred starts replays the journal several times slower, and the test spent
// most of its CPU there. The in-process tests of tablectl run keep the race detector.
func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills tablectl 100 times")
	}
	const rounds, kills = 300, 100
	got, shoes, at, jdir := crashRun(t, 0, rounds, kills)
	want, _, _, _ := crashRun(t, shoes, 0, 0)
	defer keepOnFailure(t, jdir)
	t.Logf("%d shoes, %d rounds, %d kills: %d in the middle of a round, %d with a card or signal sent and not yet acknowledged",
		shoes, len(want), kills, at.midRound, at.inFlight)
	if at.midRound < kills/10 || at.inFlight < kills/10 {
		t.Errorf("too few kills mid-round (%d) or mid-card (%d): the test does not exercise recovery", at.midRound, at.inFlight)
	}
	if len(want) < rounds {
		t.Fatalf("the uninterrupted run recorded %d rounds, want %d", len(want), rounds)
	}
	for i := range want {
		if i >= len(got) {
			t.Fatalf("round %d and later lost: %d rounds after the kills, %d without", i+1, len(got), len(want))
		}
		if got[i] != want[i] {
			t.Fatalf("round %d differs:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d rounds after the kills, %d without: duplicated rounds", len(got), len(want))
	}
}

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// killMoments counts where the kills fell.
type killMoments struct {
	midRound int // the journal had a round open: cards dealt, not yet settled
	inFlight int // the shoe had sent a card or signal that tablectl had not acknowledged
}

// crashRun deals whole shoes of a seeded set of shuffles to tablectl in a child process:
// shoes of them, or, when shoes is 0, as many as it takes to deal at least rounds rounds
// while killing and restarting tablectl kills times. It returns every settled or void
// round in the journal, the shoes dealt, and where the kills fell. Without kills the
// shoe deals faster.
func crashRun(t *testing.T, shoes, rounds, kills int) ([]string, int, killMoments, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir := t.TempDir()
	// Two lines carry no order between them: dealt with no pace at all, a shoe's first
	// cards can come before the shuffler's report of its set has been taken.
	pace := time.Millisecond
	if kills > 0 {
		// The shoe keeps 64 cards and signals to send again: it must not deal that many
		// while tablectl restarts (tens of milliseconds, with a long journal to replay;
		// the dealer also stops on the red light, dealerStops).
		pace = 5 * time.Millisecond
		if raceDetector {
			// The simulated shoe and this test's loop run with the race detector.
			pace = 10 * time.Millisecond
		}
	}
	simLog := quietLog
	if os.Getenv("CRASH_DEBUG") != "" && kills > 0 {
		simLog = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	// The dealer stops while the light is red, as a dealer at a real table does; here the
	// light says the shoe holds many cards not yet acknowledged (dealerStops).
	light := simulator.NewTowerLight(simLog)
	sim, err := simulator.New(simulator.Config{Dir: dir, Protocol: "tablectl", Seed: 11, Decks: 8, Cut: 16,
		Pace: pace, Logger: simLog, Light: light, HostAcks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	jdir := filepath.Join(dir, "journal")
	bin := cmdtest.Binary(t, "github.com/tablectl/tablectl/cmd/tablectl")
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "run", "--shoe", sim.Shoe.Link, "--shuffler", sim.Shuffler.Link, "--auto",
			"--journal", jdir, "--http", "", "--broker-listen", "127.0.0.1:0", "--broker-websocket", "",
			"--simultaneous-window", "0", "--rules", "rws")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	cmd := start()
	const maxShoes = 20
	var killed atomic.Int32
	dealt := make(chan error, 1)
	go func() {
		err := sim.Connect(ctx)
		for dealing := 0; err == nil; dealing++ {
			if shoes > 0 && dealing == shoes || shoes == 0 && sim.Rounds() >= rounds && int(killed.Load()) >= kills {
				shoes = dealing
				break
			}
			if dealing == maxShoes {
				err = fmt.Errorf("%d shoes dealt and only %d kills: tablectl restarts too slowly here", dealing, killed.Load())
				break
			}
			err = sim.Run(ctx, []simulator.Step{{Op: "shuffle"}, {Op: "deal"}})
		}
		dealt <- err
	}()
	// Each tablectl is killed at a random moment 20 to 100 ms after it has said hello to
	// the shoe and taken what the shoe sent again: killed before that, tablectl would take
	// nothing, and the shoe would deal on past what it keeps to send again (64 cards and
	// signals, docs/protocol.md). At a dealer's pace a restart misses a card or two.
	// Every fourth kill falls with a card in flight whatever the machine's speed: at its
	// moment tablectl is frozen (SIGSTOP), and killed once the shoe has sent a card or
	// signal it cannot have acknowledged; a shoe that sends nothing within frozenFor (it
	// waits for tablectl between two shoes) has it killed as it stands.
	const frozenFor = time.Second
	// The dealer watches the light on its own: the loop below can be slow to come back
	// (it reads the journal after each kill), and the shoe must not deal on meanwhile.
	stopWatching, watching := make(chan struct{}), make(chan struct{})
	defer func() {
		close(stopWatching)
		<-watching
	}()
	go func() {
		defer close(watching)
		dealerStops(stopWatching, sim, light)
	}()
	rng := rand.New(rand.NewPCG(2026, uint64(kills)))
	var at killMoments
	hellos := 0 // the shoe's hellos answered before the running tablectl started
	var killAt, frozenAt time.Time
	frozenWith := 0 // the shoe's unacknowledged cards and signals when tablectl was frozen
	started := time.Now()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case err := <-dealt:
			if err != nil {
				t.Fatalf("simulator: %v", err)
			}
			done = true
		case now := <-tick.C:
			switch {
			case int(killed.Load()) == kills:
			case killAt.IsZero():
				// Up and caught up: what the shoe resent is taken and acknowledged.
				if sim.ShoeHellos() > hellos && len(sim.Unacknowledged()) <= 4 {
					if os.Getenv("CRASH_DEBUG") != "" {
						t.Logf("restart took %v", now.Sub(started))
					}
					killAt = now.Add(time.Duration(20+rng.IntN(80)) * time.Millisecond)
				}
			case frozenAt.IsZero() && now.After(killAt) && killed.Load()%4 == 3 && freeze(cmd.Process) == nil:
				frozenAt, frozenWith = now, len(sim.Unacknowledged())
			case !frozenAt.IsZero() && len(sim.Unacknowledged()) <= frozenWith && now.Sub(frozenAt) < frozenFor:
				// frozen: the shoe has sent nothing new yet
			case now.After(killAt):
				frozenAt = time.Time{}
				hellos = sim.ShoeHellos()
				cmd.Process.Kill()
				cmd.Wait()
				killed.Add(1)
				if un := sim.Unacknowledged(); len(un) > 0 {
					at.inFlight++
					if os.Getenv("CRASH_DEBUG") != "" {
						t.Logf("killed with %v unacknowledged", un)
					}
				}
				if roundOpen(t, jdir) {
					at.midRound++
				}
				killAt = time.Time{}
				started = time.Now()
				cmd = start()
			}
		}
	}
	// Let the last tablectl take every card, then stop it. It acknowledges a card once
	// its records, and those of what the table did of itself on it (the round's
	// confirmation), are on disk.
	if err := sim.Taken(ctx); err != nil {
		t.Fatalf("the last tablectl did not take every card: %v", err)
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	return roundsIn(t, jdir, kills > 0), shoes, at, jdir
}

// keepOnFailure copies the journal of the run with kills to the package's artifacts
// when the test failed, to be read with tablectl journal.
func keepOnFailure(t *testing.T, jdir string) {
	if !t.Failed() {
		return
	}
	to := filepath.Join(artifacts.Dir(t), "crash-journal")
	os.RemoveAll(to)
	if err := os.CopyFS(to, os.DirFS(jdir)); err != nil {
		t.Logf("keeping the journal: %v", err)
		return
	}
	t.Logf("the journal of the run with kills is kept in %s", to)
}

// dealerStops stands for the table's tower light until stop: red, and the simulated
// dealer stops, once the shoe holds a third of the cards and signals it keeps to send
// again (shoe.ResendWindow), out again once tablectl has taken nearly all of them. However
// slowly tablectl restarts, the shoe never deals past what it keeps, so no card passes
// unrecorded.
func dealerStops(stop <-chan struct{}, sim *simulator.Simulator, light *simulator.TowerLight) {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		switch n := len(sim.Unacknowledged()); {
		case n >= shoe.ResendWindow/3 && !light.Red():
			light.Set(context.Background(), gpio.Command{Role: gpio.LightRed, Mode: gpio.ModeOn})
		case n <= 4 && light.Red():
			light.Set(context.Background(), gpio.Command{Role: gpio.LightRed, Mode: gpio.ModeOff})
		}
	}
}

// roundOpen says whether the journal ends in the middle of a round.
func roundOpen(t *testing.T, dir string) bool {
	t.Helper()
	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("journal: %v", err)
	}
	defer j.Close()
	ctl, _, err := table.Replay(j, nil)
	if err != nil || ctl == nil {
		return false // an empty journal, or a record torn by the kill: no round known open
	}
	st := ctl.State()
	return st.Phase == round.Dealing || st.Phase == round.Complete
}

// roundsIn reads a journal (read-only: tablectl may be writing it) and lists every
// round settled or voided, with its cards and result.
func roundsIn(t *testing.T, dir string, debug bool) []string {
	t.Helper()
	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("journal: %v", err)
	}
	defer j.Close()
	var out []string
	cards := map[uint64]uint64{} // card number: the record that holds it
	var last uint64              // the highest card number recorded
	_, _, err = table.ReplayRecords(j, func(seq uint64, e table.Entry, effs []round.Effect, _ *round.Controller) {
		if ev := e.Event; ev != nil && ev.Kind == round.CardDrawn && ev.Seq != 0 {
			// Each card the shoe numbered is recorded once, however often it was sent.
			if first, ok := cards[ev.Seq]; ok {
				t.Errorf("card %d is recorded twice: records %d and %d (%s)", ev.Seq, first, seq, ev)
			}
			if ev.Seq > last+1 {
				t.Errorf("cards %d to %d are not in the journal: the shoe dealt past the %d cards it keeps to send again (shoe.ResendWindow) while tablectl was down",
					last+1, ev.Seq-1, shoe.ResendWindow)
			}
			cards[ev.Seq], last = seq, max(last, ev.Seq)
		}
		for _, ef := range effs {
			switch ef.Kind {
			case round.RoundSettled:
				out = append(out, fmt.Sprintf("shoe %d round %d %v %s", ef.Shoe, ef.Round, ef.Coup(), ef.Outcome()))
			case round.RoundVoided:
				out = append(out, fmt.Sprintf("shoe %d round %d void: %s", ef.Shoe, ef.Round, ef.Reason()))
			case round.IrregularityRaised, round.CardNotDue, round.EventRefused, round.ShoeStarted, round.ShoeEnded, round.ShoeFinished, round.Resumed:
				if debug && os.Getenv("CRASH_DEBUG") != "" {
					t.Logf("%s -> %s", e.Event, ef)
				}
			}
		}
	})
	if err != nil && !strings.Contains(err.Error(), "torn") {
		t.Fatalf("journal: %v", err)
	}
	return out
}
