package messages

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/round"
)

// TestStatusNoInsurance checks that the status says "no_insurance":true for a table
// that offers no Insurance (NC Insurance 4.2.2), leaves the field out otherwise, and that
// the offline status of a stop keeps it.
func TestStatusNoInsurance(t *testing.T) {
	at := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	for _, no := range []bool{true, false} {
		s := NewStatus(round.State{Shoe: 2, Decks: 8, Set: "S1"}, StatusInfo{Table: "t1", State: "online", Rules: baccarat.MustLookup("nc-insurance", baccarat.Options{}), At: at})
		s.NoInsurance = no
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), `"no_insurance":true`); got != no {
			t.Errorf("no_insurance=%v: status %s", no, b)
		}
		if !no && strings.Contains(string(b), "no_insurance") {
			t.Errorf("a table that offers Insurance: status %s names no_insurance", b)
		}
		off, err := StatusAs(b, nil, "offline", at.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(off), `"no_insurance":true`); got != no {
			t.Errorf("no_insurance=%v: offline status %s", no, off)
		}
	}
}
