package table

import (
	"fmt"
	"testing"
	"time"

	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// TestLampsOfEachPhase: the tower light is red, and red alone, while the table is held
// for a decision, whatever the phase; otherwise amber while cards are drawn (the burn,
// the deal, a round awaiting its confirmation), green while betting is open, and dark
// with no shoe in play.
func TestLampsOfEachPhase(t *testing.T) {
	for _, c := range []struct {
		phase round.Phase
		want  Lamps
	}{
		{round.NoShoe, Lamps{}},
		{round.Burning, Lamps{Amber: true}},
		{round.BettingOpen, Lamps{Green: true}},
		{round.Dealing, Lamps{Amber: true}},
		{round.Complete, Lamps{Amber: true}},
		{round.ShoeDone, Lamps{}},
	} {
		if got := lampsOf(round.State{Phase: c.phase}); got != c.want {
			t.Errorf("%s: lamps %+v, want %+v", c.phase, got, c.want)
		}
		held := round.State{Phase: c.phase, Held: round.Held{ID: 1, Kind: irregularities.WrongHand}}
		if got := lampsOf(held); got != (Lamps{Red: true}) {
			t.Errorf("%s, held: lamps %+v, want red alone", c.phase, got)
		}
	}
}

// TestFirstLampsAskedFor: a node started asks for the tower light once, dark as it is,
// so a light left on by an earlier run goes out.
func TestFirstLampsAskedFor(t *testing.T) {
	n, err := New(testConfig("rws"))
	if err != nil {
		t.Fatal(err)
	}
	n.PublishDenied(false)
	if rd := n.Ready(); rd.Lamps == nil || *rd.Lamps != (Lamps{}) {
		t.Fatalf("the first Ready asks for lamps %v, want them dark", rd.Lamps)
	}
	n.Advance()
	n.PublishDenied(false)
	if rd := n.Ready(); rd.Lamps != nil {
		t.Errorf("asked for the dark lamps again: %+v", *rd.Lamps)
	}
}

// TestBuzzerOnRaise: the buzzer sounds when an irregularity is raised, and not when it
// is decided.
func TestBuzzerOnRaise(t *testing.T) {
	n := panelTable(t)
	n.Step(round.Event{Kind: round.Report, Irregularity: irregularities.WrongHand, Role: irregularities.Dealer, At: t0.Add(time.Minute)})
	if rd := n.Ready(); !rd.Beep || n.State().Held.ID == 0 {
		t.Fatalf("a report raised: beep %v, held %+v", rd.Beep, n.State().Held)
	}
	n.Advance()
	n.Step(round.Event{Kind: round.Decide, ID: n.State().Held.ID, Choice: irregularities.Proceed, Role: irregularities.Supervisor, At: t0.Add(2 * time.Minute)})
	if rd := n.Ready(); rd.Beep || n.State().Held.ID != 0 {
		t.Errorf("the decision: beep %v, held %+v", rd.Beep, n.State().Held)
	}
}

// TestButtonReleasesDoNothing: releasing any button steps nothing, asks for nothing and
// leaves the supervisor call as it was; only the shoe's lid closing counts.
func TestButtonReleasesDoNothing(t *testing.T) {
	for _, name := range []string{"confirm", "insurance_closed", "new_shoe", "call_supervisor", "double_card", "card_present"} {
		t.Run(fmt.Sprint(name), func(t *testing.T) {
			n := panelTable(t)
			n.Button(Button{Name: name, Active: false, At: t0.Add(time.Minute)})
			if n.HasReady() || n.Calling() || n.State().Phase != round.Complete {
				t.Errorf("releasing %s: ready %+v, calling %v, phase %s", name, n.Ready(), n.Calling(), n.State().Phase)
			}
		})
	}
}
