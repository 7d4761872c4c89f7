// Package floorcmd holds the commands of tablectl-floor, the binary of the floor's
// server: the archive, the console and its users, the report and the export of a table's
// journal from the archive, and the check of their configuration files. Each command
// lives in its own file here and only parses flags and wires packages together. The
// table's own commands are tablectl's (internal/tablecmd), whose code this package
// shares where a floor's command does what a table's does.
package floorcmd

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/internal/tablecmd"
)

// Name is the floor's binary's name.
const Name = tablecmd.FloorName

// program is tablectl-floor.
var program = &cli.Program{
	Name: Name,
	Commands: []cli.Command{
		{Name: "archive", Summary: "keep every table's journal off the table, checked, in PostgreSQL or SQLite, from the floor's broker", Run: runArchive},
		{Name: "console", Summary: "serve the console: every table of the floor, logins and roles, the dealers' and supervisors' commands", Run: runConsole},
		{Name: "report", Summary: "write the shoe report of a table's journal held in the floor's archive, or a pit's shift report (HTML for A4, CSV, JSON)", Run: runReport},
		{Name: "pace", Summary: "write rounds an hour, each phase's time and the time tables stood still, per table, dealer or pit, by hour, shift or day", Run: runPace},
		{Name: "alerts", Summary: "write the alerts the console raised and who acknowledged them, when, with what note", Run: runAlerts},
		{Name: "rotation", Summary: "write the dealers' rotation: who dealt where, from when to when", Run: runRotation},
		{Name: "integrity", Summary: "write the integrity watch's alarms (repeated orders, weak shuffles, sets, drifting results) and the position test of COMAR 36.05.02.17", Run: runIntegrity},
		{Name: "devices", Summary: "write what the tables' devices did: failed reads, faults, shuffles and their delays, disconnects and time offline", Run: runDevices},
		{Name: "export", Summary: "write a table's journal, as the floor's archive holds it, into a new journal directory", Run: runExport},
		{Name: "check-config", Summary: "check a console's, an archive's or a table's configuration file without starting anything", Run: runCheckConfig},
		{Name: "journal", Hidden: true, Run: runJournal},
	},
	Reloads: reloads,
	Elsewhere: map[string]string{"run": tablecmd.Name, "watch": tablecmd.Name, "simulate": tablecmd.Name,
		"key": tablecmd.Name, "enroll": tablecmd.Name, "analyze": tablecmd.Name, "roadmap": tablecmd.Name, "settle": tablecmd.Name,
		"mosquitto-acl": tablecmd.Name},
	Note: "The table's commands (run, journal, key, enroll, report DIR, mosquitto-acl...) are in " + tablecmd.Name + ".",
}

// Main runs tablectl-floor with the arguments of the process, and exits
// (cli.Program.Main). The console's server and the archive take SIGHUP as a reload.
func Main() { program.Main() }

// Run runs the command of args as tablectl-floor runs it, reading and writing io, so a
// test runs it in-process.
func Run(ctx context.Context, args []string, io cli.Stdio) error { return program.Run(ctx, args, io) }

// runJournal says where a journal's command is: the export from the archive is
// tablectl-floor export, every other is tablectl's.
func runJournal(_ context.Context, args []string, _ cli.Stdio) error {
	if len(args) > 0 && args[0] == "export" {
		return fmt.Errorf("journal export: the export from the archive is '%s export': run '%s export %s'", Name, Name, strings.Join(args[1:], " "))
	}
	return fmt.Errorf("journal is a command of %s, not of %s: run '%s journal %s'", tablecmd.Name, Name, tablecmd.Name, strings.Join(args, " "))
}

// reloads reports whether the command of args takes SIGHUP as a reload: the console's
// server (not its user subcommands) and the archive.
func reloads(args []string) bool {
	switch {
	case len(args) == 0:
		return false
	case args[0] == "archive":
		return true
	case args[0] == "console":
		return len(args) < 2 || args[1] != "user"
	}
	return false
}

// newFlagSet returns the flag set of tablectl-floor's command name.
func newFlagSet(name string, io cli.Stdio) *flag.FlagSet { return cli.NewFlagSet(Name+" "+name, io) }
