package config

import (
	"fmt"

	"github.com/tablectl/tablectl/baccarat"
)

// LimitsWarning is what check-config and tablectl run warn of when the rule set's
// document requires the minimum and maximum Differential limits displayed at the table
// and the limits section lacks them: the board shows only the limits configured. ""
// when nothing is missing, or the rule set requires nothing.
func (c *Config) LimitsWarning() string {
	rb, ok := baccarat.Standard.Get(c.Rules)
	if !ok {
		return ""
	}
	// "The permissible minimum limit and maximum Differential limit shall be displayed
	// at the table": the rule of the documents that require it.
	rule, ok := rb.Cite(baccarat.RuleDisplayedLimits)
	if !ok {
		return ""
	}
	var missing string
	switch l := c.Limits; {
	case l == nil:
		missing = "no limits section"
	case len(l.Min) == 0 && l.MaxDifferential == 0:
		missing = "the limits section has no min and no max_differential"
	case len(l.Min) == 0:
		missing = "the limits section has no min"
	case l.MaxDifferential == 0:
		missing = "the limits section has no max_differential"
	default:
		return ""
	}
	return fmt.Sprintf("%s: rule set %s requires the permissible minimum and maximum Differential limits displayed at the table (%s), and the board shows only the limits configured: add them (docs/config.md, \"limits\")", missing, c.Rules, rule)
}
