package floorcmd

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tablectl/tablectl/alerts"
	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/console"
	"github.com/tablectl/tablectl/internal/cli"
)

const consoleUsage = `usage: tablectl-floor console --mqtt URL --http ADDR --users FILE [flags]
       tablectl-floor console --config FILE [flags]
       tablectl-floor console user add NAME --role ROLE --users FILE [--tables T1,T2] [--pits P1]
       tablectl-floor console user remove NAME --users FILE
       tablectl-floor console user list --users FILE

The console serves web pages and a JSON API for dealers, pit supervisors and managers:
every table seen on the broker, and the commands of the role of the person logged in,
published under the person's own name.

Setting it up (docs/console.md has every step):
  1. the broker user: deploy/mosquitto/acl has "user console"; give it a password
     (mosquitto_passwd /etc/mosquitto/tablectl/passwd console) and pass it in
     TABLECTL_MQTT_PASSWORD or the file's console.mqtt.password_file;
  2. the users file: 'tablectl-floor console user add NAME --role ROLE --users FILE' for each
     person, the password on standard input; the file must not be readable by others;
  3. TLS: --tls-cert and --tls-key serve HTTPS (the session cookie is then Secure);
  4. run it: tablectl-floor console --mqtt ssl://broker:8883 --mqtt-ca ca.crt --users FILE
     --http :8443 --tls-cert https.crt --tls-key https.key
     (--central on a central broker).

The configuration file: every flag but --mqtt-password has a key in the file's console
section (--mqtt is console.mqtt.url, --tls-cert console.tls_cert, --idle console.idle,
--log-json the file's log.json; docs/config.md lists them), read as strictly as a
table's file: an unknown key or a bad value is an error naming the file, the line and
the key, and the console does not start. A flag given wins over the file.
deploy/tablectl-console.yaml is an example, and deploy/tablectl-console.service runs
'tablectl-floor console --config /etc/tablectl/console/console.yaml' under systemd;
'tablectl-floor check-config FILE' checks the file.

SIGHUP (systemctl reload) reads the users file again: the sessions of the people
removed, or whose role, tables or password changed, end at once. SIGTERM stops it.`

// runConsole serves the console, or manages its users file. The server reads its users
// file again at each signal of io.Reload (SIGHUP).
func runConsole(ctx context.Context, args []string, io cli.Stdio) error {
	if len(args) > 0 && args[0] == "user" {
		return runConsoleUser(args[1:], io)
	}
	fs := newFlagSet("console", io)
	fs.Usage = func() {
		fmt.Fprintln(io.Err, consoleUsage+"\n\nflags:")
		fs.PrintDefaults()
	}
	f, configFile := consoleFlags(fs)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("console: unexpected argument %q", fs.Arg(0))
	}
	f.Given = cli.Given(fs)
	cfg, err := config.ResolveConsole(*configFile, *f)
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	log := cli.NewLogger(cfg.LogJSON, io.Err)
	us, err := console.LoadUsers(cfg.Users)
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	if len(us.List()) == 0 {
		log.Warn("the users file has nobody in it: nobody can log in", "users", cfg.Users)
	}
	warnPits(log, us, cfg.Central)
	var history console.History
	if cfg.Archive != "" {
		db, err := archive.OpenReader(ctx, cfg.Archive)
		if err != nil {
			return fmt.Errorf("console: console.archive: %w", err)
		}
		defer db.Close()
		history = db
	}
	// The link hands messages to the server, which is made next.
	var srv *console.Server
	ready := make(chan struct{})
	link, err := console.Dial(console.LinkOptions{Broker: cfg.MQTT.URL, Username: cfg.MQTT.Username, Password: cfg.Password,
		CAFile: cfg.MQTT.CA, CertFile: cfg.MQTT.Cert, KeyFile: cfg.MQTT.Key, Central: cfg.Central, Logger: log,
		OnState: func(up bool, reason string) {
			<-ready
			if srv != nil {
				srv.SetBroker(up, reason)
			}
		}},
		func(topic string, payload []byte) {
			<-ready
			srv.Ingest(topic, payload)
		})
	if err != nil {
		close(ready)
		return fmt.Errorf("console: %w", err)
	}
	defer link.Close()
	srv, err = console.New(console.Options{Users: us, Publisher: link, Logger: log, Idle: cfg.Idle,
		CommandTimeout: cfg.CommandTimeout, LockFor: cfg.Lock, SecureCookie: cfg.TLSCert != "",
		StreamsPerSession: cfg.StreamsPerSession, Streams: cfg.Streams, Hosts: cfg.Hosts, LinkPending: true,
		History: history, ArchiveLate: cfg.ArchiveLate, Alerts: alertRules(cfg.Alerts), AlertArchive: cfg.Alerts.Archive})
	close(ready)
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	defer srv.Close()

	// SIGHUP reads the users file again: the sessions of people removed or changed end.
	stopReload := cli.OnReload(io.Reload, func() {
		nu, err := console.LoadUsers(cfg.Users)
		if err != nil {
			log.Error("users file not reloaded: the users of before are kept", "users", cfg.Users, "error", err)
			return
		}
		srv.SetUsers(nu)
		log.Info("users file reloaded", "users", cfg.Users, "count", len(nu.List()))
		warnPits(log, nu, cfg.Central)
	})
	defer stopReload()

	ln, err := net.Listen("tcp", cfg.HTTP)
	if err != nil {
		return fmt.Errorf("console: %w", cli.ListenError("pages (http)", "--http", cfg.HTTP, false, err))
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	served := make(chan error, 1)
	scheme := "http"
	if cfg.TLSCert != "" {
		scheme = "https"
		go func() { served <- hs.ServeTLS(ln, cfg.TLSCert, cfg.TLSKey) }()
	} else {
		go func() { served <- hs.Serve(ln) }()
	}
	fmt.Fprintf(io.Out, "console: %s://%s/ (MQTT %s)\n", scheme, ln.Addr(), cfg.MQTT.URL)
	select {
	case err := <-served:
		srv.Close()
		return fmt.Errorf("console: %w", err)
	case <-ctx.Done():
	}
	srv.Close() // ends the event streams, so Shutdown does not wait for them
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	return nil
}

