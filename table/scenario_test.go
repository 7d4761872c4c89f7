package table

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/simulator"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var rewrite = flag.Bool("rewrite", false, "rewrite the expected effects of testdata/scenarios/*.txt")

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestScenarios plays each testdata/scenarios/*.txt script on the simulator, reads it
// through the real shoe and shuffler drivers over pseudo-terminals, runs the table on
// what they report, and checks every round effect against the transcript after the
// script's "----" line. Each file names the rule it exercises. The table deals under the
// rule set named by a "# rules: NAME" line (default rws), closes betting on the first
// card and confirms each complete round by itself. A "# quiet" line leaves the ordinary
// round effects out of the transcript (for scenarios that deal a whole shoe).
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			script, want, _ := strings.Cut(string(data), "\n----\n")
			rules, quietRounds := "rws", false
			for _, l := range strings.Split(script, "\n") {
				if r, ok := strings.CutPrefix(l, "# rules: "); ok {
					rules = strings.TrimSpace(r)
				}
				quietRounds = quietRounds || strings.TrimSpace(l) == "# quiet"
			}
			sc, err := simulator.ParseScenario(strings.NewReader(script))
			if err != nil {
				t.Fatal(err)
			}
			got := playScenario(t, sc, rules, quietRounds)
			if *rewrite {
				if err := os.WriteFile(f, []byte(script+"\n----\n"+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("%s:\n--- want\n%s--- got\n%s", f, want, got)
			}
		})
	}
}

// forward passes a driver's events on, and closes gone once the driver's n-th
// Disconnected has been passed on (or its channel ends). With after set, a Disconnected
// waits for after to close before it is passed on.
func forward(in <-chan device.Event, n int, after <-chan struct{}) (<-chan device.Event, <-chan struct{}) {
	out, gone := make(chan device.Event), make(chan struct{})
	go func() {
		defer close(out)
		for ev := range in {
			if ev.Kind == device.Disconnected && after != nil {
				<-after
			}
			out <- ev
			if ev.Kind == device.Disconnected {
				if n--; n == 0 {
					close(gone)
				}
			}
		}
		if n > 0 {
			close(gone)
		}
	}()
	return out, gone
}

// runNode feeds a node the events of a shoe and a shuffler until both channels close,
// as the daemon's loop does, handing each Ready to each before advancing; there is no
// journal. The node's own wait for a report (Config.ReportWait) is off: it waits here. What the shuffler reported before a card is taken
// before it. A card drawn while the table waits for a set (Node.BeforeSet) waits, with
// every shoe event after it, for a shuffler event that lets the table load the set: the
// shuffler's driver may have read the set's report and not yet handed it on when the
// set's first card comes. They are taken as they came once no report can come: the
// shuffler's line went down or its channel closed. (The daemon's wait also runs out
// after a while; here the simulator's shuffler goes down only once it has said all.)
func runNode(n *Node, shoe, shuffler <-chan device.Event, each func(Ready)) {
	var early []device.Event // shoe events waiting for a shuffler report
	carry := func() {
		each(n.Ready())
		n.Advance()
	}
	// release steps the waiting events, in order, up to the first still before its set's
	// report; with all, every one of them.
	release := func(all bool) {
		for len(early) > 0 && (all || shuffler == nil || !n.BeforeSet(early[0])) {
			ev := early[0]
			early = early[1:]
			n.Shoe(ev)
			carry()
		}
	}
	onShuffler := func(ev device.Event, ok bool) {
		if !ok {
			shuffler = nil
			release(true)
			return
		}
		if ev.Kind == device.Disconnected {
			release(true) // no report can come now
		}
		n.Shuffler(ev)
		carry()
		release(false)
	}
	drain := func() {
		for shuffler != nil {
			select {
			case ev, ok := <-shuffler:
				onShuffler(ev, ok)
			default:
				return
			}
		}
	}
	for shoe != nil || shuffler != nil {
		select {
		case ev, ok := <-shoe:
			if !ok {
				shoe = nil
				continue
			}
			drain()
			if len(early) > 0 || shuffler != nil && n.BeforeSet(ev) {
				early = append(early, ev)
				continue
			}
			n.Shoe(ev)
			carry()
		case ev, ok := <-shuffler:
			onShuffler(ev, ok)
		}
	}
	release(true)
}

// routine are the effects of an ordinary round, left out of a "# quiet" transcript.
var routine = map[round.EffectKind]bool{round.CardBurned: true, round.CardPlaced: true, round.BettingOpened: true,
	round.BettingClosed: true, round.RoundComplete: true, round.RoundSettled: true}

func playScenario(t *testing.T, sc *simulator.Scenario, rules string, quietRounds bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sim, err := simulator.New(simulator.Config{Dir: t.TempDir(), Protocol: sc.Protocol, Seed: sc.Seed,
		Decks: sc.Decks, Cut: sc.Cut, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	opt := device.Options{Logger: quiet, MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond}
	port := device.Config{Path: sim.Shoe.Link, ReadTimeout: 50 * time.Millisecond}
	format := sc.Protocol
	if format == "" {
		format = shoe.Tablectl
	}
	shoeDrv, err := shoe.Start(shoe.Config{Format: format, Port: port}, opt)
	if err != nil {
		t.Fatal(err)
	}
	port.Path = sim.Shuffler.Link
	shufDrv, err := shuffler.Start(port, opt)
	if err != nil {
		t.Fatal(err)
	}

	rc := round.DefaultConfig(baccarat.MustLookup(rules, baccarat.Options{}))
	rc.CloseBetsOnFirstCard = true
	rc.SimultaneousWindow = 0 // the simulator deals as fast as it can
	var lines []string
	tbl, err := New(Config{Table: "T1", NoMessages: true, Round: rc, AutoConfirm: true, AutoCloseInsurance: true, Unnumbered: !format.Numbered(), UnreadableIsCard: !format.TellsMisreads()})
	if err != nil {
		t.Fatal(err)
	}
	// Forward each driver's events to the table, saying when its Disconnected has gone
	// through: everything the driver read before the simulator unplugged is then with
	// the table.
	unplugs := 0
	for _, st := range sc.Steps {
		if st.Op == "unplug" {
			unplugs++
		}
	}
	shoeCh, shoeGone := forward(shoeDrv.Events(), unplugs+1, nil)
	// The simulator unplugs both devices at once when it closes; the shuffler's
	// Disconnected goes to the table after every event the shoe sent, as a table would
	// see it were the shoe unplugged first, so that it never lands within the last round.
	shufCh, shufGone := forward(shufDrv.Events(), 1, shoeGone)
	var wg sync.WaitGroup
	wg.Add(1)
	var runErr error
	go func() {
		defer wg.Done()
		runNode(tbl, shoeCh, shufCh, func(rd Ready) {
			for _, s := range rd.Steps {
				for _, e := range s.Effects {
					if (e.Kind != round.CardBurned || showBurn) && !(quietRounds && routine[e.Kind]) {
						lines = append(lines, e.String())
					}
				}
			}
		})
	}()
	err = sim.Connect(ctx)
	if err == nil {
		err = sim.Run(ctx, sc.Steps)
	}
	if err == nil {
		err = sim.Drain(ctx)
	}
	if err2 := sim.Close(); err == nil {
		err = err2
	}
	for _, gone := range []<-chan struct{}{shoeGone, shufGone} {
		select {
		case <-gone:
		case <-ctx.Done():
			t.Fatal("a driver never reported the unplugged simulator")
		}
	}
	if err2 := shoeDrv.Close(); err == nil {
		err = err2
	}
	if err2 := shufDrv.Close(); err == nil {
		err = err2
	}
	wg.Wait()
	if err != nil || runErr != nil {
		t.Fatalf("scenario: %v, table: %v", err, runErr)
	}
	return strings.Join(lines, "\n") + "\n"
}
