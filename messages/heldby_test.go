package messages

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// lastState is the last state message of msgs.
func lastState(t *testing.T, msgs []Message) api.State {
	t.Helper()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Topic == api.TopicState {
			var s api.State
			if err := json.Unmarshal(msgs[i].Payload, &s); err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	t.Fatal("no state message")
	return api.State{}
}

// TestHeldSaysWhoReportedIt: the retained state's held irregularity says who reported it
// and when it was raised, as its raised message does, so a console started after the
// raised message still shows it. A hold the table raised itself names no one. A report of
// cards drawn together (RWS Baccarat 5.10) decided as read keeps them while the players'
// options hold the table (5.12).
func TestHeldSaysWhoReportedIt(t *testing.T) {
	report := func(k irregularities.Kind, detail string) round.Event {
		return round.Event{Kind: round.Report, Irregularity: k, Role: irregularities.Dealer, Actor: "D4", Detail: detail}
	}
	start := []round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8},
		{Kind: round.BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetPlayer, Stake: 100}}}, drawn("4H", 1), drawn("3D", 2)}
	raisedAt := time.Date(2026, 11, 22, 23, 0, 4, 0, time.UTC) // play stamps event i at second i

	h := lastState(t, play(t, "rws", append(start, report(irregularities.WrongHand, "")))).Held
	if h == nil || h.ID != 1 || h.Role != api.RoleDealer || h.Actor != "D4" || !h.Raised.Equal(raisedAt) ||
		h.Reason != "reported by the dealer (RWS Baccarat 5.8)" {
		t.Fatalf("a dealer's report: held %+v", h)
	}

	evs := append(start, report(irregularities.SimultaneousDraw, "double card sensed"), drawn("5C", 3),
		round.Event{Kind: round.Decide, ID: 1, Choice: irregularities.AsRead, Role: irregularities.Supervisor, Actor: "S17"})
	h = lastState(t, play(t, "rws", evs)).Held
	if h == nil || !h.Options || h.Role != api.RoleDealer || h.Actor != "D4" || !h.Raised.Equal(raisedAt) {
		t.Fatalf("held for the players' options after a report: %+v", h)
	}

	// 5H is one more than a one-deck set holds (RWS Baccarat 5.5.1): the table raises it.
	evs = []round.Event{{Kind: round.NewShoe, Set: "S", Decks: 1}, {Kind: round.BetsClosed}, drawn("5H", 1), drawn("5H", 2)}
	h = lastState(t, play(t, "classic", evs)).Held
	if h == nil || h.Kind != WireKind(irregularities.ForeignCard) || h.Role != 0 || h.Actor != "" || !h.Raised.Equal(time.Date(2026, 11, 22, 23, 0, 3, 0, time.UTC)) {
		t.Fatalf("a hold the table raised: %+v", h)
	}
	b, _ := json.Marshal(h)
	if s := string(b); !json.Valid(b) || strings.Contains(s, `"role"`) || strings.Contains(s, `"actor"`) || !strings.Contains(s, `"raised":"2026-11-22T23:00:03Z"`) {
		t.Errorf("a hold the table raised, as published: %s", s)
	}
}
