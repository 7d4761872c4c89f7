package config

import (
	"strings"
	"testing"
)

// TestRoyalEndOfRound: royal.end_of_round chooses what becomes of the cards after a round
// (Royal Baccarat, End of round): reshuffle gives the round controller a set per round,
// discard or nothing the usual shoe; another value, or reshuffle at a table with a shoe
// and no shuffler to report each set, is a fault naming the file, line and key.
func TestRoyalEndOfRound(t *testing.T) {
	present(t, "/dev/ttyUSB0", "/dev/ttyUSB1")
	for _, c := range []struct {
		name, yaml string
		perRound   bool
	}{
		{"reshuffle", "rules: royal\nroyal:\n  end_of_round: reshuffle\n", true},
		{"reshuffle with a shuffler", "rules: royal\nroyal:\n  paytable: 2\n  end_of_round: reshuffle\nshoe:\n  port: /dev/ttyUSB0\n  format: tablectl\nshuffler:\n  port: /dev/ttyUSB1\n", true},
		{"discard", "rules: royal\nroyal:\n  end_of_round: discard\n", false},
		{"left out", "rules: royal\nroyal:\n  paytable: 3\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse("t.yaml", []byte(c.yaml))
			if err != nil {
				t.Fatal(err)
			}
			rc, err := cfg.Round()
			if err != nil {
				t.Fatal(err)
			}
			if rc.SetPerRound != c.perRound {
				t.Errorf("set per round %v, want %v", rc.SetPerRound, c.perRound)
			}
		})
	}
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown value", "rules: royal\nroyal:\n  end_of_round: burn\n",
			`t.yaml:3: royal.end_of_round: "burn": want discard (squeeze play) or reshuffle (cards dealt face up)`},
		{"no shuffler", "rules: royal\nroyal:\n  end_of_round: reshuffle\nshoe:\n  port: /dev/ttyUSB0\n  format: tablectl\n",
			"t.yaml:3: royal.end_of_round: reshuffle: each round is dealt from a set the shuffler reports, and this table has a shoe and no shuffler"},
		{"another rule set", "rules: rws\nroyal:\n  end_of_round: reshuffle\n",
			"t.yaml:2: royal: set for rule set rws: the royal section is for rules: royal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}
