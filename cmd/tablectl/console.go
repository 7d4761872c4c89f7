package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/tablectl/tablectl/console"
)

func init() {
	commands = append(commands, command{"console", "serve the console: every table of the floor, logins and roles, the dealers' and supervisors' commands", runConsole})
}

const consoleUsage = `usage: tablectl console --mqtt URL --http ADDR --users FILE [flags]
       tablectl console user add NAME --role ROLE --users FILE [--tables T1,T2] [--pits P1]
       tablectl console user remove NAME --users FILE
       tablectl console user list --users FILE

The console serves web pages and a JSON API for dealers, pit supervisors and managers:
every table seen on the broker, and the commands of the role of the person logged in,
published under the person's own name.

Setting it up (docs/console.md has every step):
  1. the broker user: deploy/mosquitto/acl has "user console"; give it a password
     (mosquitto_passwd /etc/mosquitto/tablectl/passwd console) and pass it in
     TABLECTL_MQTT_PASSWORD;
  2. the users file: 'tablectl console user add NAME --role ROLE --users FILE' for each
     person, the password on standard input; the file must not be readable by others;
  3. TLS: --tls-cert and --tls-key serve HTTPS (the session cookie is then Secure);
  4. run it: tablectl console --mqtt ssl://broker:8883 --mqtt-ca ca.crt --users FILE
     --http :8443 --tls-cert https.crt --tls-key https.key
     (deploy/tablectl-console.service runs it under systemd; --central on a central
     broker).`

