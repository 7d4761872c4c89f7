package tablecmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/config"
)

// neglected are the Insurance offers the seeded simulated dealer (seed 1) draws over in
// its first 12 rounds at an NC Insurance table: the irregularities of NC Insurance 5.13.
var neglected = []string{
	"irregularity-raised #1 insurance_not_offered: 8D drawn with player_insurance after-player's-third-card player=8 banker=0-6 pays=7:1 still open (NC Insurance 5.13)",
	"irregularity-raised #2 insurance_not_offered: 9C drawn with banker_insurance after-four-cards player=0-5 banker=6 pays=3:1 still open (NC Insurance 5.13)",
}

// simulatedTable runs run --simulate for 12 rounds with no pace and the extra arguments,
// and returns its journal's replay.
func simulatedTable(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	args = append([]string{"run", "--simulate", "--rounds", "12", "--pace", "0", "--journal", filepath.Join(dir, "j"),
		"--http", "", "--broker-listen", "127.0.0.1:0", "--broker-websocket", ""}, args...)
	if _, stderr, err := runCmd(t, "", args...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	out, _, err := runCmd(t, "", "journal", "replay", filepath.Join(dir, "j"))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var effectLine = regexp.MustCompile(`(?m)^    (\S+)`)

// effects counts the kinds of effect in a replay.
func effects(replay string) map[string]int {
	n := map[string]int{}
	for _, m := range effectLine.FindAllStringSubmatch(replay, -1) {
		n[m[1]]++
	}
	return n
}

// TestSimulatedDealerDrawsOverInsurance: at a simulated NC Insurance table that leaves
// each offer open a pause, the simulated dealer waits for the table to close the offer,
// except for the offers the seeded dealer draws over: the table raises NC Insurance 5.13
// for each (recorded, the round continues and is settled). The pause is the flag's or the
// configuration file's, and watch deals the same; a table set to offer no Insurance (NC
// Insurance 4.2.2) makes no offer and raises nothing; with offers closed at once no card
// can be drawn over one.
func TestSimulatedDealerDrawsOverInsurance(t *testing.T) {
	t.Parallel()
	check := func(name, replay string) {
		t.Helper()
		for _, want := range neglected {
			if !strings.Contains(replay, want) {
				t.Errorf("%s: lacks %q:\n%s", name, want, replay)
			}
		}
		n := effects(replay)
		if n["irregularity-raised"] != len(neglected) || n["insurance-neglected"] != len(neglected) {
			t.Errorf("%s: %d irregularities, %d offers neglected; want %d of each:\n%s", name, n["irregularity-raised"], n["insurance-neglected"], len(neglected), replay)
		}
		if n["insurance-offered"] < 4 || n["insurance-offered"] != n["insurance-closed"]+n["insurance-neglected"] {
			t.Errorf("%s: %d offers, %d closed, %d neglected:\n%s", name, n["insurance-offered"], n["insurance-closed"], n["insurance-neglected"], replay)
		}
		if n["round-settled"] != 12 || n["round-voided"] != 0 {
			t.Errorf("%s: %d rounds settled, %d void, want 12 settled", name, n["round-settled"], n["round-voided"])
		}
		// The round of each neglected offer goes on and is settled.
		for _, round := range []string{"1", "10"} {
			if !strings.Contains(replay, "round-settled round="+round+" ") {
				t.Errorf("%s: round %s not settled", name, round)
			}
		}
	}
	check("--insurance-pause", simulatedTable(t, "--rules", "nc-insurance", "--insurance-pause", "500ms"))

	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	check("insurance_pause", simulatedTable(t, "--config", file("pause.yaml", "rules: nc-insurance\ndealer:\n  insurance_pause: 500ms\n")))

	out, stderr, err := runCmd(t, "", "watch", "--simulate", "--rounds", "12", "--pace", "0", "--rules", "nc-insurance", "--insurance-pause", "500ms")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range neglected {
		if !strings.Contains(out, want) {
			t.Errorf("watch lacks %q:\n%s", want, out)
		}
	}

	// 4.2.2: no offer, so nothing to draw over; were the setting ignored, the offers the
	// table would make would each be drawn over by a dealer who makes none.
	replay := simulatedTable(t, "--config", file("none.yaml", "rules: nc-insurance\ndealer:\n  no_insurance: true\n"), "--insurance-pause", "500ms")
	if n := effects(replay); n["insurance-offered"] != 0 || n["irregularity-raised"] != 0 || n["round-settled"] != 12 {
		t.Errorf("no_insurance: %v:\n%s", n, replay)
	}

	// Offers closed at once: each is closed as it opens.
	replay = simulatedTable(t, "--rules", "nc-insurance", "--insurance-pause", "0")
	if n := effects(replay); n["insurance-offered"] < 4 || n["insurance-closed"] != n["insurance-offered"] || n["irregularity-raised"] != 0 {
		t.Errorf("--insurance-pause 0: %v:\n%s", n, replay)
	}
}

// TestSimulatedInsurancePause: a simulated table that stands in for the dealer and offers
// Insurance leaves each offer open SimulatedInsurancePause unless a pause is given, so
// that run --simulate --rules nc-insurance shows NC Insurance 5.13 now and then; a table
// with no Insurance, or set to offer none (4.2.2), or a pause given, keeps its own.
func TestSimulatedInsurancePause(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rules    string
		none     bool
		given    bool
		pause    time.Duration
		want     time.Duration
		dealsFor bool
	}{
		{rules: "nc-insurance", want: SimulatedInsurancePause, dealsFor: true},
		{rules: "nc-insurance", given: true, pause: 0, want: 0},
		{rules: "nc-insurance", given: true, pause: 2 * time.Second, want: 2 * time.Second, dealsFor: true},
		{rules: "nc-insurance", none: true, want: 0},
		{rules: "rws", want: 0},
	} {
		f := &config.Flags{Given: map[string]bool{"insurance-pause": tc.given}, Simulate: true}
		s := &simulation{f: f}
		var r config.Run
		r.Simulate, r.Dealer.Auto, r.Dealer.InsurancePause = true, true, tc.pause
		r.Round.Rules, r.Round.NoInsurance = baccarat.MustLookup(tc.rules, baccarat.Options{}), tc.none
		s.defaultInsurancePause(&r)
		if r.Dealer.InsurancePause != tc.want {
			t.Errorf("%+v: pause %s, want %s", tc, r.Dealer.InsurancePause, tc.want)
		}
		if ins := dealerInsurance(r); (ins.Pause > 0) != tc.dealsFor || ins.Pause != r.Dealer.InsurancePause && tc.dealsFor {
			t.Errorf("%+v: the simulated dealer deals for %+v", tc, ins)
		}
	}
}
