package table

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/simulator"
)

// TestRuleScenarios plays the irregularity scenarios of
// simulator/testdata/scenarios/rules/*.txt through the real shoe and shuffler drivers
// over pseudo-terminals, as TestScenarios does, and checks the table's effects against
// the transcript after each file's "----" line (burned cards included). Each file names
// the rule it exercises.
func TestRuleScenarios(t *testing.T) {
	showBurn = true
	defer func() { showBurn = false }()
	files, err := filepath.Glob("../simulator/testdata/scenarios/rules/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			script, want, _ := strings.Cut(string(data), "\n----\n")
			sc, err := simulator.ParseScenario(strings.NewReader(script))
			if err != nil {
				t.Fatal(err)
			}
			got := playScenario(t, sc, "rws", false)
			if *rewrite {
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

// showBurn: playScenario keeps the burned cards in the transcript.
var showBurn bool
