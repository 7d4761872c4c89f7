package tablecmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// startLine is the line run prints as the table starts.
func startLine(t *testing.T, out string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "table ") && strings.Contains(l, "MQTT topics") {
			return l
		}
	}
	t.Fatalf("no start line in:\n%s", out)
	return ""
}

// TestStartLineSaysWhereTheTableIs: run's start line names the journal by its absolute
// path, given a relative one, and says where the table is: no shoe on a fresh journal;
// on a restart, the round open for bets after the rounds dealt. A journal that cannot
// be made is named by its absolute path too.
func TestStartLineSaysWhereTheTableIs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	args := append([]string{"run", "--simulate", "--journal", "j1", "--rounds", "2"}, quietRun...)
	out, _, err := runCmd(t, "", args...)
	if err != nil {
		t.Fatal(err)
	}
	want := "table table-1: rule set classic, journal " + filepath.Join(dir, "j1") + " (no shoe yet), MQTT topics tablectl/v1/table-1/#"
	if got := startLine(t, out); got != want {
		t.Errorf("fresh journal:\n got %s\nwant %s", got, want)
	}
	out, _, err = runCmd(t, "", args...)
	if err != nil {
		t.Fatal(err)
	}
	if got := startLine(t, out); !strings.Contains(got, " (shoe 1, round 3 open for bets), ") {
		t.Errorf("a restart after two rounds: %s", got)
	}

	if err := os.WriteFile("a-file", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = runCmd(t, "", append([]string{"run", "--simulate", "--journal", filepath.Join("a-file", "j"), "--rounds", "1"}, quietRun...)...)
	if err == nil || !strings.Contains(err.Error(), "mkdir "+filepath.Join(dir, "a-file")+": not a directory") {
		t.Errorf("a journal under a file: %v, want its absolute path named", err)
	}
}

// TestPosition: the start line's account of the table, for each phase of play.
func TestPosition(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		st   round.State
		want string
	}{
		{round.State{}, "no shoe yet"},
		{round.State{Shoe: 2, Phase: round.Burning}, "shoe 2, burning, before its first round"},
		{round.State{Shoe: 2, Round: 0, Phase: round.BettingOpen}, "shoe 2, before its first round"},
		{round.State{Shoe: 2, Round: 7, Phase: round.BettingOpen}, "shoe 2, round 7 open for bets"},
		{round.State{Shoe: 2, Round: 7, Phase: round.Dealing}, "shoe 2, round 7 being dealt"},
		{round.State{Shoe: 2, Round: 7, Phase: round.Complete}, "shoe 2, round 7 dealt, awaiting the dealer's confirmation"},
		{round.State{Shoe: 2, Round: 70, Phase: round.ShoeDone}, "shoe 2, its last round (70) over, waiting for the shoe's end"},
		{round.State{Shoe: 2, Round: 70, Phase: round.NoShoe}, "shoe 2 over, waiting for the next shoe"},
		{round.State{Shoe: 3, Round: 1, Phase: round.NextSet}, "shoe 3, round 1 over, waiting for the next set"},
		{round.State{Shoe: 2, Round: 7, Phase: round.Dealing, Held: round.Held{ID: 4, Kind: irregularities.SimultaneousDraw}},
			"shoe 2, round 7 being dealt, held for irregularity 4"},
	} {
		if got := position(c.st); got != c.want {
			t.Errorf("%+v: %q, want %q", c.st.Phase, got, c.want)
		}
	}
}
