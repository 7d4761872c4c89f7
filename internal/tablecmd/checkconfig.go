package tablecmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/internal/cli"
)

const checkConfigUsage = `usage: %s check-config FILE

Checks a configuration file (docs/config.md) without starting anything, and says what
it configures. %s`

// FloorCheck checks the parts of the configuration cfg, read from path, that the floor's
// services take (a console's section, an archive's), as those services take them: it
// returns the lines that sum them up, or their faults, each naming the file (and its
// line and key, or the line of a file the section names).
type FloorCheck func(cfg config.Config, path string) (summary string, faults []error)

// CheckConfig is the check-config command of the program name, which checks the floor's
// parts of a file with floor: every fault is printed with its file, line and key, and
// the command fails. A good file is summed up, part by part, as config.Config.Parts
// tells them: a table's settings, with a warning when its rule set requires limits
// displayed and it gives none; then the floor's parts. With floor nil (tablectl) a
// file with a console's or an archive's section is checked as a table reads it, and
// said to be tablectl-floor's to check in full; a file that configures no table is
// refused.
func CheckConfig(name string, floor FloorCheck) func(ctx context.Context, args []string, io cli.Stdio) error {
	what := "A table's: a console's or an archive's is " + FloorName + "'s to check."
	if floor != nil {
		what = "A table's, a console's or an archive's, checked as the table, the console\nand the archive take it."
	}
	return func(_ context.Context, args []string, io cli.Stdio) error {
		return checkConfig(name, floor, what, args, io)
	}
}

// runCheckConfig is tablectl's check-config: a table's configuration.
func runCheckConfig(ctx context.Context, args []string, io cli.Stdio) error {
	return CheckConfig(Name, nil)(ctx, args, io)
}

func checkConfig(name string, floor FloorCheck, what string, args []string, io cli.Stdio) error {
	fs := cli.NewFlagSet(name+" check-config", io)
	fs.Usage = func() { fmt.Fprintf(io.Err, checkConfigUsage+"\n", name, what) }
	if err := cli.ParseFlags(fs, args); err != nil {
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
	var bad []error
	for _, f := range faults {
		bad = append(bad, f)
	}
	var b strings.Builder
	parts := cfg.Parts()
	if err == nil && parts.Table {
		b.WriteString(Summary(cfg))
	}
	floorParts := parts.Console || parts.Archive
	if err == nil && floorParts && floor != nil {
		s, f := floor(cfg, path)
		b.WriteString(s)
		bad = append(bad, f...)
	}
	if len(bad) > 0 {
		for _, f := range bad {
			fmt.Fprintln(io.Out, f)
		}
		return fmt.Errorf("check-config: %s: %d %s", path, len(bad), cli.Plural(len(bad), "fault", "faults"))
	}
	if floorParts && floor == nil {
		var sections []string
		if parts.Console {
			sections = append(sections, "console")
		}
		if parts.Archive {
			sections = append(sections, "archive")
		}
		what := strings.Join(sections, " and ")
		if !parts.Table {
			return fmt.Errorf("check-config: %s configures no table but %s %s: check it with '%s check-config %s'",
				path, article(what), what, FloorName, path)
		}
		defer fmt.Fprintf(io.Out, "%s: note: its %s %s checked by '%s check-config %s'\n",
			path, what, cli.Plural(len(sections), "section is", "sections are"), FloorName, path)
	}
	fmt.Fprintf(io.Out, "%s: OK\n%s", path, b.String())
	if w := cfg.LimitsWarning(); w != "" && parts.Table {
		fmt.Fprintf(io.Out, "%s: warning: %s\n", path, w)
	}
	return nil
}

// article is "a" or "an" before word.
func article(word string) string {
	if strings.IndexByte("aeiou", word[0]) >= 0 {
		return "an"
	}
	return "a"
}

// Summary says in a few lines what a table's configuration c sets up: its table, rule
// set, decks and journal, its devices, its broker, its GPIO pins, where it ships its
// journal and its limits.
func Summary(c config.Config) string {
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
	fmt.Fprintf(&b, "  GPIO: %d %s\n", len(c.GPIO.Pins), cli.Plural(len(c.GPIO.Pins), "pin", "pins"))
	if c.Archive.Ship {
		to := c.Archive.To
		if len(to) == 0 {
			to = []string{api.DefaultArchiveID}
		}
		fmt.Fprintf(&b, "  journal shipped to %s %s\n", cli.Plural(len(to), "archive", "archives"), strings.Join(to, ", "))
	}
	if c.Limits != nil {
		fmt.Fprintf(&b, "  limits: %s\n", c.Limits)
	}
	return b.String()
}

// orNone is s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