// consoleFlags defines the console's flags: those config.ConsoleFlags carries, with
// the defaults of the file's console section, and the configuration file's.
func consoleFlags(fs *flag.FlagSet) (f *config.ConsoleFlags, configFile *string) {
	f = &config.ConsoleFlags{}
	def := config.DefaultConsole()
	configFile = fs.String("config", "", "a configuration file whose console section (and log) the console takes (docs/config.md); the flags given override it")
	fs.StringVar(&f.MQTT, "mqtt", "", "the floor's MQTT broker, tcp://host:1883 or ssl://host:8883 (required here or in the file)")
	fs.StringVar(&f.MQTTUser, "mqtt-user", def.MQTT.Username, "MQTT username (the console user of deploy/mosquitto/acl)")
	fs.StringVar(&f.MQTTPassword, "mqtt-password", "", "MQTT password (default: the file's console.mqtt.password_file, or TABLECTL_MQTT_PASSWORD)")
	fs.StringVar(&f.MQTTCA, "mqtt-ca", "", "CA certificates (PEM) that sign the broker's certificate")
	fs.StringVar(&f.MQTTCert, "mqtt-cert", "", "client certificate (PEM)")
	fs.StringVar(&f.MQTTKey, "mqtt-key", "", "client certificate's key (PEM)")
	fs.BoolVar(&f.Central, "central", false, "the broker is a central one: also read casino/<site>/<pit>/tablectl/v1/... (docs/mqtt.md)")
	fs.StringVar(&f.HTTP, "http", def.HTTP, "serve the console here; :8443 with --tls-cert serves it to the network")
	fs.StringVar(&f.Users, "users", "", "the users file (required here or in the file; see 'tablectl-floor console user add')")
	fs.StringVar(&f.TLSCert, "tls-cert", "", "serve HTTPS with this certificate (PEM); session cookies are then Secure")
	fs.StringVar(&f.TLSKey, "tls-key", "", "the TLS certificate's key (PEM)")
	fs.DurationVar(&f.Idle, "idle", def.Idle, "a session unused this long expires")
	fs.DurationVar(&f.CommandTimeout, "command-timeout", def.CommandTimeout, "how long to wait for a table's answer to a command (504 after)")
	fs.DurationVar(&f.LockTime, "lock", def.Lock, "how long a name is refused after 5 failed logins in a minute")
	fs.BoolVar(&f.LogJSON, "log-json", false, "log (and audit) as JSON lines")
	return f, configFile
}

