package tablecmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/board"
	"github.com/tablectl/tablectl/broker"
	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/daemon"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/metrics"
	"github.com/tablectl/tablectl/simulator"
)

// daemonConfig is the daemon's configuration for r, the same for run and watch: the
// table and its game, the dealer's stand-ins, the journal and the devices. With --auto
// the table confirms each round, unless sim's scenario has the dealer confirm. trace,
// when set, receives every effect (watch prints them). What run alone sets (the service
// watchdog, the signing key, the broker's head, metrics) it sets on the result.
func daemonConfig(r config.Run, sim *simulation, log *slog.Logger, trace io.Writer) daemon.Config {
	return daemon.Config{
		Table:              r.Table,
		Round:              r.Round,
		AutoConfirm:        r.Dealer.Auto && !sim.dealerConfirms(),
		AutoCloseInsurance: r.Dealer.Auto,
		InsurancePause:     r.Dealer.InsurancePause,
		AutoCloseOptions:   r.Dealer.Auto,
		OptionsPause:       r.Dealer.OptionsPause,
		JournalDir:         r.Journal,
		Logger:             log,
		Shoe:               r.ShoeConfig(),
		Shuffler:           r.ShufflerConfig(),
		Trace:              trace,
	}
}

// simulation is the flags of a simulated table (run and watch share them).
type simulation struct {
	f      *config.Flags
	rounds *int
	seed   *uint64
	// light is the table's tower light the simulated dealer watches (it stops dealing
	// while the table is held), once start made it; the table's panel.
	light *simulator.TowerLight
	// scn is --scenario's file, read (scenarioSettings); table carries out its table
	// actions, when it has any; insurance is how the dealer deals at Insurance offers.
	scn       *simulator.Scenario
	table     *scenarioTable
	insurance simulator.Insurance
	// reshuffle: a set per round (royal.end_of_round: reshuffle), set before start.
	reshuffle bool
	// roundPause is --round-pause; resultHold the board's result hold, which the dealer
	// leaves after each round unless --round-pause is given or the pace is 0 (set
	// before start).
	roundPause *time.Duration
	resultHold time.Duration
	// sim is the simulator, once start made it.
	sim *simulator.Simulator
	// dealers, rotate and dealerBreak are --dealers, --rotate and --dealer-break; orders,
	// riffles and bankerBias --orders, --riffles and --banker-bias.
	dealers      *string
	rotate       *int
	dealerBreak  *time.Duration
	orders       *string
	riffles      *int
	bankerBias   *float64
	shuffleDelay *time.Duration
	// misreadEvery and misreadHold are --misread-every and --misread-hold.
	misreadEvery *int
	misreadHold  *time.Duration
	// tamperSet, removeCards and addCards are --tamper-set, --remove-card and --add-card.
	tamperSet   *uint
	removeCards *string
	addCards    *string
	// countOnly is --count-only.
	countOnly *bool
}

