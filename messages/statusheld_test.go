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

// TestStatusSaysWhyHeld: while the table is held, the status carries the irregularity,
// its rule, the reason it was raised with and the decision it waits for, and keeps them
// when made online or offline against a state message with cards in play; without a
// hold there is no held field.
func TestStatusSaysWhyHeld(t *testing.T) {
	at := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	in := StatusInfo{Table: "t1", State: "online", Rules: baccarat.MustLookup("rws", baccarat.Options{}), At: at}
	st := round.State{Shoe: 2, Round: 5, Decks: 8, Set: "7",
		Held: round.Held{ID: 3, Kind: irregularities.SimultaneousDraw, Reason: "two cards sensed at once (RWS Baccarat 5.10)"}}
	b, err := json.Marshal(NewStatus(st, in))
	if err != nil {
		t.Fatal(err)
	}
	state := []byte(`{"schema":1,"table":"t1","shoe":2,"round":6,"seq":40,"phase":"dealing","decks":8,"set":"7",` +
		`"cards":[{"slot":"P1","card":"2H","shoe_seq":31},{"slot":"B1","card":"6C","shoe_seq":32}],"next_slot":"P2"}`)
	off, err := StatusAs(b, state, "offline", at.Add(time.Minute))
	if err != nil {
		t.Fatalf("offline status against a state with cards: %v", err)
	}
	for _, s := range [][]byte{b, off} {
		var got api.Status
		if err := json.Unmarshal(s, &got); err != nil {
			t.Fatal(err)
		}
		h := got.Held
		if h == nil || h.ID != 3 || h.Kind != WireKind(irregularities.SimultaneousDraw) || h.Rule != "RWS Baccarat 5.10" ||
			h.Reason != "two cards sensed at once (RWS Baccarat 5.10)" || h.DecidedBy != api.RoleSupervisor || len(h.Choices) == 0 {
			t.Errorf("status %s: want held #3 simultaneous_draw with its rule, reason, choices and decider", s)
		}
	}
	if !strings.Contains(string(off), `"round":6`) {
		t.Errorf("offline status %s: want round 6 from the state", off)
	}
	st.Held = round.Held{}
	if b, _ := json.Marshal(NewStatus(st, in)); strings.Contains(string(b), "held") {
		t.Errorf("status of a table not held: %s", b)
	}
}
