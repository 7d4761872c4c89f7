package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSimulateReshuffle: `run --simulate` with a Royal Baccarat table set to reshuffle
// after every round (royal.end_of_round: reshuffle; Royal Baccarat, End of round) deals
// each round from a new set the simulated shuffler reports: the journal holds one shoe,
// a set loaded for every round after the first, each burned, the rounds numbered on
// across the sets, and no irregularity.
func TestRunSimulateReshuffle(t *testing.T) {
	const rounds = 40
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tablectl.yaml")
	if err := os.WriteFile(cfg, []byte("table: R7\nrules: royal\ndecks: 4\nroyal:\n  paytable: 2\n  end_of_round: reshuffle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jdir := filepath.Join(dir, "journal")
	if out, _, err := runCmd(t, "", "run", "--config", cfg, "--simulate", "--pace", "0", "--rounds", "40", "--journal", jdir,
		"--http", "", "--broker-listen", "127.0.0.1:0", "--broker-websocket", ""); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, _, err := runCmd(t, "", "journal", "replay", "--json", jdir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			Effects []struct {
				Kind  string `json:"kind"`
				Shoe  uint32 `json:"shoe"`
				Round uint32 `json:"round"`
			} `json:"effects"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		for _, e := range rec.Effects {
			kinds[e.Kind]++
			if e.Kind == "round-settled" && (e.Shoe != 1 || e.Round != uint32(kinds[e.Kind])) {
				t.Errorf("round settled as shoe %d round %d, want shoe 1 round %d", e.Shoe, e.Round, kinds[e.Kind])
			}
		}
	}
	if kinds["round-settled"] != rounds || kinds["shoe-started"] != 1 || kinds["set-loaded"] != rounds-1 ||
		kinds["burn-started"] != rounds || kinds["irregularity-raised"] != 0 || kinds["card-not-due"] != 0 {
		t.Errorf("effects %v: want %d rounds settled, 1 shoe started, %d sets loaded, %d burns, no irregularity", kinds, rounds, rounds-1, rounds)
	}
}
