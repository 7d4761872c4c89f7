// Command tablectl is the baccarat table controller. It runs as one binary with
// subcommands; each subcommand lives in its own file here and only parses flags and wires
// packages together: the logic it calls lives in those packages.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// command is one subcommand of tablectl.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdio stdio) error
}

// stdio is where a subcommand reads and writes, so tests can run it in-process.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	// reload has SIGHUP for the commands that reload on it (reloads); nil for the others,
	// and for a command a test runs in-process.
	reload <-chan os.Signal
}

var commands = []command{
	{"run", "run the table: shoe, shuffler, journal, round controller, MQTT (--simulate for a simulated table)", runRun},
	{"check-config", "check a configuration file without starting the table", runCheckConfig},
	{"analyze", "exact house edge and return of every bet of a rule set", runAnalyze},
	{"roadmap", "draw the roads of a shoe's results read from standard input", runRoadmap},
	{"settle", "settle one round read from standard input: the wagers under the table's limits, each paid on its effective stake", runSettle},
	{"journal", "a table's journal: " + journalSummary, runJournal},
	{"mosquitto-acl", "print the Mosquitto ACL of the tables' topics and broker users (deploy/mosquitto/acl)", runMosquittoACL},
	{"key", "show or make the key the table signs its journal with", runKey},
	{"enroll", "add a table: its signing key, its broker password, the lines for the archive's keys and the broker's passwd", runEnroll},
	{"report", "write the shoe report of a journal for surveillance and the pit (HTML for A4, CSV, JSON lines)", runReport},
	{"simulate", "run a software shoe and shuffler on pseudo-terminals", runSimulate},
	{"watch", "read a shoe and shuffler and print what the round controller makes of them", runWatch},
}

func main() {
	// Interrupted, stopped by the service manager, or its terminal closed, tablectl stops
	// cleanly: its offline status out, its temporary directories removed. The console and
	// the archive take SIGHUP as a reload instead (systemctl reload), and serve on.
	std := stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}
	stopOn := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if reloads(os.Args[1:]) {
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		std.reload = hup
	} else {
		stopOn = append(stopOn, syscall.SIGHUP)
	}
	ctx, stop := signal.NotifyContext(context.Background(), stopOn...)
	err := run(ctx, os.Args[1:], std)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
		// -h: the flags were listed, as asked
	case err != nil:
		fmt.Fprintln(os.Stderr, "tablectl:", err)
		os.Exit(2)
	}
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

// onReload calls f at each signal of reload (nil: never) until stop, which waits for a
// call in progress.
func onReload(reload <-chan os.Signal, f func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case <-reload:
				f()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

func run(ctx context.Context, args []string, io stdio) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(io.err)
		if len(args) == 0 {
			return errors.New("no command given")
		}
		return nil
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, args[1:], io)
		}
	}
	usage(io.err)
	return fmt.Errorf("unknown command %q", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: tablectl COMMAND [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-14s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'tablectl COMMAND -h' for a command's flags.")
}

// parseFlags parses args with fs. A bad flag is an error that names it and where the
// command's flags are listed, not the whole list; -h prints the list (fs.Usage).
func parseFlags(fs *flag.FlagSet, args []string) error {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp) && usage != nil:
		usage()
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
		fs.PrintDefaults()
	case err != nil:
		return fmt.Errorf("%s: %w\nsee '%s -h' for its flags", strings.TrimPrefix(fs.Name(), "tablectl "), err, fs.Name())
	}
	return err
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string, io stdio) *flag.FlagSet {
	fs := flag.NewFlagSet("tablectl "+name, flag.ContinueOnError)
	fs.SetOutput(io.err)
	return fs
}
