package messages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// TestEveryMessageDecodesAsItsType: a subscriber reading a message into its api type
// (the console, a pit system in Go) gets every field back. Each message of rounds with
// a result, a void, a decision and the players' options decodes, unknown fields
// refused, and encodes again to the same bytes.
func TestEveryMessageDecodesAsItsType(t *testing.T) {
	wagers := []baccarat.Wager{{Box: "1", Bet: baccarat.BetPlayer, Stake: 100}, {Box: "2", Bet: baccarat.BetBanker, Stake: 100},
		{Box: "1", Bet: baccarat.BetTie, Stake: 10}, {Box: "2", Bet: baccarat.BetPlayerPair, Stake: 10}}
	plays := map[string][]round.Event{
		// A round settled, then one void by a report.
		"result and void": {{Kind: round.NewShoe, Set: "S", Decks: 8}, {Kind: round.BetsClosed, Wagers: wagers},
			drawn("4H", 1), drawn("4D", 2), drawn("3S", 3), drawn("2C", 4), drawn("5H", 5), drawn("KD", 6),
			{Kind: round.ConfirmResult, Role: irregularities.Dealer, Actor: "D4"},
			{Kind: round.BetsClosed, Wagers: wagers}, drawn("9H", 7),
			{Kind: round.Report, Irregularity: irregularities.InsufficientCards, Role: irregularities.Supervisor, Actor: "S1"}},
		// A decision, and the players' options of RWS Baccarat 5.12.
		"decision and options": {{Kind: round.NewShoe, Set: "S", Decks: 8}, {Kind: round.BetsClosed, Wagers: wagers},
			drawn("4H", 1),
			{Kind: round.Report, Irregularity: irregularities.SimultaneousDraw, Role: irregularities.Dealer, Actor: "D4"},
			drawn("3D", 2),
			{Kind: round.Decide, Choice: irregularities.AsRead, Role: irregularities.Supervisor, Actor: "S1"},
			{Kind: round.BoxChoice, Box: "2", Option: irregularities.OptBetReturned, Role: irregularities.Dealer, Actor: "D4"},
			{Kind: round.OptionsWindowClosed, Role: irregularities.Supervisor, Actor: "S1"}},
	}
	// A status while held, with the limits, the devices and the archive's lag.
	limits := &baccarat.Limits{
		Min:             map[baccarat.Bet]baccarat.Money{baccarat.BetBanker: 100, baccarat.BetPlayer: 100},
		Max:             map[baccarat.Bet]baccarat.Money{baccarat.BetBanker: 20000, baccarat.BetPlayer: 20000},
		MaxDifferential: 10000, Excess: baccarat.ExcessReject, Boxes: 7,
	}
	st := round.State{Shoe: 2, Round: 9, Decks: 8, Set: "S9",
		Held: round.Held{ID: 3, Kind: irregularities.SimultaneousDraw, Reason: "reported by the dealer (RWS Baccarat 5.8)"}}
	status := NewStatus(st, StatusInfo{Table: "T1", State: api.Online, Rules: baccarat.MustLookup("rws", baccarat.Options{}), TableDecks: 8, Version: "v1",
		Devices: map[string]string{"shoe": "connected", "shuffler": "absent"}, Call: true, Seq: 40,
		At: time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC), Limits: limits, PayRounded: true})
	status.Archive = &api.ArchiveLag{Held: 30, Behind: 10, Since: time.Date(2026, 11, 22, 22, 59, 0, 0, time.UTC)}
	payload, err := json.Marshal(status)
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, "status", payload, new(api.Status))

	seen := map[string]bool{}
	for name, evs := range plays {
		for i, m := range play(t, "rws", evs) {
			payload := m.Topic.Spec().Payload
			if payload == nil {
				t.Fatalf("%s: message %d on %s: the topic table gives no type to read it into", name, i, m.Topic)
			}
			v := reflect.New(payload).Interface()
			roundTrip(t, fmt.Sprintf("%s: message %d on %s", name, i, m.Topic), m.Payload, v)
			key := m.Topic.String()
			if ir, ok := v.(*api.Irregularity); ok {
				key += " " + ir.Event
				if ir.Event == api.EventRaised && (ir.Severity == "" || ir.Action == "") {
					t.Errorf("%s: a raised irregularity read back without its severity or action: %s", name, m.Payload)
				}
			}
			seen[key] = true
		}
	}
	for _, want := range []string{"card", "result", "state", "roadmap", "irregularity raised", "irregularity resolved",
		"irregularity options_opened", "irregularity option_recorded", "irregularity options_closed"} {
		if !seen[want] {
			t.Errorf("no %s message was played: the test no longer covers it (seen %v)", want, seen)
		}
	}
}

// roundTrip decodes payload into v, unknown fields refused, and checks that v encodes
// to the same bytes.
func roundTrip(t *testing.T, what string, payload []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s does not decode as its type: %v\n%s", what, err, payload)
	}
	again, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, payload) {
		t.Errorf("%s read and written again differs:\n%s\n%s", what, payload, again)
	}
}
