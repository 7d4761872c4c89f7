package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/config"
)

// runCheckConfig checks a configuration file without starting anything: every fault is
// printed with its file, line and key, and the command fails; a good file is summed up,
// with a warning when its rule set requires limits displayed and it gives none.
func runCheckConfig(_ context.Context, args []string, io stdio) error {
	fs := newFlagSet("check-config", io)
	fs.Usage = func() {
		fmt.Fprintln(io.err, "usage: tablectl check-config FILE\n\nChecks a configuration file (docs/config.md) without starting the table.")
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("check-config: give one configuration file")
	}
	path := fs.Arg(0)
	cfg, err := config.Load(path)
	var faults config.Errors
	if errors.As(err, &faults) {
		for _, f := range faults {
			fmt.Fprintln(io.out, f)
		}
		return fmt.Errorf("check-config: %s: %d %s", path, len(faults), plural(len(faults), "fault", "faults"))
	}
	if err != nil {
		return fmt.Errorf("check-config: %w", err)
	}
	fmt.Fprintf(io.out, "%s: OK\n%s", path, summary(cfg))
	if w := cfg.LimitsWarning(); w != "" {
		fmt.Fprintf(io.out, "%s: warning: %s\n", path, w)
	}
	return nil
}

// summary says in a few lines what a configuration sets up.
func summary(c config.Config) string {
	var b strings.Builder
	decks := "the shuffler's count"
	switch {
	case c.Decks != 0:
		decks = fmt.Sprint(c.Decks)
	case c.NoShuffler():
		decks = fmt.Sprintf("%d (no shuffler)", config.NoShufflerDecks)
	}
	fmt.Fprintf(&b, "  table %s, rule set %s, decks %s, journal %s\n", c.Table, c.Rules, decks, c.Journal)
	device := func(name string, s *config.Serial, format string) {
		switch {
		case s == nil:
			fmt.Fprintf(&b, "  %s: none\n", name)
		case s.Port != "":
			fmt.Fprintf(&b, "  %s: %s%s\n", name, s.Port, format)
		default:
			fmt.Fprintf(&b, "  %s: USB %s:%s %s%s\n", name, s.USB.VID, s.USB.PID, s.USB.Serial, format)
		}
	}
	if c.Shoe != nil {
		device("shoe", &c.Shoe.Serial, " ("+c.Shoe.Format+")")
	} else {
		device("shoe", nil, "")
	}
	device("shuffler", c.Shuffler, "")
	if c.MQTT.URL != "" {
		fmt.Fprintf(&b, "  MQTT: %s as %s\n", c.MQTT.URL, c.MQTTUsername())
	} else {
		fmt.Fprintf(&b, "  MQTT: embedded broker on %s\n", c.Broker.Listen)
	}
	fmt.Fprintf(&b, "  GPIO: %d %s\n", len(c.GPIO.Pins), plural(len(c.GPIO.Pins), "pin", "pins"))
	if con := c.Console; con.MQTT.URL != "" || con.Users != "" {
		scheme := "http"
		if con.TLSCert != "" {
			scheme = "https"
		}
		fmt.Fprintf(&b, "  console: broker %s, users %s, pages on %s://%s\n", orNone(con.MQTT.URL), orNone(con.Users), scheme, con.HTTP)
	}
	if ar := c.Archive.ArchiveService; ar.MQTT.URL != "" || ar.DB != "" || ar.Keys != "" {
		fmt.Fprintf(&b, "  archive: broker %s, database %s, keys %s\n", orNone(ar.MQTT.URL), orNone(archive.Redact(ar.DB)), orNone(ar.Keys))
	}
	if c.Limits != nil {
		fmt.Fprintf(&b, "  limits: %s\n", c.Limits)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// orNone is s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
