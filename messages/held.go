package messages

import (
	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// heldOf is the held irregularity h under rule book rb, as the state and status
// messages carry it; nil when the table is not held.
func heldOf(h round.Held, rb *baccarat.Rulebook) *api.Held {
	if h.ID == 0 {
		return nil
	}
	en := irregularities.Lookup(h.Kind)
	held := &api.Held{ID: h.ID, Kind: WireKind(h.Kind), Rule: irregularities.Cite(h.Kind, rb), Display: en.Display,
		Choices: WireChoices(en.Choices), DecidedBy: WireRole(en.DecidedBy), Reason: h.Reason, Role: WireRole(h.Role), Actor: h.Actor, Raised: h.At}
	if h.Options {
		held.Display, held.Choices, held.DecidedBy, held.Options = OptionsDisplay, []api.Choice{}, api.RoleSupervisor, true
	}
	for _, k := range h.Pending {
		held.Pending = append(held.Pending, WireCard(k.Card))
	}
	return held
}

// OptionsDisplay is what a display shows while the table is held for the players'
// options.
const OptionsDisplay = "The players choose: continue, continue with the reconstructed hand, or have the bet returned; the supervisor closes the choice"

// optionsOf is the players' options window of state st under rule book rb, as the
// state and irregularity messages carry it; nil when the round has none.
func optionsOf(st round.State, rb *baccarat.Rulebook) *api.Options {
	w := st.Window
	if w.ID == 0 {
		return nil
	}
	boxes := windowBoxes(st.WindowBoxes())
	return &api.Options{Irregularity: w.ID, Kind: WireKind(w.Kind), Rule: optionsRule(rb), Open: w.Open,
		Choices: []api.BoxOption{WireOption(irregularities.OptContinue), WireOption(irregularities.OptReconstructed),
			WireOption(irregularities.OptBetReturned)},
		ClosedBy: api.RoleSupervisor, Boxes: boxes}
}

// optionsRule cites the players' options in rule book rb (RWS Baccarat 5.12, or the
// rule set's own).
func optionsRule(rb *baccarat.Rulebook) string {
	r, _ := rb.Cite(baccarat.RulePlayersOptions)
	return r
}
