package round

import (
	"slices"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// drawn is one card the shoe reads: a card of the set, or one not of it (foreign), which
// may carry another set's identity (set).
type drawn struct {
	card    baccarat.Card
	set     string
	foreign bool
}

// dealWhole deals every card of cards through a 4-deck RWS table and then the shoe's
// empty signal, as a table does: the first card of a round closes its bets, each complete
// round is confirmed, and a supervisor lets play go on after each foreign card (RWS
// Baccarat 5.5.1). With order, the shuffler recorded the set's order (the cards not
// foreign): a foreign card held as out of that order is reported foreign by the
// supervisor. It returns every effect, one line each, and the state before the shoe
// ended.
func dealWhole(t *testing.T, cards []drawn, order bool) ([]string, State) {
	t.Helper()
	cfg := DefaultConfig(baccarat.MustLookup("rws", baccarat.Options{}))
	cfg.Burn, cfg.CloseBetsOnFirstCard = BurnNone, true
	ctl, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var log []string
	step := func(ev Event) {
		for _, e := range ctl.Step(ev) {
			log = append(log, e.String())
		}
	}
	shoe := Event{Kind: NewShoe, Set: "S4", Decks: 4, Cards: 208}
	if order {
		for _, d := range cards {
			if !d.foreign {
				shoe.Order = append(shoe.Order, d.card)
			}
		}
	}
	step(shoe)
	for i, d := range cards {
		step(Event{Kind: CardDrawn, Card: d.card, Set: d.set, Seq: uint64(i + 1)})
		st := ctl.State()
		if h := st.Held; h.Kind == irregularities.IncorrectCards && d.foreign && len(h.Pending) == 1 && h.Pending[0].Card == d.card {
			step(Event{Kind: Report, Irregularity: irregularities.ForeignCard, Role: irregularities.Supervisor, Actor: "S17", Card: d.card})
			st = ctl.State()
		}
		switch {
		case st.Held.ID != 0 && st.Held.Kind == irregularities.ForeignCard:
			step(Event{Kind: Decide, ID: st.Held.ID, Choice: irregularities.Proceed, Role: irregularities.Supervisor, Actor: "S17"})
		case st.Held.ID != 0:
			t.Fatalf("card %d (%s): held for %s", i+1, d.card, st.Held.Kind)
		case st.Phase == Complete && !st.Voided:
			step(Event{Kind: ConfirmResult})
		}
	}
	st := ctl.State()
	step(Event{Kind: ShoeEnd, Empty: true})
	if got := ctl.State().Phase; got != NoShoe {
		t.Fatalf("after the shoe's empty signal the table is %s\n%s", got, strings.Join(log, "\n"))
	}
	return log, st
}

// setOf is a shuffled 4-deck set, each card of it read as the set's.
func setOf(seed uint64) []drawn {
	var out []drawn
	for _, c := range shuffledShoe(4, seed) {
		out = append(out, drawn{card: c})
	}
	return out
}

// counts returns the card_count irregularities of log.
func counts(log []string) []string {
	var out []string
	for _, l := range log {
		if strings.Contains(l, "card_count") {
			out = append(out, l)
		}
	}
	return out
}

// TestForeignCardIsNotOfTheSetsCount: a 4-deck set of exactly 208 cards with a card not
// of it (RWS Baccarat 5.5.1: the round is void, play goes on) is whole at the shoe's
// end: the foreign card left the shoe but is none of the set's cards, so 5.5.2's count
// finds no excess. A set one card short with a foreign card is short, though the shoe
// gave 208 cards: the foreign card hides no shortage. The state's cards left of the set
// leave the foreign card out too.
func TestForeignCardIsNotOfTheSetsCount(t *testing.T) {
	fifthAce := func() []drawn {
		cards := setOf(7)
		var aces int
		for i, d := range cards {
			if d.card.String() == "AS" {
				if aces++; aces == 4 {
					// One more ace of spades than a 4-deck set holds (5.5.1).
					return slices.Insert(cards, i+1, drawn{card: d.card, foreign: true})
				}
			}
		}
		t.Fatal("no fourth ace of spades")
		return nil
	}
	otherSet := func() []drawn {
		return slices.Insert(setOf(8), 100, drawn{card: baccarat.MustParseCard("9D"), set: "OTHER", foreign: true})
	}
	// A card the set holds, but read where the recorded order has another: held as out
	// of the order (5.5.3) until the supervisor finds it foreign.
	unordered := func() []drawn {
		cards := setOf(10)
		return slices.Insert(cards, 60, drawn{card: cards[150].card, foreign: true})
	}
	for _, tc := range []struct {
		name  string
		cards []drawn
		order bool
		want  string // the card_count raised; "" for none
	}{
		{"one more of a card than the set holds", fifthAce(), false, ""},
		{"one more than the set holds, with its recorded order", fifthAce(), true, ""},
		{"a card of another set", otherSet(), false, ""},
		{"two foreign cards", slices.Insert(fifthAce(), 30, drawn{card: baccarat.MustParseCard("2H"), set: "OTHER", foreign: true}), false, ""},
		{"a card of the set's faces out of its recorded order, reported foreign", unordered(), true, ""},
		{"a card short, with a foreign card", slices.Delete(otherSet(), 5, 6), false,
			"card_count: the shoe is empty after 207 cards of the set, and 1 card not of it; the set holds 208 (RWS Baccarat 5.5.2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log, st := dealWhole(t, tc.cards, tc.order)
			if n := strings.Count(strings.Join(log, "\n"), "foreign_card:"); n == 0 {
				t.Fatalf("no foreign card was found:\n%s", strings.Join(log, "\n"))
			}
			got := counts(log)
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("a whole set with a foreign card: %q", got)
			case tc.want != "" && (len(got) != 1 || !strings.HasSuffix(got[0], tc.want)):
				t.Errorf("card_count %q, want %q", got, tc.want)
			}
			if st.CardsDrawn != len(tc.cards) {
				t.Errorf("%d cards drawn, want every card read: %d", st.CardsDrawn, len(tc.cards))
			}
			if left := 52*st.Decks - st.SetCardsDrawn(); tc.want == "" && left != 0 {
				t.Errorf("%d cards of the set left once it is all dealt", left)
			}
		})
	}
}

// TestWholeSetCounts: the count of RWS Baccarat 5.5.2 on a set with no foreign card,
// as before: whole, no irregularity; a card short, the shortage.
func TestWholeSetCounts(t *testing.T) {
	if log, _ := dealWhole(t, setOf(9), true); len(counts(log)) != 0 {
		t.Errorf("a whole set: %q", counts(log))
	}
	log, _ := dealWhole(t, setOf(9)[1:], false)
	if got := counts(log); len(got) != 1 || !strings.HasSuffix(got[0], "card_count: the shoe is empty after 207 cards; the set holds 208 (RWS Baccarat 5.5.2)") {
		t.Errorf("a card short: %q", got)
	}
}
