package simulator

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
)

var update = flag.Bool("update", false, "rewrite the expected transcripts of the scenarios")

// transcript prints what the drivers reported, as the scenario files hold it. A
// disconnect's reason is left out: it is the operating system's wording.
func transcript(shoeEvs, shufEvs []device.Event) string {
	var b strings.Builder
	for _, part := range []struct {
		name string
		evs  []device.Event
	}{{"shoe", shoeEvs}, {"shuffler", shufEvs}} {
		b.WriteString(part.name + ":\n")
		for _, e := range part.evs {
			if e.Kind == device.Disconnected {
				e.Reason = ""
			}
			b.WriteString("  " + e.String() + "\n")
		}
	}
	return b.String()
}

// TestScenarios runs each scenario of testdata/scenarios over pseudo-terminals with the
// real drivers and compares the events they report with the transcript after the
// scenario's "----" line. Run with -update to rewrite the transcripts.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txt")
	if err != nil || len(files) < 10 {
		t.Fatalf("scenarios %v: %v", files, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			script, want, ok := strings.Cut(string(b), "\n----\n")
			if !ok {
				t.Fatalf("%s: no ---- line before the transcript", file)
			}
			sc, err := ParseScenario(strings.NewReader(script))
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			// The shoe's stamps follow its clock, not the scenario, and would change the
			// transcript's offsets and checksums: the scenarios run with a shoe that does
			// not stamp, and TestShoeStampsItsCards checks the stamps.
			shoeEvs, shufEvs := runScenario(t, Config{Protocol: sc.Protocol, Seed: sc.Seed, Decks: sc.Decks, Cut: sc.Cut,
				Unstamped: true}, sc.Steps)
			got := transcript(shoeEvs, shufEvs)
			if *update {
				if err := os.WriteFile(file, []byte(script+"\n----\n"+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Fatalf("%s: the drivers reported\n%s\nthe transcript says\n%s", file, got, want)
			}
		})
	}
}

func TestParseScenarioErrorsNameTheLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"burn\nround x\n", "scenario line 2: round: \"x\" is not a number"},
		{"shuffle\ndecks 8\n", "scenario line 2: decks: a setting must come before the first action"},
		{"card ZZ\n", "scenario line 1: card: card 1: card \"ZZ\""},
		{"protocol morse\n", "scenario line 1: protocol: shoe wire format \"morse\""},
		{"\n\nnoise 0G\n", "scenario line 3: noise: want hex bytes"},
		{"lid ajar\n", "scenario line 1: lid: want open or closed"},
		{"teleport\n", "scenario line 1: teleport: unknown directive"},
		{"seed -1\n", "scenario line 1: seed: \"-1\" is not a seed"},
		{"burn\nseed 7\n", "scenario line 2: seed: a setting must come before the first action"},
		{"burn\nrules rws\n", "scenario line 2: rules: a setting must come before the first action"},
		{"rules baccara\n", "scenario line 1: rules: unknown rule set \"baccara\""},
		{"insurance-pause 2m\n", "scenario line 1: insurance-pause: \"2m\" is not a duration from 0s to 1m0s"},
		{"dealer-confirms now\n", "scenario line 1: dealer-confirms: takes nothing"},
		{"bets 1:player:x\n", "scenario line 1: bets: wager \"1:player:x\": the stake must be a whole number"},
		{"bets 1:ante:5\n", "scenario line 1: bets: wager \"1:ante:5\": unknown bet \"ante\""},
		{"bets player:100\n", "scenario line 1: bets: wager \"player:100\": want box:bet:stake"},
		{"insurance-bet\n", "scenario line 1: insurance-bet: want one wager"},
		{"confirm now\n", "scenario line 1: confirm: takes nothing"},
		{"report wrong_hand\n", "scenario line 1: report: want the irregularity's kind and who reports it"},
		{"report misdeal dealer\n", "scenario line 1: report: unknown irregularity"},
		{"report wrong_hand croupier\n", "scenario line 1: report: unknown role \"croupier\""},
		{"decide x continue supervisor\n", "scenario line 1: decide: \"x\" is not a number"},
		{"decide 1 maybe supervisor\n", "scenario line 1: decide: unknown decision \"maybe\""},
		{"option 1 maybe dealer\n", "scenario line 1: option: unknown option \"maybe\""},
		{"option 1 insurance-intended pit_manager ante\n", "scenario line 1: option: unknown bet \"ante\""},
		{"protocol ascii\nburn\nconfirm\n", "scenario line 3: confirm: the table's actions need the tablectl protocol"},
		{"wait forever\n", "scenario line 1: wait: \"forever\" is not a duration"},
		{"swap 2 2\n", "scenario line 1: swap: a card cannot change places with itself"},
		{"swap 0 2\n", "scenario line 1: swap: \"0\" is not a number from 1"},
	} {
		_, err := ParseScenario(strings.NewReader(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ParseScenario(%q) = %v, want an error starting %q", c.in, err, c.want)
		}
	}
}