func simulationFlags(fs *flag.FlagSet, f *config.Flags, pace time.Duration) *simulation {
	s := &simulation{f: f}
	fs.BoolVar(&f.Simulate, "simulate", false, "deal from a simulated shoe and shuffler started in-process (in place of the file's devices)")
	fs.DurationVar(&f.Pace, "pace", pace, "with --simulate: pause before each card (0: as fast as possible)")
	s.rounds = fs.Int("rounds", 0, "with --simulate: stop after this many rounds (0: until interrupted)")
	s.seed = fs.Uint64("seed", 1, "with --simulate: seed of the shuffles")
	s.roundPause = fs.Duration("round-pause", 0, "with --simulate: the dealer's pause between a round's last card and the next card, so a board shows each result (default: run, the board's result_hold, 0 with --pace 0; watch, 0)")
	s.dealers = fs.String("dealers", "", "with --simulate: the dealers who take turns at the table, as D-ANA,D-BEN (none: no dealer takes the table)")
	s.rotate = fs.Int("rotate", 0, "with --simulate and --dealers: the next dealer relieves the dealer on every this many rounds (0: never)")
	s.dealerBreak = fs.Duration("dealer-break", 0, "with --simulate and --dealers: at each rotation the table has no dealer on for this long")
	s.shuffleDelay = fs.Duration("shuffle-delay", 0, "with --simulate: a shuffler that reports each set after the first this long after the shoe is taken")
	s.misreadEvery = fs.Int("misread-every", 0, "with --simulate: a shoe that fails to read a card every this many cards, in a round's dealing; the table holds for it and a simulated supervisor lets play go on (0: every card read)")
	s.misreadHold = fs.Duration("misread-hold", 0, "with --simulate and --misread-every: how long the table stands held for each unread card before the supervisor's decision")
	s.countOnly = fs.Bool("count-only", false, "with --simulate: a shuffler that reports each set's count of cards, not its order")
	s.tamperSet = fs.Uint("tamper-set", 1, "with --simulate and --remove-card or --add-card: the set tampered with, counting from the first")
	s.removeCards = fs.String("remove-card", "", "with --simulate: take these cards (\"7H\" or \"7H KD\") out of a set after the shuffler reported it, as a palmed card; a simulated supervisor lets play go on at each hold")
	s.addCards = fs.String("add-card", "", "with --simulate: put these cards into a set after the shuffler reported it, as a card slipped in")
	s.orders = fs.String("orders", "", "with --simulate: deal the sets of this file of cards in turn, one set a line, before shuffled ones (docs/simulator.md)")
	s.riffles = fs.Int("riffles", 0, "with --simulate: a weak shuffler: each set after the first is the last set riffled this many times (0: thoroughly shuffled)")
	s.bankerBias = fs.Float64("banker-bias", 0, "with --simulate: the share of rounds, 0 to 1, the sets are arranged to make Banker win")
	fs.StringVar(&f.Scenario, "scenario", "", "with --simulate: play this scenario file (go doc ./simulator Scenario) instead of dealing shoes, then stop; its settings replace --shoe-format, --decks and --seed, and --rules, --insurance-pause and --options-pause where it gives them")
	return s
}

// pauseAfterRound is the simulated dealer's pause after each round: --round-pause when
// given, else the board's result hold, or none at --pace 0 (a run as fast as it goes).
func (s *simulation) pauseAfterRound() time.Duration {
	switch {
	case s.f.Given["round-pause"]:
		return *s.roundPause
	case s.f.Pace == 0:
		return 0
	}
	return s.resultHold
}

// check refuses a negative --rounds, --pace or --round-pause.
func (s *simulation) check() error {
	switch {
	case *s.rounds < 0:
		return fmt.Errorf("--rounds %d: want 0 (until interrupted) or more", *s.rounds)
	case s.f.Pace < 0:
		return fmt.Errorf("--pace %s: want 0 (as fast as possible) or more", s.f.Pace)
	case *s.roundPause < 0:
		return fmt.Errorf("--round-pause %s: want 0 or more", *s.roundPause)
	case *s.riffles < 0:
		return fmt.Errorf("--riffles %d: want 0 (thoroughly shuffled) or more", *s.riffles)
	case *s.bankerBias < 0 || *s.bankerBias > 1:
		return fmt.Errorf("--banker-bias %g: want 0 to 1", *s.bankerBias)
	case *s.shuffleDelay < 0:
		return fmt.Errorf("--shuffle-delay %s: want 0 or more", *s.shuffleDelay)
	case *s.misreadEvery < 0 || *s.misreadEvery == 1:
		return fmt.Errorf("--misread-every %d: want 0 (every card read) or 2 or more", *s.misreadEvery)
	case *s.misreadHold < 0:
		return fmt.Errorf("--misread-hold %s: want 0 or more", *s.misreadHold)
	}
	if err := s.dealerTurns().Check(); err != nil {
		return fmt.Errorf("--dealers, --rotate, --dealer-break: %w", err)
	}
	if _, err := s.tamper(); err != nil {
		return err
	}
	return nil
}

