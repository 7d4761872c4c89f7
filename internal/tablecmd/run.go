package tablecmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tablectl/tablectl/board"
	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/daemon"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/metrics"
	"github.com/tablectl/tablectl/round"
)

// runRun runs the table: devices (or the simulator), the journal, the round controller
// and MQTT (an external broker, or the embedded one).
func runRun(ctx context.Context, args []string, io cli.Stdio) error {
	fs := newFlagSet("run", io)
	f, configFile, sim := runFlags(fs)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("run: unexpected argument %q", fs.Arg(0))
	}
	f.Given = cli.Given(fs)
	if err := sim.check(); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if err := sim.scenarioSettings(); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	r, err := config.Resolve(*configFile, *f)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	sim.defaultInsurancePause(&r)
	sim.defaultOptionsPause(&r)
	sim.insurance = dealerInsurance(r)
	sim.resultHold = r.Board.ResultHold
	if r.TempJournal {
		tmp, err := os.MkdirTemp("", "tablectl-journal-")
		if err != nil {
			return fmt.Errorf("run: %w", err)
		}
		defer os.RemoveAll(tmp)
		r.Journal = filepath.Join(tmp, "journal") // and its signing key beside it
	}
	if err := absolute(&r.Config); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	log := cli.NewLogger(r.Log.JSON, io.Err)
	if r.TempJournal {
		log.Info("journal: a new temporary one, removed at exit (--journal DIR keeps one)", "journal", r.Journal)
	} else {
		log.Info("journal", "journal", r.Journal)
	}
	if w := r.LimitsWarning(); w != "" && !r.Simulate {
		log.Warn(w)
	}
	if w := r.NoDeviceWarning(r.Simulate); w != "" {
		log.Warn(w)
	}
	if r.NoShuffler() {
		log.Info(config.NoShufflerChecksOff, "decks", r.Round.Decks, "shoe starts at its first card", r.Round.ShoeOnFirstCard)
	}
	svc, err := newServiceManager(log)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	cfg := daemonConfig(r, sim, log, nil)
	if every := svc.heartbeatEvery(); every > 0 {
		cfg.Watchdog, cfg.HeartbeatEvery = svc, every
	}
	if r.MQTT.URL != "" {
		// An external broker must deliver what the table publishes. The embedded one
		// takes the table's messages in process, past its access policy: no echo.
		cfg.EchoGrace = daemon.DefaultEchoGrace
	}
	if cfg.KeyFile, err = keyPath(r.Config); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if r.JournalKey == "" {
		cfg.OldKeyFile = journal.OldKeyPath(r.Journal)
	}
	cfg.SimulatedKey = r.Simulate
	cfg.ConfigFile = *configFile
	cfg.BrokerHead = brokerHead(ctx, r.Config, r.Password, log)
	cfg.Ship, cfg.ShipTo = r.Archive.Ship, r.Archive.To
	var d *daemon.Daemon
	if r.Metrics != "" { // scraped only once d is open: the server starts after it
		cfg.Metrics = metrics.New(func() int { n, _ := d.Pending(); return n })
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var dealt <-chan error
	begin := make(chan struct{}) // the simulator deals once the table's loop runs
	if r.Simulate {
		var stop func()
		sim.reshuffle = r.Round.SetPerRound
		if cfg.Shoe, cfg.Shuffler, dealt, stop, err = sim.start(ctx, r.SimDecks, begin, log); err != nil {
			return fmt.Errorf("run: simulator: %w", err)
		}
		defer stop()
	}
	// The journal is replayed and checked before anything is published.
	if d, err = daemon.Open(cfg); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	defer d.Close()
	if err := sim.resume(d.State(), r.Journal); err != nil {
		return fmt.Errorf("run: --simulate: %w", err)
	}
	if cfg.Metrics != nil {
		stop, err := serveMetrics(r.Metrics, cfg.Metrics, log, io)
		if err != nil {
			return fmt.Errorf("run: %w", cli.ListenError("metrics", "--metrics", r.Metrics, true, err))
		}
		defer stop()
	}
	mc, stopBroker, err := brokerURL(ctx, r.Config, r.Password, log, io)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	defer stopBroker() // after the client: its offline status goes out first
	opts := display.Options{Broker: mc.url, Table: r.Table, Username: mc.user, Password: mc.password,
		TLS:    display.TLSFiles{CAFile: r.MQTT.CA, CertFile: r.MQTT.Cert, KeyFile: r.MQTT.Key},
		Online: d.Status("online"), Offline: d.Status("offline"), OnConnect: d.OnConnect, Logger: log,
		OnlineFunc:  func() []byte { return d.StatusNow("online") },
		OfflineFunc: func() []byte { return d.StatusNow("offline") }, InProcess: mc.inProcess}
	if cfg.EchoGrace > 0 {
		opts.OnEcho = d.Echo
	}
	if d.Shipping() {
		opts.OnArchiveHeld = d.ArchiveHeld
	}
	client, err := display.Dial(opts)
	if err != nil {
		return fmt.Errorf("run: mqtt: %w", err)
	}
	defer client.Close()
	devs, err := startDevices(cfg.Shoe, cfg.Shuffler, d, log, nil)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	defer devs.close()
	if stop, err := openPanel(ctx, r.Config, d, sim.light, log); err != nil {
		return fmt.Errorf("run: gpio: %w", err)
	} else {
		defer stop()
	}
	if r.HTTP != "" {
		stop, addr, err := serveBoard(board.Options{Broker: mc.url, Source: mc.source, Table: r.Table, Username: mc.boardUser, Password: mc.boardPassword,
			Lang: r.Board.Lang, Script: r.Board.Script, Game: r.Board.Game, Logo: r.Board.Logo, ResultHold: r.Board.ResultHold, Logger: log}, r.HTTP, log)
		if err != nil {
			return fmt.Errorf("run: %w", cli.ListenError("display board (http)", "--http", r.HTTP, true, err))
		}
		defer stop()
		fmt.Fprintf(io.Out, "display board: http://%s/\n", addr)
	}
	st := d.State()
	fmt.Fprintf(io.Out, "table %s: rule set %s, journal %s (%s), MQTT topics tablectl/v1/%s/#\n",
		r.Table, r.Round.Rules.Name, r.Journal, position(st), r.Table)
	svc.ready(fmt.Sprintf("table %s: %s", r.Table, position(st)))
	defer svc.stopping() // the first of the deferred calls: before anything is closed
	return serve(ctx, cancel, d, sim.transport(ctx, client, d), devs, begin, dealt, log)
}

