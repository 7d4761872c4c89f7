package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/simulator"
	"github.com/tablectl/tablectl/table"
)

// runWatch reads a shoe (and a shuffler) through the real drivers, runs the round
// controller on what they report, and prints every effect: a bench check of the devices
// and the rules, with no broker and no journal.
func runWatch(ctx context.Context, args []string, io stdio) error {
	fs := newFlagSet("watch", io)
	shoePath := fs.String("shoe", "", "the shoe's serial port (required)")
	format := fs.String("shoe-format", "tablectl", "the shoe's wire format: tablectl, ascii or scanner")
	baud := fs.Int("baud", 9600, "the serial ports' speed")
	shufflerPath := fs.String("shuffler", "", "the shuffler's serial port (optional)")
	rules := fs.String("rules", "classic", "rule set: "+fmt.Sprint(baccarat.Names))
	insurancePause := fs.Duration("insurance-pause", 0, "with --auto: how long each Insurance offer stays open before it is closed (0: at once)")
	auto := fs.Bool("auto", true, "stand in for the dealer's buttons: close betting on a round's first card, close Insurance offers at once, confirm each complete round")
	showDevice := fs.Bool("device-events", false, "also print the drivers' own events")
	simulate := fs.Bool("simulate", false, "start a simulated shoe and shuffler in-process and watch them (no --shoe needed)")
	rounds := fs.Int("rounds", 0, "with --simulate: stop after this many rounds (0: until interrupted)")
	pace := fs.Duration("pace", 300*time.Millisecond, "with --simulate: pause before each card (0: as fast as possible)")
	seed := fs.Uint64("seed", 1, "with --simulate: seed of the shuffles")
	journalDir := fs.String("journal", "", "journal every event in this directory, and start from what it holds (replayed, then RWS Baccarat 5.4 for an interrupted round)")
	window := fs.Duration("simultaneous-window", 150*time.Millisecond, "two cards of a round read closer together than this were drawn together (RWS Baccarat 5.10); 0 turns the check off, as a simulator dealing at --pace 0 needs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *simulate {
		if *shoePath != "" || *shufflerPath != "" {
			return errors.New("watch: --simulate brings its own devices: leave out --shoe and --shuffler")
		}
		if *window >= *pace && *window > 0 {
			*window = 0 // the simulator deals faster than any dealer: its cards are not drawn together
		}
	} else if *shoePath == "" {
		return errors.New("watch: --shoe is required (or --simulate)")
	}
	rs, err := baccarat.Lookup(*rules, baccarat.Options{})
	if err != nil {
		return fmt.Errorf("watch: --rules: %w", err)
	}
	rc := round.DefaultConfig(rs)
	rc.CloseBetsOnFirstCard = *auto
	rc.SimultaneousWindow = *window
	log := slog.New(slog.NewTextHandler(io.err, nil))
	tcfg := table.Config{Round: rc, AutoConfirm: *auto, AutoCloseInsurance: *auto, InsurancePause: *insurancePause, Seqless: *format != "tablectl",
		Handler: func(ev round.Event, effs []round.Effect, _ round.State) {
			for _, e := range effs {
				fmt.Fprintf(io.out, "%s %s\n", ev.At.Format("15:04:05.000"), e)
			}
		}}
	var tbl *table.Table
	if *journalDir != "" {
		j, rep, err := journal.Open(*journalDir, journal.Options{Logger: log})
		if err != nil {
			return fmt.Errorf("watch: --journal: %w", err)
		}
		defer j.Close()
		if rep.Torn != nil {
			log.Warn("journal: torn tail truncated", "file", rep.Torn.File, "offset", rep.Torn.Offset, "bytes", rep.Torn.Bytes)
		}
		if tbl, err = table.Start(tcfg, j, "watch", nil); err != nil {
			return fmt.Errorf("watch: --journal %s: %w", *journalDir, err)
		}
		fmt.Fprintf(io.out, "journal %s: %d records replayed\n", *journalDir, rep.Records)
	} else if tbl, err = table.New(tcfg); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	opts := func(name string) device.Options { return device.Options{Name: name, Logger: log} }
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	simDone := make(chan error, 1)
	if *simulate {
		sim, cleanup, err := startSimulator(ctx, simulator.Config{Protocol: *format, Seed: *seed, Pace: *pace, Cut: 16, Logger: log}, *rounds, simDone)
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		defer cleanup() // after the drivers are closed (defers run last first)
		*shoePath, *shufflerPath = sim.Shoe.Link, sim.Shuffler.Link
	} else {
		simDone = nil
	}
	sd, err := shoe.Start(shoe.Config{Format: *format, Port: device.Config{Path: *shoePath, Baud: *baud}}, opts("shoe"))
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer sd.Close()
	tbl.SetAck(func(ev device.Event) { _ = sd.Ack(ev) }) // after each card is recorded (or stepped)
	shoeEvents := tap(sd.Events(), *showDevice, "shoe", io)
	var shufflerEvents <-chan device.Event
	if *shufflerPath != "" {
		xd, err := shuffler.Start(device.Config{Path: *shufflerPath, Baud: *baud}, opts("shuffler"))
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		defer xd.Close()
		shufflerEvents = tap(xd.Events(), *showDevice, "shuffler", io)
	}
	runDone := make(chan error, 1)
	go func() { runDone <- tbl.Run(ctx, shoeEvents, shufflerEvents, nil) }()
	select {
	case err := <-runDone:
		return err
	case err := <-simDone:
		// The simulator dealt its rounds: let the table take the last events, then stop.
		if err == nil {
			waitQuiet(func() int { return 0 }, shoeEvents, shufflerEvents, 10*time.Second)
		}
		cancel()
		<-runDone
		return err
	}
}

// startSimulator starts a simulator in a temporary directory and deals rounds rounds on
// it in the background; done receives the end of the dealing. cleanup stops the
// dealing, unplugs the simulator and removes the directory: call it once the drivers are
// closed.
func startSimulator(ctx context.Context, cfg simulator.Config, rounds int, done chan<- error) (sim *simulator.Simulator, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "tablectl-simulate-")
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	cfg.Dir = dir
	sim, err = simulator.New(cfg)
	if err != nil {
		cancel()
		os.RemoveAll(dir)
		return nil, nil, err
	}
	dealt := make(chan struct{})
	go func() {
		defer close(dealt)
		err := sim.Connect(ctx)
		if err == nil {
			err = sim.Play(ctx, rounds)
		}
		if err == nil {
			err = sim.Drain(ctx)
		}
		if ctx.Err() != nil {
			err = nil
		}
		done <- err
	}()
	cleanup = func() {
		cancel()
		<-dealt
		sim.Close()
		os.RemoveAll(dir)
	}
	return sim, cleanup, nil
}

// tap prints a driver's events as they pass, when show is set.
func tap(in <-chan device.Event, show bool, name string, io stdio) <-chan device.Event {
	if !show {
		return in
	}
	out := make(chan device.Event)
	go func() {
		defer close(out)
		for ev := range in {
			fmt.Fprintf(io.out, "%s %s: %s\n", ev.Time.Format(time.TimeOnly), name, ev)
			out <- ev
		}
	}()
	return out
}
