package messages

import (
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/round"
)

// StatusInfo is what a status message is made from, besides the table's state.
type StatusInfo struct {
	Table string
	// State is api.Online or api.Offline.
	State string
	// Rules is the table's rule set: the status names it, with its name for people and
	// its family, and cites its rules.
	Rules *baccarat.RuleSet
	// TableDecks is the table's deck count (round.Config.Decks): the status says it
	// before the first shoe, when the state has none. 0: any count the rule set allows.
	TableDecks int
	Version    string
	Devices    map[string]string
	// Call: the dealer's call for a Pit Supervisor stands.
	Call bool
	Seq  uint64
	At   time.Time
	// Limits are the table's betting limits (round.Config.Limits), shown at the table
	// (RWS Baccarat 3.4); nil: none. PayRounded is the table's pay_rounded setting.
	Limits     *baccarat.Limits
	PayRounded bool
}

// NewStatus is the status message of a table in state st: the shoe and round in play,
// and always the decks (the shoe's, or the table's before its first shoe) and the set
// (empty before the first shoe); while the table is held, the irregularity it waits on.
func NewStatus(st round.State, in StatusInfo) (s api.Status) {
	defer func() { s.Held = heldOf(st.Held, in.Rules.Rulebook) }() // why the table is held, if it is
	decks := st.Decks
	if decks == 0 {
		decks = in.TableDecks
	}
	call := ""
	if in.Call {
		call = "supervisor"
	}
	devs := maps.Clone(in.Devices)
	if devs == nil {
		devs = map[string]string{}
	}
	return api.Status{Envelope: api.Envelope{Schema: api.Schema, Table: in.Table, Shoe: st.Shoe, Round: st.Round, Seq: in.Seq, At: in.At},
		State: in.State, Rules: in.Rules.Name, RulesName: in.Rules.Display, RulesFamily: string(in.Rules.Family), Decks: decks, Set: st.Set, Version: in.Version, Devices: devs, Call: call,
		Dealer: st.Dealer, Limits: WireLimits(in.Limits), PayRounded: in.PayRounded}
}

// StatusDue says whether the effects of one event change what the status says beyond
// the round (round.EffectInfo.Status): a shoe started (its number, set and decks) or
// ended, or a set loaded for the next round of the shoe. The status is published again
// after such an event.
func StatusDue(effs []round.Effect) bool {
	for _, e := range effs {
		if e.Kind.Info().Status {
			return true
		}
	}
	return false
}

// StatusAs is the status message payload with its state and time replaced, and its
// shoe, round, sequence number, decks and set brought up to the latest state message
// (latestState, nil when none): the latest status, made "offline" at the moment of a
// clean stop, say. A payload that is not a status message is an error.
func StatusAs(payload, latestState []byte, state string, at time.Time) ([]byte, error) {
	var s api.Status
	if err := json.Unmarshal(payload, &s); err != nil {
		return nil, fmt.Errorf("messages: status payload: %w", err)
	}
	if s.Schema != api.Schema || s.Table == "" {
		return nil, fmt.Errorf("messages: status payload of schema %d, table %q: not a status message", s.Schema, s.Table)
	}
	if latestState != nil {
		var st api.State
		if err := json.Unmarshal(latestState, &st); err != nil {
			return nil, fmt.Errorf("messages: state payload: %w", err)
		}
		if st.Table == s.Table && (st.Shoe > s.Shoe || st.Shoe == s.Shoe && st.Round >= s.Round) {
			s.Shoe, s.Round, s.Seq = st.Shoe, st.Round, max(s.Seq, st.Seq)
			if st.Decks > 0 {
				s.Decks, s.Set = st.Decks, st.Set
			}
		}
	}
	s.State, s.At = state, at
	return json.Marshal(s)
}