// runConsole serves the console, or manages its users file.
func runConsole(ctx context.Context, args []string, io stdio) error {
	if len(args) > 0 && args[0] == "user" {
		return runConsoleUser(args[1:], io)
	}
	fs := newFlagSet("console", io)
	fs.Usage = func() {
		fmt.Fprintln(io.err, consoleUsage+"\n\nflags:")
		fs.PrintDefaults()
	}
	mqttURL := fs.String("mqtt", "", "the floor's MQTT broker, tcp://host:1883 or ssl://host:8883 (required)")
	mqttUser := fs.String("mqtt-user", "console", "MQTT username (the console user of deploy/mosquitto/acl)")
	mqttPassword := fs.String("mqtt-password", "", "MQTT password (default: TABLECTL_MQTT_PASSWORD)")
	mqttCA := fs.String("mqtt-ca", "", "CA certificates (PEM) that sign the broker's certificate")
	mqttCert := fs.String("mqtt-cert", "", "client certificate (PEM)")
	mqttKey := fs.String("mqtt-key", "", "client certificate's key (PEM)")
	central := fs.Bool("central", false, "the broker is a central one: also read casino/<site>/<pit>/tablectl/v1/... (docs/mqtt.md)")
	httpAddr := fs.String("http", "127.0.0.1:8090", "serve the console here; :8443 with --tls-cert serves it to the network")
	users := fs.String("users", "", "the users file (required; see 'tablectl console user add')")
	tlsCert := fs.String("tls-cert", "", "serve HTTPS with this certificate (PEM); session cookies are then Secure")
	tlsKey := fs.String("tls-key", "", "the TLS certificate's key (PEM)")
	idle := fs.Duration("idle", console.DefaultIdle, "a session unused this long expires")
	cmdTimeout := fs.Duration("command-timeout", console.DefaultCommandTimeout, "how long to wait for a table's answer to a command (504 after)")
	lockFor := fs.Duration("lock", console.DefaultLockFor, "how long a name is refused after 5 failed logins in a minute")
	logJSON := fs.Bool("log-json", false, "log (and audit) as JSON lines")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("console: unexpected argument %q", fs.Arg(0))
	}
	switch {
	case *mqttURL == "":
		return errors.New("console: --mqtt is required (the floor's broker)")
	case *users == "":
		return errors.New("console: --users is required (create it with 'tablectl console user add')")
	case (*tlsCert == "") != (*tlsKey == ""):
		return errors.New("console: --tls-cert and --tls-key go together")
	}
	var log *slog.Logger
	if *logJSON {
		log = slog.New(slog.NewJSONHandler(io.err, nil))
	} else {
		log = slog.New(slog.NewTextHandler(io.err, nil))
	}
	us, err := console.LoadUsers(*users)
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	if len(us.List()) == 0 {
		log.Warn("the users file has nobody in it: nobody can log in", "users", *users)
	}
	password := *mqttPassword
	if password == "" {
		password = os.Getenv("TABLECTL_MQTT_PASSWORD")
	}
	// The link hands messages to the server, which is made next.
	var srv *console.Server
	ready := make(chan struct{})
	link, err := console.Dial(console.LinkOptions{Broker: *mqttURL, Username: *mqttUser, Password: password,
		CAFile: *mqttCA, CertFile: *mqttCert, KeyFile: *mqttKey, Central: *central, Logger: log},
		func(topic string, payload []byte) {
			<-ready
			srv.Ingest(topic, payload)
		})
	if err != nil {
		close(ready)
		return fmt.Errorf("console: %w", err)
	}
	defer link.Close()
	srv, err = console.New(console.Options{Users: us, Publisher: link, Logger: log, Idle: *idle,
		CommandTimeout: *cmdTimeout, LockFor: *lockFor, SecureCookie: *tlsCert != ""})
	close(ready)
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	defer srv.Close()

	// SIGHUP reads the users file again.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	reloadDone, stopReload := make(chan struct{}), make(chan struct{})
	defer func() {
		signal.Stop(hup)
		close(stopReload)
		<-reloadDone
	}()
	go func() {
		defer close(reloadDone)
		for {
			select {
			case <-stopReload:
				return
			case <-hup:
			}
			nu, err := console.LoadUsers(*users)
			if err != nil {
				log.Error("users file not reloaded", "error", err)
				continue
			}
			srv.SetUsers(nu)
			log.Info("users file reloaded", "users", *users, "count", len(nu.List()))
		}
	}()

	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return fmt.Errorf("console: --http %s: %w", *httpAddr, err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	served := make(chan error, 1)
	scheme := "http"
	if *tlsCert != "" {
		scheme = "https"
		go func() { served <- hs.ServeTLS(ln, *tlsCert, *tlsKey) }()
	} else {
		go func() { served <- hs.Serve(ln) }()
	}
	fmt.Fprintf(io.out, "console: %s://%s/ (MQTT %s)\n", scheme, ln.Addr(), *mqttURL)
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

// runConsoleUser adds, removes or lists the people of a users file.
func runConsoleUser(args []string, io stdio) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(io.err, consoleUsage)
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
	role := fs.String("role", "", "add: dealer, supervisor, pit_manager or shift_manager")
	tables := fs.String("tables", "", "add: the tables the person works, comma-separated (default: every table)")
	pits := fs.String("pits", "", "add: the pits the person works, comma-separated")
	cost := fs.Int("cost", console.DefaultBcryptCost, "add: the bcrypt cost of the password hash")
	if err := fs.Parse(rest); err != nil {
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
			return errors.New("console user add: --role is required (dealer, supervisor, pit_manager or shift_manager)")
		}
		pw, err := readPassword(io.in)
		if err != nil {
			return fmt.Errorf("console user add: %w", err)
		}
		u := console.User{Name: name, Role: *role, Tables: splitList(*tables), Pits: splitList(*pits)}
		if err := console.AddUser(*users, u, pw, *cost); err != nil {
			return fmt.Errorf("console user add: %w", err)
		}
		fmt.Fprintf(io.out, "added %s (%s) to %s\n", name, *role, *users)
		return nil
	case "remove":
		if name == "" {
			return errors.New("console user remove: want a NAME before the flags")
		}
		if err := console.RemoveUser(*users, name); err != nil {
			return fmt.Errorf("console user remove: %w", err)
		}
		fmt.Fprintf(io.out, "removed %s from %s (a running console forgets them on SIGHUP or restart)\n", name, *users)
		return nil
	case "list":
		us, err := console.LoadUsers(*users)
		if err != nil {
			return fmt.Errorf("console user list: %w", err)
		}
		tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tROLE\tTABLES\tPITS")
		for _, u := range us.List() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.Name, u.Role, orAll(u.Tables, u.Pits, u.Tables), orAll(u.Tables, u.Pits, u.Pits))
		}
		return tw.Flush()
	default:
		return fmt.Errorf("console user: unknown subcommand %q (want add, remove or list)", sub)
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
