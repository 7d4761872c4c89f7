package messages

import (
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// heldOf is the held irregularity h under rule set rules, as the state and status
// messages carry it; nil when the table is not held.
func heldOf(h round.Held, rules string) *Held {
	if h.ID == 0 {
		return nil
	}
	en := irregularities.Lookup(h.Kind)
	held := &Held{ID: h.ID, Kind: h.Kind, Rule: irregularities.Rule(h.Kind, rules), Display: en.Display,
		Choices: en.Choices, DecidedBy: en.DecidedBy, Reason: h.Reason}
	for _, k := range h.Pending {
		held.Pending = append(held.Pending, k.Card)
	}
	return held
}
