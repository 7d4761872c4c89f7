package tablecmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/table"
)

// traceTime is the time watch prints before each effect: the one part that differs from
// run to run.
var traceTime = regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d\d\d `)

// TestTableScenarios plays each scenario of simulator/testdata/scenarios/table/*.txt with
// tablectl watch --simulate --scenario: the simulated shoe and shuffler on
// pseudo-terminals, the real drivers, the table's loop, and the scenario's table actions
// (bets, reports, decisions, players' options, confirmations) given as the table's
// commands. Every effect the table printed must be the transcript after the file's "----"
// line. Each file names the rule it exercises. Run with -update to rewrite the
// transcripts.
func TestTableScenarios(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "simulator", "testdata", "scenarios", "table", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			script, want, ok := strings.Cut(string(data), "\n----\n")
			if !ok {
				t.Fatalf("%s: no ---- line before the transcript", f)
			}
			out, stderr, err := runCmd(t, "", "watch", "--simulate", "--pace", "0", "--scenario", f)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			got := traceTime.ReplaceAllString(out, "")
			if *update {
				if err := os.WriteFile(f, []byte(strings.TrimRight(script, "\n")+"\n----\n"+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("%s:\n--- want\n%s--- got\n%s", f, want, got)
			}
		})
	}
}

// TestTableScenarioCommands: every table action of the scenarios is a command the table
// takes, from the role that gives it (table.ParseCommand), so none is lost as a
// malformed command before the table sees it.
func TestTableScenarioCommands(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("..", "..", "simulator", "testdata", "scenarios", "table", "*.txt"))
	actions := 0
	for _, f := range files {
		sc, err := readScenario(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range sc.Steps {
			if !st.IsTableAction() {
				continue
			}
			actions++
			if _, _, err := table.ParseCommand(st.Role, st.Command); err != nil {
				t.Errorf("%s line %d: %s %s: %v", f, st.Line, st.Role, st.Command, err)
			}
		}
	}
	if actions < 20 {
		t.Errorf("%d table actions in %d scenarios", actions, len(files))
	}
}

// TestSimulateRefusesTableActions: the simulator alone has no table to give a scenario's
// commands to: it says so, naming the file and the line, before opening any device.
func TestSimulateRefusesTableActions(t *testing.T) {
	t.Parallel()
	f := filepath.Join("..", "..", "simulator", "testdata", "scenarios", "table", "players-options.txt")
	_, _, err := runCmd(t, "", "simulate", "--scenario", f)
	if err == nil || !strings.Contains(err.Error(), f+": scenario line 11: bets is the table's action") {
		t.Errorf("got %v", err)
	}
}

// TestRunScenarioWithTable: run --simulate --scenario gives the scenario's table actions
// to the table among the commands that come over MQTT, under the scenario's rule set and
// Insurance pause, and journals them: NC Insurance 5.13's Original Bet returned.
func TestRunScenarioWithTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := filepath.Join("..", "..", "simulator", "testdata", "scenarios", "table", "insurance-drawn-over.txt")
	out, stderr, err := runCmd(t, "", "run", "--simulate", "--scenario", f, "--pace", "0", "--journal", dir,
		"--http", "", "--broker-listen", "127.0.0.1:0", "--broker-websocket", "")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(out, "rule set nc-insurance") {
		t.Errorf("the scenario's rule set not taken:\n%s", out)
	}
	replay, _, err := runCmd(t, "", "journal", "replay", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"box-option box=1 insurance-intended banker_insurance by pit_manager",
		"irregularity-raised #2 insurance_not_offered", "1:banker:100 push returned=100 insurance-intended",
		"insurance-closed auto", "1:banker_insurance:50 win 2:1 returned=150"} {
		if !strings.Contains(replay, want) {
			t.Errorf("the journal lacks %q:\n%s", want, replay)
		}
	}
}
