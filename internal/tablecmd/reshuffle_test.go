package tablecmd

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRunSimulateReshuffle: `run --simulate` with a Royal Baccarat table set to reshuffle
// after every round (royal.end_of_round: reshuffle; Royal Baccarat, End of round) deals
// each round from a new set the simulated shuffler reports: the journal holds one shoe,
// a set loaded for every round after the first, each the next set reported (1, 2, 3 and
// on), each burned, the rounds numbered on across the sets, and no irregularity. On a
// failure it shows the run's log and the journal's records around the first thing amiss.
func TestRunSimulateReshuffle(t *testing.T) {
	t.Parallel()
	const rounds = 40
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tablectl.yaml")
	if err := os.WriteFile(cfg, []byte("table: R7\nrules: royal\ndecks: 4\nroyal:\n  paytable: 2\n  end_of_round: reshuffle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jdir := filepath.Join(dir, "journal")
	runOut, runLog, err := runCmd(t, "", "run", "--config", cfg, "--simulate", "--pace", "0", "--rounds", "40", "--journal", jdir,
		"--http", "", "--broker-listen", "127.0.0.1:0", "--broker-websocket", "")
	if err != nil {
		t.Fatalf("%v\n%s", err, runOut)
	}
	logShown := t.Failed() // runCmd showed the log of a run that did not end by itself
	out, _, err := runCmd(t, "", "journal", "replay", "--json", jdir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	amiss := 0 // the journal record of the first thing amiss, 0: none
	note := func(seq int, what string, args ...any) {
		t.Errorf("record #%d: "+what, append([]any{seq}, args...)...)
		if amiss == 0 {
			amiss = seq
		}
	}
	lastSet := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			Seq   int `json:"seq"`
			Event struct {
				Kind string `json:"kind"`
				Set  string `json:"set"`
			} `json:"event"`
			Effects []struct {
				Kind  string `json:"kind"`
				Shoe  uint32 `json:"shoe"`
				Round uint32 `json:"round"`
			} `json:"effects"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Event.Kind == "new-shoe" {
			if set, _ := strconv.Atoi(rec.Event.Set); set != lastSet+1 {
				note(rec.Seq, "set %s loaded after set %d: want the next set reported, %d", rec.Event.Set, lastSet, lastSet+1)
			}
			lastSet, _ = strconv.Atoi(rec.Event.Set)
		}
		for _, e := range rec.Effects {
			kinds[e.Kind]++
			switch {
			case e.Kind == "round-settled" && (e.Shoe != 1 || e.Round != uint32(kinds[e.Kind])):
				note(rec.Seq, "round settled as shoe %d round %d, want shoe 1 round %d", e.Shoe, e.Round, kinds[e.Kind])
			case e.Kind == "irregularity-raised" || e.Kind == "card-not-due":
				note(rec.Seq, "%s", e.Kind)
			}
		}
	}
	if kinds["round-settled"] != rounds || kinds["shoe-started"] != 1 || kinds["set-loaded"] != rounds-1 ||
		kinds["burn-started"] != rounds || kinds["irregularity-raised"] != 0 || kinds["card-not-due"] != 0 {
		t.Errorf("effects %v: want %d rounds settled, 1 shoe started, %d sets loaded, %d burns, no irregularity", kinds, rounds, rounds-1, rounds)
	}
	if !t.Failed() {
		return
	}
	if !logShown {
		t.Logf("the run's log:\n%s", runLog)
	}
	text, _, err := runCmd(t, "", "journal", "replay", jdir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the journal's records around record #%d (card numbers seq=, flags burned and resent):\n%s", amiss, recordsAround(text, amiss, 16, 24))
}

// recordsAround picks, from a text replay (`journal replay`), the records from before
// records before record seq to after records after it; with seq 0, the last ones.
func recordsAround(replay string, seq, before, after int) string {
	var recs []string // each record: its line and its effects' lines
	for _, l := range strings.Split(strings.TrimRight(replay, "\n"), "\n") {
		if strings.HasPrefix(l, "#") || len(recs) == 0 {
			recs = append(recs, l)
		} else {
			recs[len(recs)-1] += "\n" + l
		}
	}
	at := len(recs) - 1
	for i, r := range recs {
		if strings.HasPrefix(r, "#"+strconv.Itoa(seq)+" ") {
			at = i
			break
		}
	}
	return strings.Join(recs[max(0, at-before):min(len(recs), at+after+1)], "\n")
}
