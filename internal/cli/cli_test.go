package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestParseFlagsNamesTheCommand: a bad flag is an error that names the command without
// its program, and where its flags are listed; -h prints the command's usage.
func TestParseFlagsNamesTheCommand(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"tablectl journal verify", "tablectl-floor console user add"} {
		var errb bytes.Buffer
		fs := NewFlagSet(name, Stdio{Err: &errb})
		fs.String("key", "", "a key")
		err := ParseFlags(fs, []string{"--nope"})
		sub := name[strings.Index(name, " ")+1:]
		want := sub + ": flag provided but not defined: -nope\nsee '" + name + " -h' for its flags"
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
		if errb.Len() != 0 {
			t.Errorf("%s: a bad flag printed %q", name, errb.String())
		}
		fs.Usage = func() { errb.WriteString("usage of " + name) }
		if err := ParseFlags(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) || errb.String() != "usage of "+name {
			t.Errorf("%s -h: %v, printed %q", name, err, errb.String())
		}
	}
}

// TestParseInterspersed: flags are taken wherever they stand among the arguments.
func TestParseInterspersed(t *testing.T) {
	t.Parallel()
	fs := NewFlagSet("tablectl report", Stdio{Err: &bytes.Buffer{}})
	format := fs.String("format", "html", "")
	rest, err := ParseInterspersed(fs, []string{"dir1", "--format", "csv", "dir2"})
	if err != nil || *format != "csv" || strings.Join(rest, " ") != "dir1 dir2" {
		t.Fatalf("%v %q %q", err, *format, rest)
	}
}

// TestProgramRun: a program runs the command named, lists its commands and its note on
// help, refuses an unknown one with its usage, and names the other binary of a command
// it has not.
func TestProgramRun(t *testing.T) {
	t.Parallel()
	var got []string
	p := &Program{Name: "tablectl", Note: "The floor's services are in tablectl-floor.",
		Commands: []Command{{Name: "run", Summary: "run the table", Run: func(_ context.Context, args []string, _ Stdio) error {
			got = args
			return nil
		}}},
		Elsewhere: map[string]string{"console": "tablectl-floor"}}
	var errb bytes.Buffer
	io := Stdio{Err: &errb}
	if err := p.Run(context.Background(), []string{"run", "--simulate"}, io); err != nil || strings.Join(got, " ") != "--simulate" {
		t.Fatalf("run: %v %q", err, got)
	}
	if err := p.Run(context.Background(), []string{"-h"}, io); err != nil ||
		!strings.Contains(errb.String(), "usage: tablectl COMMAND [flags]") || !strings.Contains(errb.String(), "  run            run the table\n") ||
		!strings.HasSuffix(errb.String(), "Run 'tablectl COMMAND -h' for a command's flags.\nThe floor's services are in tablectl-floor.\n") {
		t.Fatalf("-h: %v\n%s", err, errb.String())
	}
	errb.Reset()
	if err := p.Run(context.Background(), nil, io); err == nil || err.Error() != "no command given" || !strings.Contains(errb.String(), "usage:") {
		t.Fatalf("no command: %v\n%s", err, errb.String())
	}
	errb.Reset()
	if err := p.Run(context.Background(), []string{"deal"}, io); err == nil || err.Error() != `unknown command "deal"` || !strings.Contains(errb.String(), "usage:") {
		t.Fatalf("unknown command: %v\n%s", err, errb.String())
	}
	errb.Reset()
	err := p.Run(context.Background(), []string{"console", "--config", "c.yaml"}, io)
	if want := "console is a command of tablectl-floor, not of tablectl: run 'tablectl-floor console --config c.yaml'"; err == nil || err.Error() != want || errb.Len() != 0 {
		t.Fatalf("a command of the other binary: %v, want %s\n%s", err, want, errb.String())
	}
}

// TestPlural: one for 1, many otherwise.
func TestPlural(t *testing.T) {
	t.Parallel()
	if Plural(1, "table", "tables") != "table" || Plural(0, "table", "tables") != "tables" || Plural(2, "table", "tables") != "tables" {
		t.Fatal("Plural")
	}
}
