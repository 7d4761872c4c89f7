package table

import (
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/round"
)

// TestInsurancePause: an automatic table leaves each Insurance offer open for the pause,
// in the events' own time. A card read sooner is drawn over the open offer (NC Insurance
// 5.13); a card read after it finds the offer closed at the pause's end.
func TestInsurancePause(t *testing.T) {
	for _, tc := range []struct {
		after time.Duration
		want  string
	}{
		{time.Second, "insurance-neglected"},
		{3 * time.Second, "insurance-closed"},
	} {
		var got []string
		var closedAt time.Time
		rc := round.DefaultConfig(baccarat.MustLookup("nc-insurance", baccarat.Options{}))
		rc.Burn = round.BurnNone
		tbl, err := New(Config{Table: "T1", NoMessages: true, Round: rc, AutoCloseInsurance: true, InsurancePause: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		at := t0
		step := func(ev round.Event) {
			t.Helper()
			tbl.Step(ev)
			for _, s := range tbl.Ready().Steps {
				for _, e := range s.Effects {
					got = append(got, e.Kind.String())
					if e.Kind == round.InsuranceClosed {
						closedAt = s.Event.At
					}
				}
			}
			tbl.Advance()
		}
		step(round.Event{Kind: round.NewShoe, Set: "1", Decks: 8, At: at})
		step(round.Event{Kind: round.BetsClosed, At: at})
		// Banker 5 against Player 2 after four cards: Banker Insurance is offered.
		for i, c := range []string{"2H", "5D", "KD", "KS"} {
			at = t0.Add(time.Duration(i+1) * time.Second)
			step(round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard(c), Seq: uint64(i + 1), At: at})
		}
		got = nil
		step(round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard("4C"), Seq: 5, At: at.Add(tc.after)})
		if len(got) == 0 || got[0] != tc.want {
			t.Errorf("card %s after the offer: effects %s, want %s first", tc.after, strings.Join(got, " "), tc.want)
		}
		if tc.want == "insurance-closed" && !closedAt.Equal(at.Add(2*time.Second)) {
			t.Errorf("offer closed at %s, want the pause's end %s", closedAt, at.Add(2*time.Second))
		}
	}
}
