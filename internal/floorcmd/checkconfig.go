package floorcmd

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/internal/tablecmd"
)

// runCheckConfig checks a configuration file without starting anything: a table's, as
// tablectl check-config does, and a console's and an archive's, checked as tablectl-floor
// console and tablectl-floor archive take them, the archive's keys file read.
var runCheckConfig = tablecmd.CheckConfig(Name, checkFloorParts)

// checkFloorParts sums up the console's and the archive's parts of cfg, or lists their
// faults, each naming path.
func checkFloorParts(cfg config.Config, path string) (string, []error) {
	var b strings.Builder
	var bad []error
	parts := cfg.Parts()
	if parts.Console {
		var faults config.Errors
		con, err := config.ApplyConsoleFlags(cfg, config.ConsoleFlags{})
		if errors.As(err, &faults) {
			inFile(faults, path) // the faults of the file, which has none of its own
			for _, f := range faults {
				bad = append(bad, f)
			}
		} else {
			b.WriteString(consoleSummary(con.Console))
		}
	}
	if parts.Archive {
		var faults config.Errors
		ar, err := config.ApplyArchiveFlags(cfg, config.ArchiveFlags{})
		if errors.As(err, &faults) {
			inFile(faults, path)
			for _, f := range faults {
				bad = append(bad, f)
			}
		} else if line, kerr := archiveSummary(ar.ArchiveService); kerr != nil {
			bad = append(bad, each(kerr)...) // each bad line of the keys file, with its line
		} else {
			b.WriteString(line)
		}
	}
	return b.String(), bad
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
	fmt.Fprintf(&b, "  archive keys: %s, %d %s\n", c.Keys, len(keys), cli.Plural(len(keys), "table", "tables"))
	if g := integrityOptions(c.Integrity).WithDefaults(); g.Off {
		fmt.Fprintln(&b, "  archive integrity watch: off")
	} else {
		window := g.Window.String()
		if g.Window%(24*time.Hour) == 0 {
			window = fmt.Sprintf("%d days", g.Window/(24*time.Hour))
		}
		fmt.Fprintf(&b, "  archive integrity watch: window %s, runs of %d cards, shuffles at p <= %g (one set, or the last %d), drift %g times the rate at one false alarm in %g rounds\n",
			window, g.MinRun, g.ShuffleAlarm, g.Sets, g.DriftRatio, g.DriftARL)
	}
	return b.String(), nil
}
