package table

import (
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/round"
)

// TestInsurancePause: an automatic table leaves each Insurance offer open for the pause,
// in the events' own time. A card drawn sooner is drawn over the open offer (NC Insurance
// 5.13); a card drawn after it finds the offer closed at the pause's end. When the shoe
// stamps its cards, its stamps say when each card was drawn, however late the table read
// it: a card stamped inside the pause was drawn over the offer even when a busy table
// read it after the pause, and one stamped after the pause was not, even when the table
// read the card that opened the offer late.
func TestInsurancePause(t *testing.T) {
	const pause = 2 * time.Second
	for _, tc := range []struct {
		name string
		// offerRead is how late the table read the card that opened the offer, after
		// the shoe stamped it; after is when the next card was read, and stamped
		// when stamped, after the offering card's reading.
		offerRead, after time.Duration
		stamped          bool
		stampAfter       time.Duration // the next card's stamp after the offering card's
		want             string
	}{
		{name: "read inside the pause", after: time.Second, want: "insurance-neglected"},
		{name: "read after the pause", after: 3 * time.Second, want: "insurance-closed"},
		{name: "stamped inside, read after", after: 3 * time.Second, stamped: true, stampAfter: time.Second, want: "insurance-neglected"},
		{name: "stamped after, read inside", offerRead: 1500 * time.Millisecond, after: time.Second, stamped: true, stampAfter: 2500 * time.Millisecond, want: "insurance-closed"},
		{name: "stamped at the pause's end", after: time.Second, stamped: true, stampAfter: pause, want: "insurance-closed"},
	} {
		var got []string
		var closedAt, cardAt time.Time
		rc := round.DefaultConfig(baccarat.MustLookup("nc-insurance", baccarat.Options{}))
		rc.Burn = round.BurnNone
		tbl, err := New(Config{Table: "T1", NoMessages: true, Round: rc, AutoCloseInsurance: true, InsurancePause: pause})
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
		var stamp uint32
		for i, c := range []string{"2H", "5D", "KD", "KS"} {
			stamp = uint32(i+1) * 1000
			at = t0.Add(time.Duration(i+1) * time.Second)
			if i == 3 {
				at = at.Add(tc.offerRead)
			}
			step(round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard(c), Seq: uint64(i + 1), At: at,
				ShoeTime: stamp, ShoeTimed: tc.stamped})
		}
		got = nil
		cardAt = at.Add(tc.after)
		step(round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard("4C"), Seq: 5, At: cardAt,
			ShoeTime: stamp + uint32(tc.stampAfter/time.Millisecond), ShoeTimed: tc.stamped})
		if len(got) == 0 || got[0] != tc.want {
			t.Errorf("%s: effects %s, want %s first", tc.name, strings.Join(got, " "), tc.want)
		}
		if tc.want != "insurance-closed" {
			continue
		}
		// Closed at the pause's end by the table's clock, and never after the card that
		// found it closed.
		want := at.Add(pause)
		if cardAt.Before(want) {
			want = cardAt
		}
		if !closedAt.Equal(want) {
			t.Errorf("%s: offer closed at %s, want %s", tc.name, closedAt, want)
		}
	}
}
