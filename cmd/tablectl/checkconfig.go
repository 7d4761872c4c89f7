package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/config"
)

// runCheckConfig checks a configuration file without starting anything: every fault is
// printed with its file, line and key, and the command fails. A good file is summed up,
// part by part, as config.Config.Parts tells them: a table's settings, with a warning
// when its rule set requires limits displayed and it gives none; a console's, checked
// as tablectl console takes them; an archive's, checked as tablectl archive takes them,
// its keys file read.
func runCheckConfig(_ context.Context, args []string, io stdio) error {
	fs := newFlagSet("check-config", io)
	fs.Usage = func() {
		fmt.Fprintln(io.err, "usage: tablectl check-config FILE\n\nChecks a configuration file (docs/config.md) without starting anything: a table's,\na console's or an archive's, and says what it configures.")
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
	if err != nil && !errors.As(err, &faults) {
		return fmt.Errorf("check-config: %w", err)
	}
	var b strings.Builder
	parts := cfg.Parts()
	if err == nil && parts.Table {
		b.WriteString(summary(cfg))
	}
	if err == nil && parts.Console {
		con, cerr := config.ApplyConsoleFlags(cfg, config.ConsoleFlags{})
		if errors.As(cerr, &faults) {
			inFile(faults, path) // the faults of the file, which has none of its own
		} else {
			b.WriteString(consoleSummary(con.Console))
		}
	}
	var bad []error
	for _, f := range faults {
		bad = append(bad, f)
	}
	if err == nil && parts.Archive {
		var afaults config.Errors
		ar, aerr := config.ApplyArchiveFlags(cfg, config.ArchiveFlags{})
		if errors.As(aerr, &afaults) {
			inFile(afaults, path)
			for _, f := range afaults {
				bad = append(bad, f)
			}
		} else if line, kerr := archiveSummary(ar.ArchiveService); kerr != nil {
			bad = append(bad, each(kerr)...) // each bad line of the keys file, with its line
		} else {
			b.WriteString(line)
		}
	}
	if len(bad) > 0 {
		for _, f := range bad {
			fmt.Fprintln(io.out, f)
		}
		return fmt.Errorf("check-config: %s: %d %s", path, len(bad), plural(len(bad), "fault", "faults"))
	}
	fmt.Fprintf(io.out, "%s: OK\n%s", path, b.String())
	if w := cfg.LimitsWarning(); w != "" && parts.Table {
		fmt.Fprintf(io.out, "%s: warning: %s\n", path, w)
	}
	return nil
}

// each is the errors err joins, or err alone.
func each(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// inFile names path in each fault that names no file: a key the file leaves out that
// the console or the archive needs.
func inFile(faults config.Errors, path string) {
	for _, f := range faults {
		if f.File == "" {
			f.File = path
		}
	}
}

// summary says in a few lines what a table's configuration sets up.
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
	if c.Archive.Ship {
		to := c.Archive.To
		if len(to) == 0 {
			to = []string{api.DefaultArchiveID}
		}
		fmt.Fprintf(&b, "  journal shipped to %s %s\n", plural(len(to), "archive", "archives"), strings.Join(to, ", "))
	}
	if c.Limits != nil {
		fmt.Fprintf(&b, "  limits: %s\n", c.Limits)
	}
	return b.String()
}

// consoleSummary says in a few lines what a console's section sets up.
func consoleSummary(c config.Console) string {
	var b strings.Builder
	scheme := "http"
	if c.TLSCert != "" {
		scheme = "https"
	}
	central := ""
	if c.Central {
		central = " (central: casino/<site>/<pit>/ too)"
	}
	fmt.Fprintf(&b, "  console: pages on %s://%s, broker %s as %s%s\n", scheme, c.HTTP, c.MQTT.URL, c.MQTT.Username, central)
	fmt.Fprintf(&b, "  console users: %s\n", c.Users)
	history := "none (no History page)"
	if c.Archive != "" {
		history = archive.Redact(c.Archive) + ", read-only"
	}
	fmt.Fprintf(&b, "  console History: %s\n", history)
	return b.String()
}

// archiveSummary says in a few lines what an archive's settings set up, its keys file
// read: an error there lists every bad line.
func archiveSummary(c config.ArchiveService) (string, error) {
	keys, err := archive.ReadKeys(c.Keys)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	central := ""
	if c.Central {
		central = " (central: casino/<site>/<pit>/ too)"
	}
	fmt.Fprintf(&b, "  archive %s: broker %s as %s, client id %s%s\n", c.ID, c.MQTT.URL, c.MQTT.Username, c.ClientID, central)
	fmt.Fprintf(&b, "  archive database: %s (%s)\n", archive.Redact(c.DB), archive.EngineOf(c.DB))
	fmt.Fprintf(&b, "  archive keys: %s, %d %s\n", c.Keys, len(keys), plural(len(keys), "table", "tables"))
	return b.String(), nil
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
