package tablecmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWatchSimulate runs the simulator and the real drivers in-process and checks that
// the rounds it deals come out of the round controller settled, in order.
func TestWatchSimulate(t *testing.T) {
	t.Parallel()
	out, _, err := runCmd(t, "", "watch", "--simulate", "--rounds", "3", "--pace", "0", "--rules", "nc-insurance")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"shoe-started shoe=1 set=1 decks=8", "burn-started", "round-settled round=1",
		"round-settled round=2", "round-settled round=3"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "irregularity-raised") {
		t.Errorf("a clean simulated shoe raised an irregularity:\n%s", out)
	}
	if i, j := strings.Index(out, "round-settled round=1"), strings.Index(out, "round-settled round=2"); i > j {
		t.Error("rounds out of order")
	}
}

func TestWatchErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"watch"}, "--shoe is required"},
		{[]string{"watch", "--simulate", "--shoe", "/dev/null"}, "leave out --shoe"},
		{[]string{"watch", "--shoe", "/dev/null", "--rules", "baccara"}, `unknown rule set "baccara"`},
	} {
		_, _, err := runCmd(t, "", tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestWatchJournalReplay: a watched table journals every event; the replay prints the
// same rounds, and the JSON replay is one object a record.
func TestWatchJournalReplay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, _, err := runCmd(t, "", "watch", "--simulate", "--rounds", "2", "--pace", "0", "--journal", dir); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "", "journal", "replay", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#1 settings", "new-shoe set=1 decks=8 cards=416 order=416", "round-settled round=1", "round-settled round=2", "confirm auto"} {
		if !strings.Contains(out, want) {
			t.Errorf("replay lacks %q:\n%s", want, out)
		}
	}
	js, _, err := runCmd(t, "", "journal", "replay", "--json", dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(js), "\n")
	if len(lines) < 10 || !strings.HasPrefix(lines[0], `{"seq":1,"settings":`) || !strings.Contains(js, `"kind":"round-settled"`) {
		t.Errorf("JSON replay:\n%.600s", js)
	}
	// A second run on the same journal replays it first and goes on with the shoe in
	// play: its simulated shoe deals on from the order the journal's shuffler recorded,
	// as the same shoe would, with nothing irregular.
	out, _, err = runCmd(t, "", "watch", "--simulate", "--rounds", "1", "--pace", "0", "--journal", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "records replayed") || !strings.Contains(out, "round-settled round=3") || strings.Contains(out, "irregularity") {
		t.Errorf("second run:\n%.800s", out)
	}
	if _, _, err := runCmd(t, "", "journal", "replay", dir, "extra"); err == nil {
		t.Error("two directories accepted")
	}
}

// TestScenarioInOneCommand: watch and run play a scenario file on their own simulator,
// with no second terminal: the simultaneous draw it stages holds the table (RWS Baccarat
// 5.10), and run journals it.
func TestScenarioInOneCommand(t *testing.T) {
	t.Parallel()
	scenario := filepath.Join("..", "..", "table", "testdata", "scenarios", "simultaneous-draw.txt")
	out, _, err := runCmd(t, "", "watch", "--simulate", "--scenario", scenario, "--pace", "0")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"round-settled round=1 B", "irregularity-raised #1 simultaneous_draw", "card-held 6H seq=8"} {
		if !strings.Contains(out, want) {
			t.Errorf("watch output lacks %q:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	if _, _, err := runCmd(t, "", "run", "--simulate", "--scenario", scenario, "--pace", "0", "--journal", dir,
		"--http", "", "--broker-listen", "127.0.0.1:0", "--broker-websocket", ""); err != nil {
		t.Fatal(err)
	}
	out, _, err = runCmd(t, "", "journal", "replay", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "irregularity-raised #1 simultaneous_draw") {
		t.Errorf("run's journal lacks the simultaneous draw:\n%s", out)
	}
	if _, _, err := runCmd(t, "", "run", "--scenario", scenario); err == nil || !strings.Contains(err.Error(), "give --simulate") {
		t.Errorf("--scenario without --simulate: %v", err)
	}
}
