// Package cli is what the commands of tablectl and tablectl-floor share: a program of
// subcommands and its main, where a command reads and writes, the parsing of its flags,
// its logger, the reload on SIGHUP, and the words of a failure to listen.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// Stdio is where a command reads and writes, so a test can run it in-process.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
	// Reload has SIGHUP for the commands that reload on it (Program.Reloads); nil for the
	// others, and for a command a test runs in-process.
	Reload <-chan os.Signal
}

// Command is one subcommand of a program: its name, what it does in a line, and what
// runs it with the arguments after its name.
type Command struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, args []string, io Stdio) error
	// Hidden leaves the command out of the usage: it only says where another is.
	Hidden bool
}

// Program is a binary of subcommands: tablectl, or tablectl-floor.
type Program struct {
	// Name is the binary's name, as its usage and its errors give it.
	Name string
	// Commands are its subcommands, in the order its usage lists them.
	Commands []Command
	// Reloads reports whether the command of args takes SIGHUP as a reload; nil: none
	// does, and SIGHUP stops every command.
	Reloads func(args []string) bool
	// Elsewhere names, by command, the other binary that has a command this one has not:
	// asked for it, the program says where it is.
	Elsewhere map[string]string
	// Note ends the usage: a line on what the program is not.
	Note string
}

// Main runs the command of os.Args and exits: 2 with the error on standard error when
// it fails, 0 otherwise. Interrupted, stopped by the service manager, or its terminal
// closed, the command stops cleanly (its context ends). A command that reloads (Reloads)
// takes SIGHUP as a reload instead (systemctl reload), and serves on.
func (p *Program) Main() {
	std := Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}
	stopOn := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if p.Reloads != nil && p.Reloads(os.Args[1:]) {
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		std.Reload = hup
	} else {
		stopOn = append(stopOn, syscall.SIGHUP)
	}
	ctx, stop := signal.NotifyContext(context.Background(), stopOn...)
	err := p.Run(ctx, os.Args[1:], std)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
		// -h: the flags were listed, as asked
	case err != nil:
		fmt.Fprintln(os.Stderr, p.Name+":", err)
		os.Exit(2)
	}
}

// Run runs the command args names with the rest of args. No command, or an unknown one,
// prints the usage and is an error; help prints it and is not.
func (p *Program) Run(ctx context.Context, args []string, io Stdio) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		p.Usage(io.Err)
		if len(args) == 0 {
			return errors.New("no command given")
		}
		return nil
	}
	for _, c := range p.Commands {
		if c.Name == args[0] {
			return c.Run(ctx, args[1:], io)
		}
	}
	if other, ok := p.Elsewhere[args[0]]; ok {
		return fmt.Errorf("%s is a command of %s, not of %s: run '%s %s'", args[0], other, p.Name, other, strings.Join(args, " "))
	}
	p.Usage(io.Err)
	return fmt.Errorf("unknown command %q", args[0])
}

// Usage lists the program's commands, each with its summary, on w.
func (p *Program) Usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s COMMAND [flags]\n\ncommands:\n", p.Name)
	for _, c := range p.Commands {
		if !c.Hidden {
			fmt.Fprintf(w, "  %-14s %s\n", c.Name, c.Summary)
		}
	}
	fmt.Fprintf(w, "\nRun '%s COMMAND -h' for a command's flags.\n", p.Name)
	if p.Note != "" {
		fmt.Fprintln(w, p.Note)
	}
}

// NewFlagSet returns a flag set named name ("tablectl run") that reports errors
// instead of exiting, and writes its usage to io.Err.
func NewFlagSet(name string, io Stdio) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Err)
	return fs
}

// ParseFlags parses args with fs. A bad flag is an error that names it and where the
// command's flags are listed, not the whole list; -h prints the list (fs.Usage) and is
// flag.ErrHelp.
func ParseFlags(fs *flag.FlagSet, args []string) error {
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
		// The command's name without its program's: "journal verify: ...".
		name := fs.Name()
		if _, sub, ok := strings.Cut(name, " "); ok {
			name = sub
		}
		return fmt.Errorf("%s: %w\nsee '%s -h' for its flags", name, err, fs.Name())
	}
	return err
}

// ParseInterspersed parses fs's flags wherever they stand among the arguments, and
// returns the arguments that are not flags.
func ParseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for len(args) > 0 {
		if err := ParseFlags(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return rest, nil
}

// Given names the flags given on the command line.
func Given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// NewLogger returns a logger that writes to w: one JSON object a line with json, text
// otherwise.
func NewLogger(json bool, w io.Writer) *slog.Logger {
	if json {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// OnReload calls f at each signal of reload (nil: never) until stop, which waits for a
// call in progress.
func OnReload(reload <-chan os.Signal, f func()) (stop func()) {
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

// ListenError words a failure to serve what on addr (flag sets it, and with optional
// flag "" serves nothing), saying what to do when another program holds the address.
func ListenError(what, flag, addr string, optional bool, err error) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%s %s: %w", what, addr, err)
	}
	none := ""
	if optional {
		none = fmt.Sprintf(", or %s \"\" to serve none", flag)
	}
	return fmt.Errorf("%s: %s is already in use by another program (another tablectl?): choose another address with %s ADDR%s", what, addr, flag, none)
}

// Plural is one when n is 1, many otherwise.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
