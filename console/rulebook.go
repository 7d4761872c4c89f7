package console

import (
	"net/http"

	"github.com/tablectl/tablectl/irregularities"
)

// RuleSetInfo is what the pages show of one rule set: its name, the rules a decision
// cites, and the irregularities its document (or, where it is silent, RWS Baccarat's)
// names, each with its rule.
type RuleSetInfo struct {
	// Name is the rule set's name for people ("NC Insurance").
	Name string `json:"name"`
	// Void is the rule that returns every bet of a void round.
	Void string `json:"void"`
	// Options is the rule of each player's options after a dealing error.
	Options string `json:"options"`
	// Kinds are the irregularities of the rule set by id, each with the rule cited.
	Kinds map[string]string `json:"kinds"`
	// Insurance says the rule set offers Insurance (NC Insurance 3.11, 3.12): only its
	// tables' pages offer the Insurance commands.
	Insurance bool `json:"insurance"`
}

// ruleSetNames are the rule sets tablectl plays, by id, with whether each offers
// Insurance (docs/rules.md; TestRulebook checks it against package baccarat).
var ruleSetNames = []struct {
	id, name  string
	insurance bool
}{
	{"classic", "Classic", false},
	{"rws", "RWS Baccarat", false},
	{"nc-tournament", "NC Tournament", false},
	{"nc-insurance", "NC Insurance", true},
	{"royal", "Royal Baccarat", false},
}

// Rulebook returns every rule set by id. An irregularity belongs to a rule set when its
// document names it, or RWS Baccarat does (the documents that are silent follow RWS
// Baccarat); one of a single other document (NC Insurance 5.13, say) belongs to that
// document's rule set alone.
func Rulebook() map[string]RuleSetInfo {
	out := make(map[string]RuleSetInfo, len(ruleSetNames))
	for _, rs := range ruleSetNames {
		info := RuleSetInfo{Name: rs.name, Void: "RWS Baccarat 5.15", Options: "RWS Baccarat 5.12", Kinds: map[string]string{},
			Insurance: rs.insurance}
		if rs.id == "nc-insurance" {
			info.Void, info.Options = "NC Insurance 5.16", "NC Insurance 5.12"
		}
		for _, k := range irregularities.Kinds() {
			e := irregularities.Lookup(k)
			_, own := e.Rules[rs.id]
			_, rws := e.Rules["rws"]
			if own || rws {
				info.Kinds[k.String()] = irregularities.Rule(k, rs.id)
			}
		}
		out[rs.id] = info
	}
	return out
}

func (s *Server) rulebookEndpoint(w http.ResponseWriter, _ *http.Request, _ session) {
	writeJSON(w, http.StatusOK, Rulebook())
}
