// Package tablecmd holds the commands of tablectl, the table's binary: each command
// lives in its own file here and only parses flags and wires packages together; the
// logic it calls lives in those packages. It imports nothing of the floor's services
// (the archive, the console), so the binary links no database driver.
package tablecmd

import (
	"context"
	"flag"

	"github.com/tablectl/tablectl/internal/cli"
)

// Name is the table's binary's name.
const Name = "tablectl"

// FloorName is the floor's binary's name: it has the commands of the floor's services.
const FloorName = "tablectl-floor"

// program is tablectl. It is made when Main or Run asks for it, so that a binary that
// takes only a part of this package (tablectl-floor: the report, the check of a
// configuration) links none of the rest.
func program() *cli.Program {
	return &cli.Program{
		Name: Name,
		Commands: []cli.Command{
			{Name: "run", Summary: "run the table: shoe, shuffler, journal, round controller, MQTT (--simulate for a simulated table)", Run: runRun},
			{Name: "check-config", Summary: "check a table's configuration file without starting the table", Run: runCheckConfig},
			{Name: "analyze", Summary: "exact house edge and return of every bet of a rule set", Run: runAnalyze},
			{Name: "roadmap", Summary: "draw the roads of a shoe's results read from standard input", Run: runRoadmap},
			{Name: "settle", Summary: "settle one round read from standard input: the wagers under the table's limits, each paid on its effective stake", Run: runSettle},
			{Name: "journal", Summary: "a table's journal: " + journalSummary, Run: runJournal},
			{Name: "mosquitto-acl", Summary: "print the Mosquitto ACL of the tables' topics and broker users (deploy/mosquitto/acl)", Run: runMosquittoACL},
			{Name: "key", Summary: "show or make the key the table signs its journal with", Run: runKey},
			{Name: "enroll", Summary: "add a table: its signing key, its broker password, the lines for the archive's keys and the broker's passwd", Run: runEnroll},
			{Name: "report", Summary: "write the shoe report of a journal for surveillance and the pit (HTML for A4, CSV, JSON lines)", Run: runReport},
			{Name: "simulate", Summary: "run a software shoe and shuffler on pseudo-terminals", Run: runSimulate},
			{Name: "watch", Summary: "read a shoe and shuffler and print what the round controller makes of them", Run: runWatch},
		},
		Elsewhere: map[string]string{"archive": FloorName, "console": FloorName, "export": FloorName},
		Note:      "The floor's services (archive, console, and the report and export from the archive) are in " + FloorName + ".",
	}
}

// Main runs tablectl with the arguments of the process, and exits (cli.Program.Main).
// SIGHUP stops every command of the table, as SIGTERM does.
func Main() { program().Main() }

// Run runs the command of args as tablectl runs it, reading and writing io: a test, or
// tablectl-floor's tests, run a table's command in-process with it.
func Run(ctx context.Context, args []string, io cli.Stdio) error { return program().Run(ctx, args, io) }

// newFlagSet returns the flag set of tablectl's command name.
func newFlagSet(name string, io cli.Stdio) *flag.FlagSet { return cli.NewFlagSet(Name+" "+name, io) }
