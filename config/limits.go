package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tablectl/tablectl/baccarat"
)

// Limits is the limits section: the table's betting limits in its smallest money unit
// (docs/config.md, "limits"; RWS Baccarat 2.1.1, 3.4, 3.5, 5.1, 5.2).
type Limits struct {
	// Min and Max are each bet's minimum and maximum stake, by the rule set's bet
	// identifiers (player, banker, tie...). A bet left out has no such limit.
	Min map[string]int64 `yaml:"min"`
	Max map[string]int64 `yaml:"max"`
	// MaxDifferential is the most a betting box's Banker Bets and Player Bets may differ
	// by (RWS Baccarat 1.6, 5.1); left out, no limit.
	MaxDifferential int64 `yaml:"max_differential"`
	// Excess is what is done with Bets over it: reject (5.1, the default) or pro_rata
	// (5.1.1).
	Excess string `yaml:"excess"`
	// Boxes is the number of betting boxes of the layout, named 1 to Boxes (2.1.1); left
	// out, any box name.
	Boxes int `yaml:"boxes"`
}

// checkLimits checks the limits section against the rule set: every fault names its key
// and line.
func (f *file) checkLimits(c *Config) {
	l := c.Limits
	if l == nil {
		return
	}
	rs, err := baccarat.Lookup(c.Rules, c.royalOptions())
	if err != nil {
		return // the rules' own fault is reported
	}
	if f.set("limits.max_differential") && l.MaxDifferential == 0 {
		f.at("limits.max_differential", "0: want a positive amount, or leave it out for no Differential limit")
	}
	if f.set("limits.boxes") && l.Boxes == 0 {
		f.at("limits.boxes", "0: want 1 to %d, or leave it out", baccarat.MaxBoxes)
	}
	bl, bad := l.limits()
	for _, k := range bad {
		f.at("limits."+k, "unknown bet: want one of rule set %s's: %s", rs.Name, betNames(rs))
	}
	if l.Excess != "" {
		var e baccarat.Excess
		if err := e.UnmarshalText([]byte(l.Excess)); err != nil {
			f.at("limits.excess", "%v", err)
		}
	}
	for _, e := range bl.Check(rs) {
		if e.Key == "excess" {
			continue // said above
		}
		f.at("limits."+e.Key, "%s", e.Msg)
	}
}

func betNames(rs *baccarat.RuleSet) string {
	var s []string
	for _, b := range rs.Bets {
		if !b.Insurance() {
			s = append(s, b.String())
		}
	}
	if len(s) > 8 {
		s = append(s[:8], "...")
	}
	return fmt.Sprint(s)
}

// limits is the section as baccarat.Limits, and the keys of min and max that are no bet.
func (l *Limits) limits() (*baccarat.Limits, []string) {
	bl := &baccarat.Limits{MaxDifferential: baccarat.Money(l.MaxDifferential), Boxes: l.Boxes}
	_ = bl.Excess.UnmarshalText([]byte(l.Excess)) // checked by checkLimits; "" is reject
	var bad []string
	for _, side := range []struct {
		name string
		in   map[string]int64
		out  *map[baccarat.Bet]baccarat.Money
	}{{"min", l.Min, &bl.Min}, {"max", l.Max, &bl.Max}} {
		if side.in == nil {
			continue
		}
		*side.out = map[baccarat.Bet]baccarat.Money{}
		for name, v := range side.in {
			b, err := baccarat.ParseBet(name)
			if err != nil {
				bad = append(bad, side.name+"."+name)
				continue
			}
			(*side.out)[b] = baccarat.Money(v)
		}
	}
	slices.Sort(bad)
	return bl, bad
}

// Round is the limits for the round controller under rule set rs; nil for no section.
func (l *Limits) Round(rs *baccarat.RuleSet) (*baccarat.Limits, error) {
	if l == nil {
		return nil, nil
	}
	bl, bad := l.limits()
	if len(bad) > 0 {
		return nil, fmt.Errorf("limits.%s: unknown bet", bad[0])
	}
	if errs := bl.Check(rs); len(errs) > 0 {
		return nil, fmt.Errorf("limits.%w", errs[0])
	}
	return bl, nil
}

// String says the limits in one line, for check-config: "min banker 100, player 100; max
// banker 20000; max Differential 10000, excess reject; boxes 7".
func (l *Limits) String() string {
	var parts []string
	for _, side := range []struct {
		name string
		m    map[string]int64
	}{{"min", l.Min}, {"max", l.Max}} {
		if len(side.m) == 0 {
			continue
		}
		keys := make([]string, 0, len(side.m))
		for k := range side.m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			keys[i] = fmt.Sprintf("%s %d", k, side.m[k])
		}
		parts = append(parts, side.name+" "+strings.Join(keys, ", "))
	}
	if l.MaxDifferential > 0 {
		excess := l.Excess
		if excess == "" {
			excess = "reject"
		}
		parts = append(parts, fmt.Sprintf("max Differential %d, excess %s", l.MaxDifferential, excess))
	}
	if l.Boxes > 0 {
		parts = append(parts, fmt.Sprintf("boxes %d", l.Boxes))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}