// runConsoleUser adds, removes or lists the people of a users file.
func runConsoleUser(args []string, io cli.Stdio) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(io.Err, consoleUsage)
		if len(args) == 0 {
			return errors.New("console user: want add, remove or list")
		}
		return nil
	}
	sub, rest := args[0], args[1:]
	var name string
	if (sub == "add" || sub == "remove") && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		name, rest = rest[0], rest[1:]
	}
	fs := newFlagSet("console user "+sub, io)
	users := fs.String("users", "", "the users file")
	role := fs.String("role", "", "add: dealer, supervisor, pit_manager, shift_manager or surveillance")
	tables := fs.String("tables", "", "add: the tables the person works, comma-separated (default: every table)")
	pits := fs.String("pits", "", "add: the pits the person works, comma-separated")
	cost := fs.Int("cost", console.DefaultBcryptCost, "add: the bcrypt cost of the password hash")
	if err := cli.ParseFlags(fs, rest); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("console user %s: unexpected argument %q", sub, fs.Arg(0))
	}
	if *users == "" {
		return fmt.Errorf("console user %s: --users FILE is required", sub)
	}
	switch sub {
	case "add":
		if name == "" {
			return errors.New("console user add: want a NAME before the flags")
		}
		if *role == "" {
			return errors.New("console user add: --role is required (dealer, supervisor, pit_manager, shift_manager or surveillance)")
		}
		pw, err := readPassword(io.In)
		if err != nil {
			return fmt.Errorf("console user add: %w", err)
		}
		u := console.User{Name: name, Role: *role, Tables: splitList(*tables), Pits: splitList(*pits)}
		if err := console.AddUser(*users, u, pw, *cost); err != nil {
			return fmt.Errorf("console user add: %w", err)
		}
		fmt.Fprintf(io.Out, "added %s (%s) to %s\n", name, *role, *users)
		if len(u.Pits) > 0 {
			fmt.Fprintf(io.Err, "console user add: warning: %s\n", pitsWarning(u))
		}
		return nil
	case "remove":
		if name == "" {
			return errors.New("console user remove: want a NAME before the flags")
		}
		if err := console.RemoveUser(*users, name); err != nil {
			return fmt.Errorf("console user remove: %w", err)
		}
		fmt.Fprintf(io.Out, "removed %s from %s (a running console forgets them on SIGHUP or restart)\n", name, *users)
		return nil
	case "list":
		us, err := console.LoadUsers(*users)
		if err != nil {
			return fmt.Errorf("console user list: %w", err)
		}
		tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tROLE\tTABLES\tPITS")
		for _, u := range us.List() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.Name, u.Role, orAll(u.Tables, u.Pits, u.Tables), orAll(u.Tables, u.Pits, u.Pits))
		}
		return tw.Flush()
	default:
		return fmt.Errorf("console user: unknown subcommand %q (want add, remove or list)", sub)
	}
}

// pitsWarning says that u's pits are known only on a central console, and what u works
// on any other.
func pitsWarning(u console.User) string {
	works := "no table"
	if len(u.Tables) > 0 {
		works = "only tables " + strings.Join(u.Tables, ",")
	}
	return fmt.Sprintf("%s works pits %s only on a console run with --central (console.central: true): a table's pit comes from "+
		"the central broker's casino/<site>/<pit>/ layout; on any other console %s works %s",
		u.Name, strings.Join(u.Pits, ","), u.Name, works)
}

// warnPits logs, on a console that is not central, each user limited by pits: they
// work no table by pit there.
func warnPits(log *slog.Logger, us *console.Users, central bool) {
	if central {
		return
	}
	for _, u := range us.List() {
		if len(u.Pits) > 0 {
			log.Warn("a user's pits are unknown on this console: "+pitsWarning(u), "user", u.Name, "pits", strings.Join(u.Pits, ","))
		}
	}
}

// readPassword reads the password: the first line of standard input.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the password from standard input: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("no password on standard input (give it as its first line)")
	}
	return line, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// orAll shows a list of tables or pits; "all" when the person works every table.
func orAll(tables, pits, list []string) string {
	if len(tables) == 0 && len(pits) == 0 {
		return "all"
	}
	if len(list) == 0 {
		return "-"
	}
	return strings.Join(list, ",")
}

// alertRules are the console's alert rules of the file's console.alerts (checked).
func alertRules(a config.ConsoleAlerts) *alerts.Rules {
	loc := time.Local
	if a.TZ != "" {
		if l, err := time.LoadLocation(a.TZ); err == nil {
			loc = l
		}
	}
	return &alerts.Rules{HeldAfter: a.HeldAfter, NoDealer: a.NoDealer, ArchiveLate: a.ArchiveLate, PaceMin: a.PaceMin, PaceMax: a.PaceMax, DeviceFailures: a.DeviceFailures, Loc: loc}
}
