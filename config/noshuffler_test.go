package config

import (
	"strings"
	"testing"

	"github.com/tablectl/tablectl/round"
)

// TestShoeWithoutShuffler: a table with a Bee-Tek shoe and no shuffler burns by the
// shoe's burn mode, knows its deck count, and starts a shoe at its first card unless the
// dealer starts it; a table with a shuffler keeps the first-card burn and the shuffler's
// sets.
func TestShoeWithoutShuffler(t *testing.T) {
	present(t, "/dev/tablectl-shoe", "/dev/tablectl-shuffler")
	for _, c := range []struct {
		name, file string
		burn       round.BurnRule
		onCard     bool
		decks      int
	}{
		{"beetek, no shuffler", "shoe:\n  port: /dev/tablectl-shoe\n  format: beetek\n", round.BurnShoe, true, 8},
		{"beetek, dealer starts", "rules: rws\ndecks: 6\ndealer:\n  shoe_start: dealer\nshoe:\n  port: /dev/tablectl-shoe\n  format: beetek\n", round.BurnShoe, false, 6},
		{"beetek, burn by first card", "dealer:\n  burn: first-card\nshoe:\n  port: /dev/tablectl-shoe\n  format: beetek\n", round.BurnByFirstCard, true, 8},
		{"ascii, no shuffler", "shoe:\n  port: /dev/tablectl-shoe\n  format: ascii\n", round.BurnByFirstCard, true, 8},
		{"with a shuffler", "shoe:\n  port: /dev/tablectl-shoe\n  format: beetek\nshuffler:\n  port: /dev/tablectl-shuffler\n", round.BurnShoe, false, 0},
		{"no devices", "", round.BurnByFirstCard, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse("t.yaml", []byte(c.file))
			if err != nil {
				t.Fatal(err)
			}
			rc, err := cfg.Round()
			if err != nil {
				t.Fatal(err)
			}
			if rc.Burn != c.burn || rc.ShoeOnFirstCard != c.onCard || rc.Decks != c.decks {
				t.Errorf("burn %s, shoe on first card %t, decks %d; want %s, %t, %d", rc.Burn, rc.ShoeOnFirstCard, rc.Decks, c.burn, c.onCard, c.decks)
			}
			if _, err := round.New(rc); err != nil {
				t.Errorf("the round controller refuses the settings: %v", err)
			}
		})
	}
	for _, c := range []struct{ name, file, want string }{
		{"burn mode of a format without one", "dealer:\n  burn: shoe\nshoe:\n  port: /dev/tablectl-shoe\n  format: ascii\n",
			"t.yaml:2: dealer.burn: shoe: the shoe's format ascii has no burn mode (beetek has)"},
		{"shoe start with a shuffler", "dealer:\n  shoe_start: first-card\nshoe:\n  port: /dev/tablectl-shoe\nshuffler:\n  port: /dev/tablectl-shuffler\n",
			"t.yaml:2: dealer.shoe_start: set with a shuffler: the shuffler's report of a set starts each shoe"},
		{"unknown shoe start", "dealer:\n  shoe_start: whenever\n", `t.yaml:2: dealer.shoe_start: "whenever": want first-card or dealer`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(c.file))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}
