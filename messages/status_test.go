package messages

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/round"
)

// TestNewStatusAlwaysCarriesDecksAndSet checks that the status says the shoe, round,
// decks and set of the state, the table's decks before the first shoe, and that both
// fields are present even when empty.
func TestNewStatusAlwaysCarriesDecksAndSet(t *testing.T) {
	at := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	in := StatusInfo{Table: "t1", State: "online", Rules: baccarat.MustLookup("rws", baccarat.Options{}), TableDecks: 8, Version: "v", At: at,
		Devices: map[string]string{"shoe": "disconnected"}, Call: true}
	before, err := json.Marshal(NewStatus(round.State{}, in))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"shoe":0`, `"decks":8`, `"set":""`, `"shoe":"disconnected"`, `"call":"supervisor"`, `"state":"online"`} {
		if !strings.Contains(string(before), want) {
			t.Errorf("status before the first shoe %s: want %s", before, want)
		}
	}
	during := NewStatus(round.State{Shoe: 4, Round: 17, Decks: 6, Set: "S9"}, StatusInfo{Table: "t1", State: "online", Rules: baccarat.MustLookup("rws", baccarat.Options{})})
	if during.Shoe != 4 || during.Round != 17 || during.Decks != 6 || during.Set != "S9" || during.Devices == nil {
		t.Errorf("status during shoe 4: %+v, want shoe 4, round 17, 6 decks, set S9, devices {}", during)
	}
}

// TestStatusDue checks that a shoe's start and end call for a status, and a round's
// events do not.
func TestStatusDue(t *testing.T) {
	for _, tc := range []struct {
		effs []round.Effect
		want bool
	}{
		{[]round.Effect{{Kind: round.ShoeStarted}}, true},
		{[]round.Effect{{Kind: round.RoundSettled}, {Kind: round.ShoeEnded}}, true},
		{[]round.Effect{{Kind: round.SetLoaded}, {Kind: round.BurnStarted}}, true}, // its set (Royal Baccarat, End of round)
		{[]round.Effect{{Kind: round.CardPlaced}, {Kind: round.RoundSettled}}, false},
		{nil, false},
	} {
		if got := StatusDue(tc.effs); got != tc.want {
			t.Errorf("StatusDue(%v) = %v, want %v", tc.effs, got, tc.want)
		}
	}
}

// TestStatusAs checks that the offline status of a stop keeps what the latest status
// said, brought up to the latest state's shoe and round, and takes the stop's state and
// time, and that a payload that is no status is refused.
func TestStatusAs(t *testing.T) {
	at := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	stop := at.Add(3 * time.Hour)
	// The status was published at shoe 4's start; the state has moved on to round 17.
	started, err := json.Marshal(NewStatus(round.State{Shoe: 4, Decks: 8, Set: "S2"}, StatusInfo{Table: "t1", State: "online", Rules: baccarat.MustLookup("rws", baccarat.Options{}), At: at}))
	if err != nil {
		t.Fatal(err)
	}
	state := []byte(`{"schema":1,"table":"t1","shoe":4,"round":17,"seq":90,"phase":"dealing","decks":8,"set":"S2"}`)
	off, err := StatusAs(started, state, "offline", stop)
	if err != nil {
		t.Fatal(err)
	}
	var s api.Status
	if err := json.Unmarshal(off, &s); err != nil {
		t.Fatal(err)
	}
	if s.State != "offline" || !s.At.Equal(stop) || s.Shoe != 4 || s.Round != 17 || s.Seq != 90 || s.Decks != 8 || s.Set != "S2" || s.Rules != "rws" {
		t.Errorf("offline status %s: want offline at %v, shoe 4, round 17, 8 decks, set S2", off, stop)
	}
	for _, bad := range []string{`nonsense`, `{"schema":1}`, `{"table":"t1"}`} {
		if _, err := StatusAs([]byte(bad), nil, "offline", stop); err == nil {
			t.Errorf("StatusAs(%s) took it", bad)
		}
	}
}
