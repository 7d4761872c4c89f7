package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tablectl/tablectl/broker"
	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/daemon"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
	"github.com/tablectl/tablectl/metrics"
	"github.com/tablectl/tablectl/simulator"
	"github.com/tablectl/tablectl/web"
)

// runRun runs the table: devices (or the simulator), the journal, the round controller
// and MQTT (an external broker, or the embedded one).
func runRun(ctx context.Context, args []string, io stdio) error {
	fs := newFlagSet("run", io)
	def := config.Default()
	configFile := fs.String("config", "", "the configuration file (docs/config.md); the flags given override it")
	tableID := fs.String("table", def.Table, "the table's id, the third level of every MQTT topic")
	rules := fs.String("rules", def.Rules, "rule set: classic, rws, nc-tournament, nc-insurance, royal")
	decks := fs.Int("decks", 0, "decks in a set at this table (0: any the rule set allows; the simulator deals 8)")
	journalDir := fs.String("journal", "", "the journal directory (default: the file's, or tablectl-journal in the working directory; with --simulate a new temporary one)")
	mqttURL := fs.String("mqtt", "", "external MQTT broker, tcp://host:1883 or ssl://host:8883 (default: start the embedded broker)")
	mqttUser := fs.String("mqtt-user", "", "MQTT username")
	mqttPassword := fs.String("mqtt-password", "", "MQTT password (or the file's password_file, or TABLECTL_MQTT_PASSWORD)")
	mqttCA := fs.String("mqtt-ca", "", "CA certificates (PEM) that sign the broker's certificate")
	mqttCert := fs.String("mqtt-cert", "", "client certificate (PEM)")
	mqttKey := fs.String("mqtt-key", "", "client certificate's key (PEM)")
	brokerListen := fs.String("broker-listen", def.Broker.Listen, "the embedded broker's MQTT address")
	brokerWS := fs.String("broker-websocket", def.Broker.WebSocket, "the embedded broker's WebSocket address for browsers (\"\": none)")
	shoePath := fs.String("shoe", "", "the shoe's serial port")
	shoeFormat := fs.String("shoe-format", "tablectl", "the shoe's wire format: tablectl, ascii or scanner")
	shufflerPath := fs.String("shuffler", "", "the shuffler's serial port")
	baud := fs.Int("baud", 9600, "the serial ports' speed")
	simulate := fs.Bool("simulate", false, "deal from a simulated shoe and shuffler started in-process (in place of the file's devices)")
	pace := fs.Duration("pace", time.Second, "with --simulate: pause before each card (0: as fast as possible)")
	rounds := fs.Int("rounds", 0, "with --simulate: stop after this many rounds (0: until interrupted)")
	seed := fs.Uint64("seed", 1, "with --simulate: seed of the shuffles")
	auto := fs.Bool("auto", false, "stand in for the dealer's buttons: close betting on a round's first card, close Insurance at once (or after --insurance-pause), confirm each complete round (default with --simulate)")
	insurancePause := fs.Duration("insurance-pause", def.Dealer.InsurancePause, "with --auto: how long each Insurance offer stays open before it is closed (0: at once)")
	window := fs.Duration("simultaneous-window", def.Dealer.SimultaneousWindow, "two cards of a round read closer together than this were drawn together (RWS Baccarat 5.10); 0 turns the check off")
	httpAddr := fs.String("http", def.HTTP, "serve the display board here (\"\": none); :8080 serves it to the network")
	logJSON := fs.Bool("log-json", false, "log as JSON lines")
	metricsAddr := fs.String("metrics", "", "serve Prometheus metrics at http://ADDR/metrics (\"\": none), for example 127.0.0.1:9464")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("run: unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *simulate && (set["shoe"] || set["shuffler"]) {
		return errors.New("run: --simulate brings its own devices: leave out --shoe and --shuffler")
	}

	// The file, then the flags given over it.
	tc := def
	tc.Journal = ""
	if *configFile != "" {
		load := config.Load
		if *simulate {
			load = config.LoadForSimulation // the file's devices are not used
		}
		var err error
		if tc, err = load(*configFile); err != nil {
			return fmt.Errorf("run: %w", err)
		}
	}
	overrides := map[string]func(){
		"table": func() { tc.Table = *tableID }, "rules": func() { tc.Rules = *rules; tc.Royal = royalOnly(*rules, tc.Royal) }, "decks": func() { tc.Decks = *decks },
		"journal": func() { tc.Journal = *journalDir }, "mqtt": func() { tc.MQTT.URL = *mqttURL },
		"mqtt-user": func() { tc.MQTT.Username = *mqttUser }, "mqtt-ca": func() { tc.MQTT.CA = *mqttCA },
		"mqtt-cert": func() { tc.MQTT.Cert = *mqttCert }, "mqtt-key": func() { tc.MQTT.Key = *mqttKey },
		"broker-listen": func() { tc.Broker.Listen = *brokerListen }, "broker-websocket": func() { tc.Broker.WebSocket = *brokerWS },
		"shoe": func() {
			format := *shoeFormat
			if tc.Shoe != nil && !set["shoe-format"] {
				format = tc.Shoe.Format
			}
			tc.Shoe = &config.Shoe{Serial: config.Serial{Port: *shoePath}, Format: format}
		},
		"shoe-format": func() {
			if tc.Shoe != nil {
				tc.Shoe.Format = *shoeFormat
			}
		},
		"shuffler": func() { tc.Shuffler = &config.Serial{Port: *shufflerPath} },
		"auto":     func() { tc.Dealer.Auto = *auto }, "insurance-pause": func() { tc.Dealer.InsurancePause = *insurancePause },
		"simultaneous-window": func() { tc.Dealer.SimultaneousWindow = *window },
		"http":                func() { tc.HTTP = *httpAddr }, "log-json": func() { tc.Log.JSON = *logJSON }, "metrics": func() { tc.Metrics = *metricsAddr },
	}
	overridden := false
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if apply, ok := overrides[name]; ok {
			apply()
			overridden = true
		}
	}
	if set["baud"] { // after --shoe and --shuffler, which make new lines
		for _, s := range []*config.Serial{shoeSerial(tc.Shoe), tc.Shuffler} {
			if s != nil {
				s.Baud = *baud
			}
		}
		overridden = true
	}
	if set["broker-listen"] && tc.MQTT.URL != "" {
		return errors.New("run: --broker-listen is for the embedded broker; it contradicts --mqtt (or the file's mqtt.url)")
	}
	if *simulate {
		tc.Shoe, tc.Shuffler = nil, nil // the simulator's, below
		if !set["auto"] {
			tc.Dealer.Auto = true
		}
	}
	if tc.Journal == "" {
		tc.Journal = "tablectl-journal"
		if *simulate {
			tmp, err := os.MkdirTemp("", "tablectl-journal-")
			if err != nil {
				return fmt.Errorf("run: %w", err)
			}
			defer os.RemoveAll(tmp)
			tc.Journal = tmp
		}
	}
	if overridden || *configFile == "" {
		if err := config.Check(&tc); err != nil {
			return fmt.Errorf("run: %w", err)
		}
	}
	var log *slog.Logger
	if tc.Log.JSON {
		log = slog.New(slog.NewJSONHandler(io.err, nil))
	} else {
		log = slog.New(slog.NewTextHandler(io.err, nil))
	}
	rc, err := tc.Round()
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	rs := rc.Rules
	simDecks := tc.Decks
	if simDecks == 0 {
		simDecks = 8
	}
	if *simulate {
		if err := rs.CheckDecks(simDecks); err != nil {
			return fmt.Errorf("run: --decks: %w", err)
		}
	}
	if *simulate && *pace < rc.SimultaneousWindow && !set["simultaneous-window"] {
		rc.SimultaneousWindow = 0 // the simulator deals faster than any dealer could
	}
	cfg := daemon.Config{Table: tc.Table, Round: rc, AutoConfirm: tc.Dealer.Auto, AutoCloseInsurance: tc.Dealer.Auto,
		InsurancePause: tc.Dealer.InsurancePause, Logger: log,
		Shoe: tc.ShoeConfig(), Shuffler: tc.ShufflerConfig()}
	svc, err := newServiceManager(log)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if every := svc.heartbeatEvery(); every > 0 {
		cfg.Heartbeat, cfg.HeartbeatEvery = svc.beat, every
	}
	cfg.JournalDir = tc.Journal
	var d *daemon.Daemon
	if tc.Metrics != "" {
		// Scraped only once d is open: the server starts after it.
		cfg.Metrics = metrics.New(func() int { n, _ := d.Pending(); return n })
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	simDone := make(chan error, 1)
	if *simulate {
		sim, cleanup, err := startSimulator(ctx, simulator.Config{Protocol: *shoeFormat, Seed: *seed, Pace: *pace,
			Decks: simDecks, Cut: 16, Logger: log}, *rounds, simDone)
		if err != nil {
			return fmt.Errorf("run: simulator: %w", err)
		}
		defer cleanup()
		cfg.Shoe = &shoe.Config{Format: *shoeFormat, Port: device.Config{Path: sim.Shoe.Link}}
		cfg.Shuffler = &device.Config{Path: sim.Shuffler.Link}
	} else {
		simDone = nil
	}

	// The journal is replayed and checked before anything is published.
	d, err = daemon.Open(cfg)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	defer d.Close()
	if cfg.Metrics != nil {
		mux := http.NewServeMux()
		mux.Handle("/metrics", cfg.Metrics.Handler())
		stop, addr, err := serveHTTP(tc.Metrics, mux, log)
		if err != nil {
			return fmt.Errorf("run: metrics %s: %w", tc.Metrics, err)
		}
		defer stop()
		fmt.Fprintf(io.out, "metrics: http://%s/metrics\n", addr)
	}

	url := tc.MQTT.URL
	if url == "" {
		b, err := broker.Start(context.WithoutCancel(ctx), broker.Options{Listen: tc.Broker.Listen, WebSocket: tc.Broker.WebSocket, Logger: log})
		if err != nil {
			if errors.Is(err, broker.ErrAddressInUse) {
				return fmt.Errorf("run: embedded broker: %w (choose another with --broker-listen or --broker-websocket, or use an external broker with --mqtt)", err)
			}
			return fmt.Errorf("run: embedded broker: %w", err)
		}
		defer b.Close() // after the client: its offline status goes out first
		url = b.URL()
		fmt.Fprintf(io.out, "embedded MQTT broker: %s", url)
		if tc.Broker.WebSocket != "" {
			fmt.Fprintf(io.out, ", WebSocket %s", b.WebSocketURL())
		}
		fmt.Fprintln(io.out)
	}
	password, err := mqttPasswordOf(*mqttPassword, tc.MQTT.PasswordFile)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	client, err := display.Dial(display.Options{Broker: url, Table: tc.Table, Username: tc.MQTT.Username, Password: password,
		TLS:    display.TLSFiles{CAFile: tc.MQTT.CA, CertFile: tc.MQTT.Cert, KeyFile: tc.MQTT.Key},
		Online: d.Status("online"), Offline: d.Status("offline"), OnConnect: d.OnConnect, Logger: log})
	if err != nil {
		return fmt.Errorf("run: mqtt: %w", err)
	}
	defer client.Close()

	var shoeEvents, shufflerEvents <-chan device.Event
	opts := func(name string) device.Options { return device.Options{Name: name, Logger: log} }
	if cfg.Shoe != nil {
		sd, err := shoe.Start(*cfg.Shoe, opts("shoe"))
		if err != nil {
			return fmt.Errorf("run: shoe: %w", err)
		}
		defer sd.Close()
		shoeEvents = sd.Events()
		// A card is acknowledged once journalled; while the port is down the shoe keeps it
		// and resends it after the next hello.
		d.SetShoeAck(func(ev device.Event) { _ = sd.Ack(ev) })
	}
	if cfg.Shuffler != nil {
		xd, err := shuffler.Start(*cfg.Shuffler, opts("shuffler"))
		if err != nil {
			return fmt.Errorf("run: shuffler: %w", err)
		}
		defer xd.Close()
		shufflerEvents = xd.Events()
	}
	if len(tc.GPIO.Pins) > 0 {
		gc := tc.GPIOConfig()
		gc.Logger = log
		panel, err := gpio.Open(ctx, gc)
		switch {
		case errors.Is(err, gpio.ErrAbsent):
			log.Warn("the configuration names GPIO pins, but this machine has no GPIO: running without buttons, sensors, tower light or buzzer", "err", err)
		case err != nil:
			return fmt.Errorf("run: gpio: %w", err)
		default:
			defer panel.Close()
			d.SetPanel(panel)
		}
	}
	if tc.HTTP != "" {
		stop, addr, err := serveBoard(url, tc.Table, tc.MQTT.Username, password, tc.HTTP, log)
		if err != nil {
			return fmt.Errorf("run: http %s: %w", tc.HTTP, err)
		}
		defer stop()
		fmt.Fprintf(io.out, "display board: http://%s/\n", addr)
	}
	st := d.State()
	fmt.Fprintf(io.out, "table %s: rule set %s, journal %s (shoe %d, round %d), MQTT topics tablectl/v1/%s/#\n",
		tc.Table, rs.Name, tc.Journal, st.Shoe, st.Round, tc.Table)
	svc.ready(fmt.Sprintf("table %s: shoe %d, round %d", tc.Table, st.Shoe, st.Round))
	defer svc.stopping() // the first of the deferred calls: before anything is closed

	served := make(chan error, 1)
	go func() { served <- d.Serve(ctx, client, shoeEvents, shufflerEvents) }()
	select {
	case err := <-served:
		return err
	case err := <-simDone:
		// The simulator dealt its rounds: let the last events and messages go out.
		if err == nil {
			waitQuiet(func() int { n, _ := d.Pending(); return n }, shoeEvents, shufflerEvents, 10*time.Second)
		}
		cancel()
		return errors.Join(err, <-served)
	}
}