// tamper is the set changed of --tamper-set, --remove-card and --add-card.
func (s *simulation) tamper() (simulator.Tamper, error) {
	return tamperFlags(*s.tamperSet, *s.removeCards, *s.addCards)
}

// tamperFlags is the simulator's Tamper of set, the cards to remove and the cards to
// add, as the flags give them; a bad card or a set beyond 2^32 is named with its flag.
func tamperFlags(set uint, remove, add string) (simulator.Tamper, error) {
	var t simulator.Tamper
	var err error
	if strings.TrimSpace(remove) != "" {
		if t.Remove, err = baccarat.ParseCards(remove); err != nil {
			return t, fmt.Errorf("--remove-card %q: %w", remove, err)
		}
	}
	if strings.TrimSpace(add) != "" {
		if t.Add, err = baccarat.ParseCards(add); err != nil {
			return t, fmt.Errorf("--add-card %q: %w", add, err)
		}
	}
	if len(t.Remove)+len(t.Add) == 0 {
		return simulator.Tamper{}, nil
	}
	if set == 0 || set > math.MaxUint32 {
		return t, fmt.Errorf("--tamper-set %d: want a set from 1", set)
	}
	t.Set = uint32(set)
	return t, nil
}

// dealerTurns are the simulated dealers of --dealers, --rotate and --dealer-break.
func (s *simulation) dealerTurns() simulator.Dealers {
	d := simulator.Dealers{Rotate: *s.rotate, Break: *s.dealerBreak}
	if *s.dealers != "" {
		d.Names = strings.Split(*s.dealers, ",")
	}
	return d
}

// start starts the simulator and returns its devices; it deals once begin is closed, and
// dealt receives the end of its dealing. stop stops it: call it once the drivers are
// closed.
func (s *simulation) start(ctx context.Context, decks int, begin <-chan struct{}, log *slog.Logger) (sc *shoe.Config, xc *device.Config, dealt <-chan error, stop func(), err error) {
	s.light = simulator.NewTowerLight(log)
	// The table acknowledges each card once it has recorded it: the shoe waits for that
	// before the next set is shuffled.
	cfg := simulator.Config{Protocol: shoe.Format(s.f.ShoeFormat), Seed: *s.seed, Pace: s.f.Pace, Decks: decks, Cut: 16, Light: s.light,
		Insurance: s.insurance, Logger: log, ReshuffleEachRound: s.reshuffle, RoundPause: s.pauseAfterRound(), HostAcks: true,
		Riffles: *s.riffles, BankerBias: *s.bankerBias, Dealers: s.dealerTurns(), ShuffleDelay: *s.shuffleDelay,
		MisreadEvery: *s.misreadEvery, MisreadHold: *s.misreadHold, CountOnly: *s.countOnly}
	if cfg.Tamper, err = s.tamper(); err != nil {
		return nil, nil, nil, nil, err
	}
	if *s.orders != "" {
		f, err := os.Open(*s.orders)
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("--orders: %w", err)
		}
		cfg.Orders, err = simulator.ReadOrders(f)
		f.Close()
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("--orders %s: %w", *s.orders, err)
		}
	}
	if len(cfg.Dealers.Names) > 0 || cfg.MisreadEvery > 0 || cfg.Tamper.Set != 0 {
		s.table = &scenarioTable{cmds: make(chan display.Command)}
		cfg.Table = s.table
	}
	var steps []simulator.Step
	if s.f.Scenario != "" {
		scn := s.scn
		if scn == nil {
			if scn, err = readScenario(s.f.Scenario); err != nil {
				return nil, nil, nil, nil, err
			}
		}
		cfg.Protocol, cfg.Seed, cfg.Decks, cfg.Cut, steps = scn.Protocol, scn.Seed, scn.Decks, scn.Cut, scn.Steps
		if scn.HasTableActions() && s.table == nil {
			s.table = &scenarioTable{cmds: make(chan display.Command)}
			cfg.Table = s.table
		}
	}
	done := make(chan error, 1)
	sim, stop, err := startSimulator(ctx, cfg, steps, *s.rounds, begin, done)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	s.sim = sim
	return &shoe.Config{Format: cfg.Protocol, Port: device.Config{Path: sim.Shoe.Link}}, &device.Config{Path: sim.Shuffler.Link}, done, stop, nil
}

