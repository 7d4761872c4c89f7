package tablecmd

import (
	"context"
	"errors"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestErrorsAsAPersonReadsThem: the first mistakes a person makes with tablectl run are
// each told in a line or two that names the fault and what to do: a misspelt flag (not
// the 59 lines of every flag), a negative round count, a port another program holds, a
// journal in use, a configuration file indented with a tab.
func TestErrorsAsAPersonReadsThem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	try := func(args ...string) (string, string) {
		t.Helper()
		_, stderr, err := runCmd(t, "", args...)
		if err == nil {
			t.Fatalf("tablectl %s: no error", strings.Join(args, " "))
		}
		return err.Error(), stderr
	}

	msg, stderr := try("run", "--simulte")
	if msg != "run: flag provided but not defined: -simulte\nsee 'tablectl run -h' for its flags" || stderr != "" {
		t.Errorf("a misspelt flag: %q, and printed:\n%s", msg, stderr)
	}
	_, stderr, err := runCmd(t, "", "run", "-h")
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr, "Usage of tablectl run:") || !strings.Contains(stderr, "-simulate") {
		t.Errorf("run -h: %v, printed:\n%s", err, stderr)
	}
	msg, _ = try("watch", "--pace", "soon")
	if !strings.HasPrefix(msg, `watch: invalid value "soon" for flag -pace`) || !strings.HasSuffix(msg, "see 'tablectl watch -h' for its flags") {
		t.Errorf("a bad value: %q", msg)
	}
	for _, cmd := range []string{"run", "watch"} {
		if msg, _ := try(cmd, "--simulate", "--rounds", "-1"); msg != cmd+": --rounds -1: want 0 (until interrupted) or more" {
			t.Errorf("%s --rounds -1: %q", cmd, msg)
		}
	}
	if msg, _ := try("simulate", "--rounds", "-1"); msg != "simulate: --rounds -1: want 0 (until interrupted) or more" {
		t.Errorf("simulate --rounds -1: %q", msg)
	}

	// The board's port, held by another program.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	msg, _ = try(append([]string{"run", "--simulate", "--rounds", "1", "--http", ln.Addr().String()}, quietRun[:len(quietRun)-2]...)...)
	if want := "run: display board (http): " + ln.Addr().String() + " is already in use by another program (another tablectl?): choose another address with --http ADDR, or --http \"\" to serve none"; msg != want {
		t.Errorf("the board's port in use:\n got %q\nwant %q", msg, want)
	}

	// A journal in use by a running table: named once.
	j := filepath.Join(dir, "journal")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done, lines, _ := startRunLogged(t, ctx, append([]string{"--simulate", "--journal", j}, quietRun...)...)
	for l := range lines {
		if strings.HasPrefix(l, "table ") {
			break
		}
	}
	go func() {
		for range lines {
		}
	}()
	msg, _ = try(append([]string{"run", "--simulate", "--journal", j}, quietRun...)...)
	if msg != "run: journal "+j+": journal is in use by another process" {
		t.Errorf("a journal in use: %q", msg)
	}
	msg, _ = try("watch", "--simulate", "--journal", j)
	if strings.Count(msg, j) != 1 {
		t.Errorf("watch on a journal in use: %q", msg)
	}
	cancel()
	if err := <-done; err != nil {
		t.Error(err)
	}

	// A configuration file indented with a tab: its line.
	file := filepath.Join(dir, "tab.yaml")
	if err := os.WriteFile(file, []byte("table: t1\ndealer:\n  auto: true\n\tburn: none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, _ := try("run", "--simulate", "--config", file); msg != "run: "+file+":4: a tab in the indentation: YAML indents with spaces only" {
		t.Errorf("a tab: %q", msg)
	}
}
