package messages

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// TestOptionsWindowPublished: a console can show the players' options window of RWS
// Baccarat 5.12 from what the table publishes: the retained state carries the window
// (open, each box in play and its choice) and the hold it puts on the table; the
// irregularity topic carries the window's opening, each box's choice and its closing.
func TestOptionsWindowPublished(t *testing.T) {
	evs := []round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8},
		{Kind: round.BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetPlayer, Stake: 100},
			{Box: "2", Bet: baccarat.BetBanker, Stake: 100}, {Box: "1", Bet: baccarat.BetTie, Stake: 10}}},
		drawn("4H", 1),
		{Kind: round.Report, Irregularity: irregularities.SimultaneousDraw, Role: irregularities.Dealer},
		drawn("3D", 2),
		{Kind: round.Decide, Choice: irregularities.AsRead, Role: irregularities.Supervisor, Actor: "S1"},
		{Kind: round.BoxChoice, Box: "2", Option: irregularities.OptBetReturned, Role: irregularities.Dealer, Actor: "D4"},
		{Kind: round.OptionsWindowClosed, Role: irregularities.Supervisor, Actor: "S1"},
	}
	msgs := play(t, "rws", evs)
	var states []api.State
	type optionsMessage struct {
		Event   string                `json:"event"`
		ID      uint32                `json:"id"`
		Kind    irregularities.Kind   `json:"kind"`
		Reason  string                `json:"reason"`
		Role    irregularities.Role   `json:"role"`
		Actor   string                `json:"actor"`
		Box     string                `json:"box"`
		Option  irregularities.Option `json:"option"`
		Options *api.Options          `json:"options"`
	}
	var opts []optionsMessage
	for _, m := range msgs {
		switch m.Topic {
		case api.TopicState:
			var s api.State
			if err := json.Unmarshal(m.Payload, &s); err != nil {
				t.Fatal(err)
			}
			states = append(states, s)
		case api.TopicIrregularity:
			var ir optionsMessage
			if err := json.Unmarshal(m.Payload, &ir); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(ir.Event, "option") {
				opts = append(opts, ir)
			}
		}
	}
	// After the decision the table is held for the options only.
	held := states[5]
	if held.Held == nil || !held.Held.Options || held.Held.DecidedBy != api.RoleSupervisor || len(held.Held.Pending) != 1 {
		t.Fatalf("state after the decision: held %+v", held.Held)
	}
	if o := held.Options; o == nil || !o.Open || o.Irregularity != 1 || o.Rule != "RWS Baccarat 5.12" || o.ClosedBy != api.RoleSupervisor ||
		len(o.Boxes) != 2 || o.Boxes[0] != (api.WindowBox{Box: "1"}) || o.Boxes[1] != (api.WindowBox{Box: "2"}) {
		t.Fatalf("state after the decision: options %+v", held.Options)
	}
	chosen := states[6].Options
	if chosen == nil || !chosen.Open || chosen.Boxes[1] != (api.WindowBox{Box: "2", Option: WireOption(irregularities.OptBetReturned)}) {
		t.Fatalf("state after box 2's choice: options %+v", chosen)
	}
	closed := states[7]
	if closed.Held != nil || closed.Options == nil || closed.Options.Open || len(closed.Cards) != 2 {
		t.Fatalf("state after the window closed: held %+v options %+v cards %v", closed.Held, closed.Options, closed.Cards)
	}
	if len(opts) != 3 {
		t.Fatalf("options messages: %+v", opts)
	}
	if o := opts[0]; o.Event != "options_opened" || o.ID != 1 || o.Kind != irregularities.SimultaneousDraw || !strings.Contains(o.Reason, "boxes 1, 2") {
		t.Errorf("opened: %+v", o)
	}
	if o := opts[1]; o.Event != "option_recorded" || o.Box != "2" || o.Option != irregularities.OptBetReturned || o.Actor != "D4" || o.Options == nil {
		t.Errorf("recorded: %+v", o)
	}
	if o := opts[2]; o.Event != "options_closed" || o.Role != irregularities.Supervisor || o.Actor != "S1" ||
		!strings.Contains(o.Reason, "box 1 continue (chose nothing), box 2 bet-returned") || o.Options == nil || o.Options.Open {
		t.Errorf("closed: %+v", o)
	}
}
