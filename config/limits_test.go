package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

const goodLimits = `rules: rws
limits:
  min: {banker: 100, player: 100, tie: 100}
  max:
    banker: 20000
    player: 20000
    tie: 2500
  max_differential: 10000
  excess: pro_rata
  boxes: 7
`

// TestLimitsSection: the limits section reaches the round controller as the table's
// limits (RWS Baccarat 3.4, 5.1, 5.1.1, 2.1.1).
func TestLimitsSection(t *testing.T) {
	cfg, err := Parse("t.yaml", []byte(goodLimits))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := cfg.Round()
	if err != nil {
		t.Fatal(err)
	}
	l := rc.Limits
	if l == nil || l.Min[baccarat.BetBanker] != 100 || l.Max[baccarat.BetTie] != 2500 || l.MaxDifferential != 10000 ||
		l.Excess != baccarat.ExcessProRata || l.Boxes != 7 || len(l.Min) != 3 || len(l.Max) != 3 {
		t.Fatalf("limits %+v", l)
	}
	if got, want := cfg.Limits.String(), "min banker 100, player 100, tie 100; max banker 20000, player 20000, tie 2500; max Differential 10000, excess pro_rata; boxes 7"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	cfg, err = Parse("t.yaml", []byte("rules: rws\nlimits:\n  max_differential: 5000\n"))
	if err != nil {
		t.Fatal(err)
	}
	if rc, _ = cfg.Round(); rc.Limits.Excess != baccarat.ExcessReject || rc.Limits.Min != nil {
		t.Fatalf("excess left out: %+v", rc.Limits)
	}
	if cfg, _ = Parse("t.yaml", []byte("rules: rws\n")); cfg.Limits != nil {
		t.Fatalf("no section: %+v", cfg.Limits)
	}
}

// TestLimitsFaults: limits that cannot be met, or are not the rule set's, are faults
// naming the key and its line.
func TestLimitsFaults(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown key", "limits:\n  minimum: {banker: 1}\n", "t.yaml:2: limits.minimum: unknown key (limits has boxes, excess, max, max_differential, min)"},
		{"unknown bet", "rules: rws\nlimits:\n  min:\n    banker: 100\n    bankr: 100\n", "t.yaml:5: limits.min.bankr: unknown bet: want one of rule set rws's"},
		{"bet the rule set does not offer", "rules: classic\nlimits:\n  max:\n    player_pair: 100\n", "t.yaml:4: limits.max.player_pair: rule set classic does not offer player_pair"},
		{"insurance", "rules: nc-insurance\nlimits:\n  max: {banker_insurance: 100}\n", "t.yaml:3: limits.max.banker_insurance: an Insurance bet's limit is the Original Bet it insures (NC Insurance 3.12.2)"},
		{"minimum above its maximum", "rules: rws\nlimits:\n  min:\n    tie: 3000\n  max:\n    tie: 2500\n", "t.yaml:4: limits.min.tie: 3000 is above the maximum 2500 of tie"},
		{"Differential below a minimum", "rules: rws\nlimits:\n  min: {player: 500}\n  max_differential: 400\n",
			"t.yaml:4: limits.max_differential: 400 is below the player minimum of 500: one minimum player bet would be over it"},
		{"negative amount", "limits:\n  min:\n    tie: -5\n", "t.yaml:3: limits.min.tie: -5: want a positive amount"},
		{"zero Differential", "limits:\n  max_differential: 0\n", "t.yaml:2: limits.max_differential: 0: want a positive amount"},
		{"excess", "limits:\n  excess: refund\n", `t.yaml:2: limits.excess: "refund": want reject or pro_rata`},
		{"boxes", "limits:\n  boxes: 120\n", "t.yaml:2: limits.boxes: 120: want 1 to 99"},
		{"wrong kind of amount", "limits:\n  min:\n    tie: lots\n", `t.yaml:3: limits.min.tie: want a number, not "lots"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(c.yaml))
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error\n%s\nwant it to contain\n%s", err, c.want)
			}
		})
	}
}
