package tablecmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/daemon"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/round"
)

// runWatch reads a shoe (and a shuffler) through the real drivers, runs the table on
// what they report, and prints every effect: a bench check of the devices and the rules,
// with no broker, on a temporary journal unless --journal names one.
func runWatch(ctx context.Context, args []string, io cli.Stdio) error {
	fs := newFlagSet("watch", io)
	f := config.Flags{TempJournal: true}
	fs.StringVar(&f.Shoe, "shoe", "", "the shoe's serial port (required)")
	fs.StringVar(&f.ShoeFormat, "shoe-format", "tablectl", "the shoe's wire format: "+shoe.FormatNames())
	fs.IntVar(&f.Decks, "decks", 0, fmt.Sprintf("decks in a set: with no --shuffler, the deck count of each shoe (0: %d)", config.NoShufflerDecks))
	burn := fs.String("burn", "", "the burn: first-card, fixed:N, none or shoe (the shoe's burn mode); default shoe for a format with a burn mode (beetek), else first-card")
	fs.IntVar(&f.Baud, "baud", 9600, "the serial ports' speed")
	fs.StringVar(&f.Shuffler, "shuffler", "", "the shuffler's serial port (optional)")
	fs.StringVar(&f.Rules, "rules", "classic", "rule set: "+fmt.Sprint(baccarat.Names))
	fs.BoolVar(&f.Auto, "auto", true, "stand in for the dealer's buttons: close betting on a round's first card, close Insurance offers at once (or after --insurance-pause), confirm each complete round")
	fs.DurationVar(&f.InsurancePause, "insurance-pause", 0, "with --auto: how long each Insurance offer stays open before it is closed (0: at once)")
	fs.DurationVar(&f.OptionsPause, "options-pause", config.DefaultOptionsPause, "with --auto: how long the players' options window of RWS Baccarat 5.12 stays open before it is closed, the boxes that chose nothing continuing")
	showDevice := fs.Bool("device-events", false, "also print the drivers' own events")
	sim := simulationFlags(fs, &f, 300*time.Millisecond)
	fs.StringVar(&f.Journal, "journal", "", "journal every event in this directory, and start from what it holds (replayed, then RWS Baccarat 5.4 for an interrupted round)")
	fs.DurationVar(&f.SimultaneousWindow, "simultaneous-window", 150*time.Millisecond, "two cards of a round read closer together than this were drawn together (RWS Baccarat 5.10); 0 turns the check off, as a simulator dealing at --pace 0 needs")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if !f.Simulate && f.Shoe == "" {
		return errors.New("watch: --shoe is required (or --simulate)")
	}
	f.Given = cli.Given(fs)
	if err := sim.check(); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	f.Given["table"], f.Table = true, "watch"
	f.Given["auto"] = true // watch stands in for the dealer unless told not to
	if err := sim.scenarioSettings(); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	base := config.Default()
	base.Journal = "" // a temporary one unless --journal names one
	r, err := config.ApplyFlags(base, false, f)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if err := watchBurn(&r.Round, *burn, shoe.Format(f.ShoeFormat)); err != nil {
		return fmt.Errorf("watch: --burn: %w", err)
	}
	sim.insurance = dealerInsurance(r)
	if r.TempJournal {
		tmp, err := os.MkdirTemp("", "tablectl-watch-")
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		defer os.RemoveAll(tmp)
		r.Journal = tmp
	}
	if err := absolute(&r.Config); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	log := slog.New(slog.NewTextHandler(io.Err, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if r.NoShuffler() {
		log.Warn(config.NoShufflerChecksOff, "decks", r.Round.Decks, "shoe starts at its first card", r.Round.ShoeOnFirstCard)
	}
	cfg := daemonConfig(r, sim, log, io.Out)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var dealt <-chan error
	begin := make(chan struct{}) // the simulator deals once the table's loop runs
	if r.Simulate {
		var stop func()
		if cfg.Shoe, cfg.Shuffler, dealt, stop, err = sim.start(ctx, r.SimDecks, begin, log); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		defer stop() // after the drivers are closed (defers run last first)
	}
	d, err := daemon.Open(cfg)
	if err != nil {
		return fmt.Errorf("watch: %w", err) // it names the journal
	}
	defer d.Close()
	if err := sim.resume(d.State(), r.Journal); err != nil {
		return fmt.Errorf("watch: --simulate: %w", err)
	}
	if !r.TempJournal {
		fmt.Fprintf(io.Out, "journal %s: %d records replayed\n", r.Journal, d.Replayed())
	}
	d.OnConnect(daemon.NoBroker{}) // the messages go nowhere
	var show func(string, device.Event)
	if *showDevice {
		show = func(name string, ev device.Event) {
			fmt.Fprintf(io.Out, "%s %s: %s\n", ev.Time.Format(time.TimeOnly), name, ev)
		}
	}
	devs, err := startDevices(cfg.Shoe, cfg.Shuffler, d, log, show)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer devs.close()
	return serve(ctx, cancel, d, sim.transport(ctx, daemon.NoBroker{}, d), devs, begin, dealt, log)
}

// watchBurn sets rc's burn rule from --burn: first-card, fixed:N, none or shoe; "" keeps
// the configuration's (the shoe's burn mode where its format has one).
func watchBurn(rc *round.Config, burn string, format shoe.Format) error {
	if burn == "" {
		return nil
	}
	name, count, fixed := strings.Cut(burn, ":")
	if err := rc.Burn.UnmarshalText([]byte(name)); err != nil {
		return err
	}
	switch {
	case fixed != (rc.Burn == round.BurnFixed):
		return fmt.Errorf("%q: fixed takes its count, fixed:N, and only fixed does", burn)
	case fixed:
		n, err := strconv.Atoi(count)
		if err != nil || n < 1 || n > 52 {
			return fmt.Errorf("%q: a fixed burn takes 1 to 52 cards", burn)
		}
		rc.BurnCount = n
	case rc.Burn == round.BurnShoe && !format.BurnMode():
		return fmt.Errorf("shoe: the %s format has no burn mode", format)
	}
	return nil
}
