package console

import (
	"net/http"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// RuleSetInfo is what the pages show of one rule set, from its book (baccarat.Rulebook):
// its name, the rules a decision cites, and the irregularities its document (or, where
// it is silent, RWS Baccarat's) names, each with its rule.
type RuleSetInfo struct {
	// Name is the rule set's name for people ("NC Insurance"). A table's page and tile
	// show the name its status gives (rules_name), this one only when the status has
	// none.
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

// Rulebook returns every standard rule set (baccarat.Standard) by id, as RulebookOf.
func Rulebook() map[string]RuleSetInfo { return RulebookOf(baccarat.Standard) }

// RulebookOf returns every rule set of registry reg by id, each from its book: its name
// for people, its void and options rules, its irregularities with their rules, and
// whether it offers Insurance. An irregularity belongs to a rule set when its book cites
// it: its document names it, or the document the book follows where it is silent (RWS
// Baccarat's); one of a single other document (NC Insurance 5.13, say) belongs to that
// document's rule set alone.
func RulebookOf(reg *baccarat.Registry) map[string]RuleSetInfo {
	books := reg.List()
	out := make(map[string]RuleSetInfo, len(books))
	for _, rb := range books {
		info := RuleSetInfo{Name: rb.Display, Kinds: map[string]string{}, Insurance: rb.Insurance}
		info.Void, _ = rb.Cite(baccarat.RuleVoidRound)
		info.Options, _ = rb.Cite(baccarat.RulePlayersOptions)
		for _, k := range irregularities.Of(rb) {
			info.Kinds[k.String()] = irregularities.Cite(k, rb)
		}
		out[rb.Name] = info
	}
	return out
}

func (s *Server) rulebookEndpoint(w http.ResponseWriter, _ *http.Request, _ session) {
	writeJSON(w, http.StatusOK, RulebookOf(s.opts.Rulebooks))
}
