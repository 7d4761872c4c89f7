package table

import (
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// kinds names the events evs, with the set or the irregularity and detail of each.
func kinds(evs []round.Event) string {
	var out []string
	for _, e := range evs {
		s := e.Kind.String()
		switch e.Kind {
		case round.NewShoe:
			s += " " + e.Set
		case round.Report:
			s += " " + e.Irregularity.String() + ": " + e.Detail
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// TestShufflerReportsWaitForTheirSet: what the shuffler says of the next set while
// another is dealt waits until no shoe is in play: the set is loaded then, and a fault
// on it is reported then, against it, not against the shoe being dealt (RWS Baccarat
// 5.5.2, 5.5.5). A set found unshuffled or miscounted before it is loaded is never
// loaded; a fault on the set being dealt is reported at once.
func TestShufflerReportsWaitForTheirSet(t *testing.T) {
	dealing := round.State{Phase: round.Dealing, Shoe: 1, Set: "7"}
	done := round.State{Phase: round.NoShoe, Shoe: 1, Set: "7"}
	shuffled := device.Event{Kind: device.ShuffleComplete, SetID: 8, Decks: 8, Cards: 416}
	miscount := device.Event{Kind: device.CountError, SetID: 8, Cards: 415, Expected: 416}

	var tr Translator
	if evs := tr.Shuffler(shuffled, dealing); len(evs) != 0 {
		t.Errorf("set 8 shuffled while set 7 is dealt: %s, want it to wait", kinds(evs))
	}
	if evs := tr.Pending(dealing); len(evs) != 0 {
		t.Errorf("pending while set 7 is dealt: %s", kinds(evs))
	}
	if got, want := kinds(tr.Pending(done)), "new-shoe 8"; got != want {
		t.Errorf("once set 7's shoe ended: %q, want %q", got, want)
	}

	tr = Translator{}
	tr.Shuffler(shuffled, dealing)
	if evs := tr.Shuffler(miscount, dealing); len(evs) != 0 {
		t.Errorf("set 8 miscounted while set 7 is dealt: %s, want it to wait", kinds(evs))
	}
	if got, want := kinds(tr.Pending(done)), "report card_count: set 8: the shuffler counted 415 cards of 416"; got != want {
		t.Errorf("once set 7's shoe ended: %q, want %q (and set 8 not loaded)", got, want)
	}

	tr = Translator{}
	got := kinds(tr.Shuffler(device.Event{Kind: device.NotShuffled, SetID: 7}, dealing))
	if want := "report not_shuffled: set 7 left the shuffler unshuffled"; got != want {
		t.Errorf("set 7, being dealt, found unshuffled: %q, want %q", got, want)
	}
}

// TestCardCarriesItsSet: a card drawn carries the set the shoe read from it, and none
// when the shoe read none.
func TestCardCarriesItsSet(t *testing.T) {
	var tr Translator
	dealing := round.State{Phase: round.Dealing}
	ev := device.Event{Kind: device.CardDrawn, Card: baccarat.MustParseCard("9H"), SetID: 7}
	if evs := tr.Shoe(ev, dealing); len(evs) != 1 || evs[0].Set != "7" {
		t.Errorf("a card of set 7: %v", evs)
	}
	ev.SetID = 0
	if evs := tr.Shoe(ev, dealing); len(evs) != 1 || evs[0].Set != "" {
		t.Errorf("a card of no set read: %v", evs)
	}
	// A report of a device's fault names it by its text, or else its code.
	for _, c := range []struct {
		ev   device.Event
		want string
	}{
		{device.Event{Kind: device.Fault, Text: "motor stalled", Code: 3}, "motor stalled"},
		{device.Event{Kind: device.Fault, Code: 3}, "fault code 3"},
	} {
		evs := tr.Shoe(c.ev, dealing)
		if len(evs) != 1 || evs[0].Irregularity != irregularities.DeviceFault || evs[0].Detail != c.want {
			t.Errorf("fault %+v: %v, want a device fault %q", c.ev, evs, c.want)
		}
	}
}