// serveBoard serves the web display board, fed from the table's MQTT topics, on addr.
// stop closes the board first (it ends the open event streams), then the server.
func serveBoard(opts board.Options, addr string, log *slog.Logger) (stop func(), bound string, err error) {
	b, err := board.New(opts)
	if err != nil {
		return nil, "", err
	}
	stopServer, bound, err := serveHTTP(addr, b.Handler(), log)
	if err != nil {
		b.Close()
		return nil, "", err
	}
	return func() {
		b.Close()
		stopServer()
	}, bound, nil
}

// serveHTTP serves h on addr until stop, which waits for the server to end.
func serveHTTP(addr string, h http.Handler, log *slog.Logger) (stop func(), bound string, err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("HTTP server", "addr", addr, "err", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-served
	}, ln.Addr().String(), nil
}

// runFlags defines run's flags: those config.Flags carries, the configuration file's,
// and the simulation's.
func runFlags(fs *flag.FlagSet) (f *config.Flags, configFile *string, sim *simulation) {
	f = &config.Flags{}
	def := config.Default()
	configFile = fs.String("config", "", "the configuration file (docs/config.md); the flags given override it")
	fs.StringVar(&f.Table, "table", def.Table, "the table's id, the third level of every MQTT topic")
	fs.StringVar(&f.Rules, "rules", def.Rules, "rule set: classic, rws, nc-tournament, nc-insurance, royal")
	fs.IntVar(&f.Decks, "decks", 0, "decks in a set at this table (0: any the rule set allows; the simulator deals 8)")
	fs.StringVar(&f.Journal, "journal", "", "the journal directory (default: the file's, or tablectl-journal in the working directory; with --simulate a new temporary one, never the file's, and given one already written, the simulated shoe goes on where it stopped)")
	fs.StringVar(&f.MQTT, "mqtt", "", "external MQTT broker, tcp://host:1883 or ssl://host:8883 (default: start the embedded broker)")
	fs.StringVar(&f.MQTTUser, "mqtt-user", "", "MQTT username (default: the file's mqtt.username, else the table id: each table is its own broker user)")
	fs.StringVar(&f.MQTTPassword, "mqtt-password", "", "MQTT password (or the file's password_file, or TABLECTL_MQTT_PASSWORD)")
	fs.StringVar(&f.MQTTCA, "mqtt-ca", "", "CA certificates (PEM) that sign the broker's certificate")
	fs.StringVar(&f.MQTTCert, "mqtt-cert", "", "client certificate (PEM)")
	fs.StringVar(&f.MQTTKey, "mqtt-key", "", "client certificate's key (PEM)")
	fs.StringVar(&f.BrokerListen, "broker-listen", def.Broker.Listen, "the embedded broker's MQTT address")
	fs.StringVar(&f.BrokerWebSocket, "broker-websocket", def.Broker.WebSocket, "the embedded broker's WebSocket address for browsers (\"\": none)")
	fs.StringVar(&f.Shoe, "shoe", "", "the shoe's serial port")
	fs.StringVar(&f.ShoeFormat, "shoe-format", "tablectl", "the shoe's wire format: "+shoe.FormatNames())
	fs.StringVar(&f.Shuffler, "shuffler", "", "the shuffler's serial port")
	fs.IntVar(&f.Baud, "baud", 9600, "the serial ports' speed")
	fs.BoolVar(&f.Auto, "auto", false, "stand in for the dealer's buttons: close betting on a round's first card, close Insurance at once (or after --insurance-pause), confirm each complete round (default with --simulate)")
	fs.DurationVar(&f.InsurancePause, "insurance-pause", def.Dealer.InsurancePause, "with --auto: how long each Insurance offer stays open before it is closed (0: at once; with --simulate at a table that offers Insurance, 1s unless given)")
	fs.DurationVar(&f.OptionsPause, "options-pause", def.Dealer.OptionsPause, "with --auto: how long the players' options window of RWS Baccarat 5.12 stays open before it is closed, the boxes that chose nothing continuing (with --simulate, 1s unless given)")
	fs.DurationVar(&f.SimultaneousWindow, "simultaneous-window", def.Dealer.SimultaneousWindow, "two cards of a round read closer together than this were drawn together (RWS Baccarat 5.10); 0 turns the check off")
	fs.StringVar(&f.HTTP, "http", def.HTTP, "serve the display board here (\"\": none); :8080 serves it to the network")
	fs.BoolVar(&f.LogJSON, "log-json", false, "log as JSON lines")
	fs.StringVar(&f.Metrics, "metrics", "", "serve Prometheus metrics at http://ADDR/metrics (\"\": none), for example 127.0.0.1:9464")
	fs.BoolVar(&f.ArchiveShip, "archive-ship", false, "send the journal to the floor's archive (tablectl-floor archive) over MQTT, as the file's archive.ship")
	fs.Func("archive-to", "the ids of the archives to ship to, comma-separated, as the file's archive.to (floor when none)", func(s string) error {
		f.ArchiveTo = strings.Split(s, ",")
		return nil
	})
	sim = simulationFlags(fs, f, time.Second)
	return f, configFile, sim
}