// startSimulator starts a simulator in a temporary directory and, once begin is closed,
// plays steps on it in the background (with none, deals rounds rounds, 0 for ever); done
// receives the end of the dealing, once the host has taken every card. cleanup stops the dealing, unplugs
// the simulator and removes the directory: call it once the drivers are closed.
func startSimulator(ctx context.Context, cfg simulator.Config, steps []simulator.Step, rounds int, begin <-chan struct{}, done chan<- error) (sim *simulator.Simulator, cleanup func(), err error) {
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
		select {
		case <-begin:
		case <-ctx.Done():
		}
		if err == nil && steps != nil {
			err = sim.Run(ctx, steps)
		} else if err == nil {
			err = sim.Play(ctx, rounds)
		}
		if err == nil {
			err = sim.Drain(ctx)
		}
		if err == nil {
			err = sim.Taken(ctx) // every card recorded, where the host acknowledges
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

// devices are the shoe's and shuffler's drivers, running.
type devices struct {
	shoe, shuffler <-chan device.Event
	closers        []func() error
}

func (ds *devices) close() {
	for i := len(ds.closers) - 1; i >= 0; i-- {
		ds.closers[i]()
	}
}

// startDevices starts the drivers of the shoe and the shuffler (nil: none); the shoe's
// cards and signals are acknowledged once d has recorded them. show, when set, sees
// every driver event as it passes.
func startDevices(sc *shoe.Config, xc *device.Config, d *daemon.Daemon, log *slog.Logger, show func(name string, ev device.Event)) (*devices, error) {
	ds := &devices{}
	opts := func(name string) device.Options { return device.Options{Name: name, Logger: log} }
	if sc != nil {
		sd, err := shoe.Start(*sc, opts("shoe"))
		if err != nil {
			return nil, fmt.Errorf("shoe: %w", err)
		}
		ds.closers = append(ds.closers, sd.Close)
		ds.shoe = tap(sd.Events(), "shoe", show)
		d.SetShoe(sd) // while the port is down the shoe keeps a card and resends it after the next hello
	}
	if xc != nil {
		xd, err := shuffler.Start(*xc, opts("shuffler"))
		if err != nil {
			ds.close()
			return nil, fmt.Errorf("shuffler: %w", err)
		}
		ds.closers = append(ds.closers, xd.Close)
		ds.shuffler = tap(xd.Events(), "shuffler", show)
	}
	return ds, nil
}

// tap hands each event to show as it passes, when show is set.
func tap(in <-chan device.Event, name string, show func(string, device.Event)) <-chan device.Event {
	if show == nil {
		return in
	}
	out := make(chan device.Event)
	go func() {
		defer close(out)
		for ev := range in {
			show(name, ev)
			out <- ev
		}
	}()
	return out
}

// openPanel opens the GPIO pins of the configuration for d, if it names any.
// With a simulation's tower light, the light is the daemon's panel, over the GPIO one.
func openPanel(ctx context.Context, c config.Config, d *daemon.Daemon, light *simulator.TowerLight, log *slog.Logger) (stop func(), err error) {
	stop = func() {}
	var panel *gpio.Driver
	if len(c.GPIO.Pins) > 0 {
		gc := c.GPIOConfig()
		gc.Logger = log
		panel, err = gpio.Open(ctx, gc)
		switch {
		case errors.Is(err, gpio.ErrAbsent):
			log.Warn("the configuration names GPIO pins, but this machine has no GPIO: running without buttons, sensors, tower light or buzzer", "err", err)
			panel = nil
		case err != nil:
			return nil, err
		default:
			stop = func() { panel.Close() }
		}
	}
	// The light is set as the daemon gets it (the state the journal left), so the GPIO
	// panel it hands on to is put under it first.
	switch {
	case light != nil:
		if panel != nil {
			light.Over(panel)
		}
		d.SetPanel(light)
	case panel != nil:
		d.SetPanel(panel)
	}
	return stop, nil
}

// brokerURL is the external broker's URL, or the embedded broker's, started.
func brokerURL(ctx context.Context, c config.Config, password string, log *slog.Logger, io cli.Stdio) (mc mqttLogins, stop func(), err error) {
	if c.MQTT.URL != "" {
		return mqttLogins{url: c.MQTT.URL, user: c.MQTTUsername(), password: password,
			boardUser: c.MQTTUsername(), boardPassword: password}, func() {}, nil
	}
	b, err := broker.Start(context.WithoutCancel(ctx), embeddedBroker(c, log))
	if err != nil {
		if errors.Is(err, broker.ErrAddressInUse) {
			return mqttLogins{}, nil, fmt.Errorf("embedded broker: %w (choose another with --broker-listen or --broker-websocket, or use an external broker with --mqtt)", err)
		}
		return mqttLogins{}, nil, fmt.Errorf("embedded broker: %w", err)
	}
	fmt.Fprintf(io.Out, "embedded MQTT broker: %s", b.URL())
	if c.Broker.WebSocket != "" {
		fmt.Fprintf(io.Out, ", WebSocket %s", b.WebSocketURL())
	}
	fmt.Fprintln(io.Out)
	// tablectl logs in as itself; the board reads in process, through the broker's own
	// subscription.
	return mqttLogins{url: b.URL(), user: broker.SelfUser, password: b.SelfPassword(), inProcess: b.Publish, source: b}, func() { b.Close() }, nil
}

// mqttLogins are the broker's address and who logs in to it: tablectl itself, and its
// display board.
type mqttLogins struct {
	url, user, password      string
	boardUser, boardPassword string
	// inProcess publishes through the embedded broker in this process; nil for an
	// external broker.
	inProcess func(topic string, payload []byte, retained bool) error
	// source feeds the board in process from the embedded broker; nil for an external
	// broker.
	source board.Source
}

// serveMetrics serves m at addr/metrics.
func serveMetrics(addr string, m *metrics.Metrics, log *slog.Logger, io cli.Stdio) (stop func(), err error) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	stop, bound, err := serveHTTP(addr, mux, log)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(io.Out, "metrics: http://%s/metrics\n", bound)
	return stop, nil
}

// serve runs d's loop on the devices until ctx is done; with a simulation (dealt not
// nil), until it has dealt and the table has taken and published everything. begin is
// closed as the loop starts: a simulator deals from then on.
func serve(ctx context.Context, cancel context.CancelFunc, d *daemon.Daemon, tr daemon.Transport, devs *devices, begin chan<- struct{}, dealt <-chan error, log *slog.Logger) error {
	served := make(chan error, 1)
	go func() { served <- d.Serve(ctx, tr, devs.shoe, devs.shuffler) }()
	close(begin)
	select {
	case err := <-served:
		return err
	case err := <-dealt:
		// Dealt to the end, the table publishes all it has before it stops; stopped by
		// an interrupt, it stops at once, as a table does.
		if err == nil && ctx.Err() == nil {
			drained, stop := context.WithTimeout(ctx, time.Minute) // a busy broker, or a busy machine, takes its time
			if err := d.Drained(drained); err != nil {
				log.Warn("messages not all acknowledged by the broker", "err", err)
			} else if err := d.Archived(drained); err != nil {
				log.Warn("the journal is not all in the floor's archive; the table sends the rest at its next start", "err", err)
			} else if d.Shipping() {
				_ = d.Drained(drained) // the status that says the archive holds everything
			}
			stop()
		}
		cancel()
		return errors.Join(err, <-served)
	}
}
