package tablecmd

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// quietRun are the flags of a simulated run as fast as it goes, with its own broker on a
// free port and no board.
var quietRun = []string{"--pace", "0", "--broker-listen", "127.0.0.1:0", "--broker-websocket", "", "--http", ""}

// warnings lists a log's lines at WARN or above.
func warnings(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			out = append(out, l)
		}
	}
	return out
}

// leftInTemp lists what tablectl left in the temporary directory.
func leftInTemp(t *testing.T, tmp string) []string {
	t.Helper()
	es, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// TestSimulateLeavesTheTablesJournalAlone: a technician tries a table's configuration
// with --simulate. The file's journal, the table's audited record, and its signing key
// are left untouched: the simulation runs on a new temporary journal, which the first
// log line names and which is removed at exit, with nothing else left behind. A clean
// run logs no warning.
func TestSimulateLeavesTheTablesJournalAlone(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	prod := filepath.Join(dir, "var", "lib", "tablectl")
	cfg := filepath.Join(dir, "tablectl.yaml")
	yaml := "table: bac-07\nrules: rws\njournal: " + filepath.Join(prod, "journal") + "\njournal_key: " + filepath.Join(prod, "table.key") + "\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	out, log, err := runCmd(t, "", append([]string{"run", "--simulate", "--config", cfg, "--rounds", "3"}, quietRun...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if _, err := os.Stat(prod); !os.IsNotExist(err) {
		t.Errorf("the file's journal directory %s was touched: %v", prod, err)
	}
	first, _, _ := strings.Cut(log, "\n")
	if !strings.Contains(first, "journal: a new temporary one, removed at exit") || !strings.Contains(first, "journal="+tmp+"/tablectl-journal-") {
		t.Errorf("the first log line does not name the temporary journal:\n%s", first)
	}
	if !strings.Contains(out, "journal "+tmp+"/tablectl-journal-") {
		t.Errorf("the table's line does not name the temporary journal:\n%s", out)
	}
	if w := warnings(log); len(w) > 0 {
		t.Errorf("a clean simulated run warned:\n%s", strings.Join(w, "\n"))
	}
	if left := leftInTemp(t, tmp); len(left) > 0 {
		t.Errorf("left in the temporary directory: %v", left)
	}

	// --journal on the command line is used, and kept.
	given := filepath.Join(dir, "sim")
	if _, log, err := runCmd(t, "", append([]string{"run", "--simulate", "--config", cfg, "--rounds", "1", "--journal", given}, quietRun...)...); err != nil {
		t.Fatalf("%v\n%s", err, log)
	} else if first, _, _ := strings.Cut(log, "\n"); !strings.Contains(first, "journal="+given) {
		t.Errorf("the first log line does not name --journal's:\n%s", first)
	}
	if !hasSegments(t, given) {
		t.Errorf("--journal %s not written", given)
	}
}

// hasSegments reports whether dir holds a journal's segments.
func hasSegments(t *testing.T, dir string) bool {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.seg"))
	return len(m) > 0
}

// TestInterruptedRunStopsQuietly: stopped by an interrupt in the middle of dealing (as
// Ctrl-C stops it), a simulated run logs no warning and leaves nothing in the temporary
// directory.
func TestInterruptedRunStopsQuietly(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		args := []string{"--simulate", "--pace", "2ms", "--round-pause", "0", "--broker-listen", "127.0.0.1:0", "--broker-websocket", "", "--http", ""}
		done, lines, logs := startRunLogged(t, ctx, args...)
		go func() {
			for range lines {
			}
		}()
		for {
			settled, written := logs.Holds("round-settled")
			if settled {
				break
			}
			select {
			case err := <-done:
				t.Fatalf("ended before a round: %v\n%s", err, logs.String())
			case <-written:
			}
		}
		cancel() // as the interrupt does
		if err := <-done; err != nil {
			t.Errorf("run %d: %v", i, err)
		}
		if w := warnings(logs.String()); len(w) > 0 {
			t.Errorf("run %d: a clean stop warned:\n%s", i, strings.Join(w, "\n"))
		}
	}
	if left := leftInTemp(t, tmp); len(left) > 0 {
		t.Errorf("left in the temporary directory: %v", left)
	}
}

// TestSignalsStopCleanly: tablectl stopped by SIGTERM (the service manager), SIGINT
// (Ctrl-C) or SIGHUP (its terminal closed) ends with status 0, logs no warning and
// leaves nothing in the temporary directory.
func TestSignalsStopCleanly(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		tmp := t.TempDir()
		cmd := exec.Command(os.Args[0], append([]string{"run", "--simulate", "--pace", "5ms", "--round-pause", "0"}, quietRun[2:]...)...)
		cmd.Env = append(os.Environ(), "TABLECTL_TEST_MAIN=1", "TMPDIR="+tmp)
		var log lockedBuffer
		cmd.Stderr = &log
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		for sc.Scan() && !strings.HasPrefix(sc.Text(), "table ") {
		}
		go io.Copy(io.Discard, out)
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("%v: %v\n%s", sig, err, log.String())
		}
		if w := warnings(log.String()); len(w) > 0 {
			t.Errorf("%v: warned:\n%s", sig, strings.Join(w, "\n"))
		}
		if left := leftInTemp(t, tmp); len(left) > 0 {
			t.Errorf("%v: left in the temporary directory: %v", sig, left)
		}
	}
}