// waitQuiet waits until every device event has been taken and pending (messages not
// yet acknowledged, say) is 0, or until limit.
func waitQuiet(pending func() int, shoe, shuffler <-chan device.Event, limit time.Duration) {
	deadline := time.Now().Add(limit)
	quiet := 0
	for quiet < 3 && time.Now().Before(deadline) {
		if pending() == 0 && len(shoe) == 0 && len(shuffler) == 0 {
			quiet++
		} else {
			quiet = 0
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serveBoard serves the web display board, fed from the table's MQTT topics, on addr.
// stop closes the board first (it ends the open event streams), then the server.
func serveBoard(brokerURL, table, user, password, addr string, log *slog.Logger) (stop func(), bound string, err error) {
	board, err := web.New(web.Options{Broker: brokerURL, Table: table, Username: user, Password: password, Logger: log})
	if err != nil {
		return nil, "", err
	}
	stopServer, bound, err := serveHTTP(addr, board.Handler(), log)
	if err != nil {
		board.Close()
		return nil, "", err
	}
	return func() {
		board.Close()
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

// shoeSerial is the shoe's serial line, nil when there is no shoe.
func shoeSerial(s *config.Shoe) *config.Serial {
	if s == nil {
		return nil
	}
	return &s.Serial
}

// mqttPasswordOf is the MQTT password: the flag's, else the file named in the
// configuration (its first line), else TABLECTL_MQTT_PASSWORD.
func mqttPasswordOf(flagValue, file string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("mqtt.password_file: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		return strings.TrimRight(line, "\r"), nil
	}
	return os.Getenv("TABLECTL_MQTT_PASSWORD"), nil
}

// royalOnly keeps the file's Royal Baccarat variant when the rule set given is royal.
func royalOnly(rules string, r *config.Royal) *config.Royal {
	if rules != "royal" {
		return nil
	}
	return r
}
