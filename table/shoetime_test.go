package table

import (
	"testing"

	"github.com/tablectl/tablectl/round"
)

// TestShoeTimeAndResentCarried checks that a card's round event carries the time the
// shoe stamped on it and whether the shoe sent it again, which the controller judges
// simultaneous draws on (docs/irregularities.md, "Timing").
func TestShoeTimeAndResentCarried(t *testing.T) {
	var tr Translator
	st := round.State{Phase: round.Dealing}
	ev := card(1)
	ev.ShoeTime, ev.HasShoeTime = 5000, true
	out := tr.Shoe(ev, st)
	if len(out) != 1 || !out[0].ShoeTimed || out[0].ShoeTime != 5000 || out[0].Resent {
		t.Fatalf("stamped card: got %+v", out)
	}
	ev = card(2)
	ev.Flags, ev.Resent = 0x02, true
	out = tr.Shoe(ev, st)
	if len(out) != 1 || !out[0].Resent || out[0].ShoeTimed {
		t.Fatalf("resent unstamped card: got %+v", out)
	}
}