// absolute makes the journal's directory and its key's file absolute paths, so that
// every message of the table names them whole, whatever the working directory.
func absolute(c *config.Config) error {
	var err error
	if c.Journal, err = filepath.Abs(c.Journal); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if c.JournalKey != "" {
		if c.JournalKey, err = filepath.Abs(c.JournalKey); err != nil {
			return fmt.Errorf("journal_key: %w", err)
		}
	}
	return nil
}

// position says where the table is in its play, for its start-up line: no shoe yet, a
// shoe and its round with the round's phase, a shoe between its rounds, over, or held.
func position(st round.State) string {
	var p string
	switch {
	case st.Shoe == 0:
		p = "no shoe yet"
	case st.Phase == round.NoShoe:
		p = fmt.Sprintf("shoe %d over, waiting for the next shoe", st.Shoe)
	case st.Phase == round.Burning:
		p = fmt.Sprintf("shoe %d, burning, before its first round", st.Shoe)
	case st.Round == 0:
		p = fmt.Sprintf("shoe %d, before its first round", st.Shoe)
	case st.Phase == round.BettingOpen:
		p = fmt.Sprintf("shoe %d, round %d open for bets", st.Shoe, st.Round)
	case st.Phase == round.Dealing:
		p = fmt.Sprintf("shoe %d, round %d being dealt", st.Shoe, st.Round)
	case st.Phase == round.Complete:
		p = fmt.Sprintf("shoe %d, round %d dealt, awaiting the dealer's confirmation", st.Shoe, st.Round)
	case st.Phase == round.ShoeDone:
		p = fmt.Sprintf("shoe %d, its last round (%d) over, waiting for the shoe's end", st.Shoe, st.Round)
	case st.Phase == round.NextSet:
		p = fmt.Sprintf("shoe %d, round %d over, waiting for the next set", st.Shoe, st.Round)
	default:
		p = fmt.Sprintf("shoe %d, round %d (%s)", st.Shoe, st.Round, st.Phase)
	}
	if st.Held.ID != 0 {
		p += fmt.Sprintf(", held for irregularity %d", st.Held.ID)
	}
	return p
}

// keyPath is the file of the table's signing key (the file's journal_key, or the
// journal directory's name with .key, beside it), its directory made: the table makes
// the key on the first start of a journal never signed.
func keyPath(c config.Config) (string, error) {
	path := c.JournalKey
	if path == "" {
		path = journal.DefaultKeyPath(c.Journal)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return "", fmt.Errorf("journal key: %w", err)
	}
	return path, nil
}
