package simulator

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
