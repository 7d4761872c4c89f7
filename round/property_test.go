package round

import (
	"reflect"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"pgregory.net/rapid"
)

// genEvents draws a table session: a new shoe, then any mixture of events, cards most
// often, in any order, as a confused or faulty table might produce them.
func genEvents(t *rapid.T) []Event {
	n := rapid.IntRange(1, 300).Draw(t, "n")
	evs := []Event{{Kind: NewShoe, Set: "S", Decks: 8}}
	var seq uint64
	for i := 0; i < n; i++ {
		k := rapid.IntRange(0, 19).Draw(t, "kind")
		var ev Event
		switch {
		case k < 10:
			seq++
			ev = Event{Kind: CardDrawn, Seq: seq, Card: baccarat.Card{
				Rank: baccarat.Rank(rapid.IntRange(1, 13).Draw(t, "rank")),
				Suit: baccarat.Suit(rapid.IntRange(1, 4).Draw(t, "suit"))}}
		case k < 12:
			ev = Event{Kind: BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetBanker, Stake: 100}}}
		case k < 14:
			ev = Event{Kind: ConfirmResult}
		default:
			kinds := []EventKind{InsuranceWindowClosed, SqueezeRequested, CutCard, ShoeEnd, PowerRestored, NewShoe}
			ev = Event{Kind: rapid.SampledFrom(kinds).Draw(t, "other"), Decks: 8}
			if ev.Kind == InsuranceWindowClosed && rapid.Bool().Draw(t, "insure") {
				ev = Event{Kind: InsuranceBet, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetBankerInsurance, Stake: 10}}}
			}
		}
		evs = append(evs, ev)
	}
	return evs
}

func genConfig(t *rapid.T) Config {
	rs := baccarat.MustLookup(rapid.SampledFrom(baccarat.Names).Draw(t, "rules"), baccarat.Options{})
	cfg := DefaultConfig(rs)
	cfg.Burn = BurnRule(rapid.IntRange(0, 2).Draw(t, "burn"))
	cfg.BurnCount = 3
	cfg.RoundsAfterCut = rapid.IntRange(0, 1).Draw(t, "after-cut")
	cfg.CloseBetsOnFirstCard = rapid.Bool().Draw(t, "close-on-card")
	return cfg
}

// TestPropertyCardsAccountedFor: every card drawn comes out as exactly one of placed,
// burned (or shown for the burn) or not due; no round holds more than six cards; a
// complete round holds exactly the cards placed in it, by the Table of Play.
func TestPropertyCardsAccountedFor(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		if cfg.Rules.Name == "royal" {
			if err := cfg.Rules.CheckDecks(8); err != nil {
				t.Fatal(err)
			}
		}
		ctl, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var placed []baccarat.Card
		for _, ev := range genEvents(t) {
			effs := ctl.Step(ev)
			accounted := 0
			for _, e := range effs {
				switch e.Kind {
				case CardPlaced:
					accounted++
					placed = append(placed, e.Card)
					if len(placed) > 6 {
						t.Fatalf("round %d: %d cards placed", e.Round, len(placed))
					}
					if e.Card != ev.Card || e.Seq != ev.Seq {
						t.Fatalf("placed %s seq %d for drawn %s seq %d", e.Card, e.Seq, ev.Card, ev.Seq)
					}
				case CardBurned, CardNotDue:
					accounted++
				case BurnStarted:
					if e.Card.Valid() {
						accounted++
					}
				case RoundComplete:
					// Re-deal the placed cards through a fresh coup: the same round.
					c, used := baccarat.CoupOf(placed...)
					if used != len(placed) || c != e.Coup || !c.Complete() {
						t.Fatalf("round %d complete with %v, but placed %v", e.Round, e.Coup, placed)
					}
				case BettingOpened, RoundVoided, ShoeEnded:
					placed = placed[:0]
				}
			}
			if ev.Kind == CardDrawn && accounted != 1 {
				t.Fatalf("card %s seq %d accounted for %d times: %v", ev.Card, ev.Seq, accounted, effs)
			}
			if ev.Kind != CardDrawn && accounted != 0 {
				t.Fatalf("%s produced card effects: %v", ev.Kind, effs)
			}
			st := ctl.State()
			inRound := st.Phase == BettingOpen || st.Phase == Dealing || st.Phase == Complete
			if st.Coup.Len() > 6 || inRound && st.Coup.Len() != len(placed) {
				t.Fatalf("state holds %d cards, %d placed (%s)", st.Coup.Len(), len(placed), st.Phase)
			}
		}
	})
}

// TestPropertyReplay: the same events give the same effects and the same state, every
// time: what a journal replay after a power cut relies on.
func TestPropertyReplay(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		evs := genEvents(t)
		run := func() ([]Effect, State) {
			ctl, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var all []Effect
			for _, ev := range evs {
				for _, e := range ctl.Step(ev) {
					e.Settlements = append([]Settlement(nil), e.Settlements...)
					all = append(all, e)
				}
			}
			return all, ctl.State()
		}
		e1, s1 := run()
		// Replay half the events, then the rest into the same controller: still the same.
		e2, s2 := run()
		if !reflect.DeepEqual(e1, e2) {
			t.Fatal("replay gave different effects")
		}
		if !reflect.DeepEqual(s1, s2) {
			t.Fatalf("replay gave a different state:\n%+v\n%+v", s1, s2)
		}
	})
}

// TestRefusedEventsChangeNothing: an event refused in any state leaves the state as it
// was.
func TestRefusedEventsChangeNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ctl, err := New(genConfig(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range genEvents(t) {
			before := ctl.State()
			effs := ctl.Step(ev)
			if len(effs) == 1 && effs[0].Kind == EventRefused {
				if after := ctl.State(); !reflect.DeepEqual(before, after) {
					t.Fatalf("refused %s changed the state:\n%+v\n%+v", ev.Kind, before, after)
				}
			}
		}
	})
}