// TestParseScenarioSeedTakesAnyUint64 checks that a script takes every seed the command
// line's --seed takes, on 32-bit ARM as on 64-bit machines.
func TestParseScenarioSeedTakesAnyUint64(t *testing.T) {
	for _, seed := range []uint64{0, 1 << 31, 1 << 40, math.MaxUint64} {
		sc, err := ParseScenario(strings.NewReader(fmt.Sprintf("seed %d\nburn\n", seed)))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if sc.Seed != seed {
			t.Errorf("seed %d parsed as %d", seed, sc.Seed)
		}
	}
}

// TestParseScenarioTable: the table's settings and actions are read into the table's
// commands, as docs/mqtt.md gives them.
func TestParseScenarioTable(t *testing.T) {
	sc, err := ParseScenario(strings.NewReader(`rules royal
insurance-pause 1500ms
options-pause 20s
dealer-confirms
burn
bets 1:player:100 2:banker_pair:5
insurance-bet 3:banker_insurance:50
insurance-closed
report wrong_hand dealer the player's card   # comment
decide 2 continue supervisor
option 1 insurance-intended pit_manager banker_insurance
option 2 bet-returned dealer
options-closed supervisor
confirm
end-shoe
bets
wait 250ms
swap 1 3
`))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Rules != "royal" || sc.InsurancePause == nil || *sc.InsurancePause != 1500*time.Millisecond || !sc.DealerConfirms || !sc.HasTableActions() ||
		sc.OptionsPause == nil || *sc.OptionsPause != 20*time.Second {
		t.Errorf("settings: rules %q, pause %v, options pause %v, dealer confirms %v", sc.Rules, sc.InsurancePause, sc.OptionsPause, sc.DealerConfirms)
	}
	want := []string{
		"",
		`dealer {"cmd":"bets_closed","wagers":[{"box":"1","bet":"player","stake":100},{"box":"2","bet":"banker_pair","stake":5}]}`,
		`dealer {"cmd":"insurance_bet","wager":{"box":"3","bet":"banker_insurance","stake":50}}`,
		`dealer {"cmd":"insurance_closed"}`,
		`dealer {"cmd":"report","detail":"the player's card","kind":"wrong_hand"}`,
		`supervisor {"choice":"continue","cmd":"decide","irregularity":2}`,
		`pit_manager {"bet":"banker_insurance","box":"1","cmd":"box_option","option":"insurance-intended"}`,
		`dealer {"box":"2","cmd":"box_option","option":"bet-returned"}`,
		`supervisor {"cmd":"options_closed"}`,
		`dealer {"cmd":"confirm"}`,
		`dealer {"cmd":"end_shoe"}`,
		`dealer {"cmd":"bets_closed"}`,
		"",
		"",
	}
	if len(sc.Steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(sc.Steps), len(want))
	}
	for i, st := range sc.Steps {
		got := ""
		if st.IsTableAction() {
			got = st.Role + " " + string(st.Command)
		}
		if got != want[i] {
			t.Errorf("line %d (%s): %s, want %s", st.Line, st.Op, got, want[i])
		}
	}
	if w, s := sc.Steps[12], sc.Steps[13]; w.Wait != 250*time.Millisecond || s.N != 1 || s.M != 3 {
		t.Errorf("wait %s, swap %d %d", w.Wait, s.N, s.M)
	}
}

// TestTableActionNeedsATable: the simulator alone, with no table, refuses a table action
// and names its line.
func TestTableActionNeedsATable(t *testing.T) {
	sc, err := ParseScenario(strings.NewReader("confirm\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := &Simulator{cfg: Config{}}
	if err := s.Run(context.Background(), sc.Steps); err == nil || !strings.HasPrefix(err.Error(), "scenario line 1: confirm: this is the table's action") {
		t.Errorf("got %v", err)
	}
}
