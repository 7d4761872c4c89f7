package round

import (
	"reflect"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"pgregory.net/rapid"
)

// genEvents draws a table session: a new shoe, then any mixture of events, cards most
// often, in any order, as a confused or faulty table might produce them.
func genEvents(t *rapid.T) []Event {
	n := rapid.IntRange(1, 300).Draw(t, "n")
	evs := []Event{{Kind: NewShoe, Set: "S", Decks: 8}}
	var seq uint64
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		k := rapid.IntRange(0, 19).Draw(t, "kind")
		var ev Event
		switch {
		case k < 10:
			seq += uint64(rapid.SampledFrom([]int{1, 1, 1, 1, 1, 1, 1, 2}).Draw(t, "seq-step"))
			at = at.Add(time.Duration(rapid.SampledFrom([]int{50, 900, 1500, 2000}).Draw(t, "gap-ms")) * time.Millisecond)
			ev = Event{Kind: CardDrawn, Seq: seq, At: at, Card: baccarat.Card{
				Rank: baccarat.Rank(rapid.IntRange(1, 13).Draw(t, "rank")),
				Suit: baccarat.Suit(rapid.IntRange(1, 4).Draw(t, "suit"))}}
		case k < 12:
			ev = Event{Kind: BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetBanker, Stake: 100}}}
		case k < 14:
			ev = Event{Kind: ConfirmResult}
		default:
			kinds := []EventKind{InsuranceWindowClosed, SqueezeRequested, CutCard, ShoeEnd, PowerRestored, NewShoe,
				Report, Decide, DeviceLost, DeviceBack}
			ev = Event{Kind: rapid.SampledFrom(kinds).Draw(t, "other"), Decks: 8,
				Irregularity: rapid.SampledFrom(irregularities.Kinds()).Draw(t, "irregularity"),
				Choice:       irregularities.Choice(rapid.IntRange(1, 5).Draw(t, "choice")),
				Role:         irregularities.Role(rapid.IntRange(1, 4).Draw(t, "role")),
				Round:        uint32(rapid.IntRange(0, 3).Draw(t, "round"))}
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
	cfg.BurnExcessCards = rapid.Bool().Draw(t, "burn-excess")
	cfg.SetPerRound = rapid.Bool().Draw(t, "set-per-round") // Royal Baccarat, End of round
	return cfg
}

// TestPropertyCardsAccountedFor: every card drawn comes out, in the effects of its own
// event, as exactly one of placed, burned (or shown for the burn), not due, or held; a
// card placed by any other event (a decision, bets closing) is one that was waiting (kept
// from an excess draw, or held); no round holds more than six cards; a complete round
// holds exactly the cards placed in it, by the Table of Play.
func TestPropertyCardsAccountedFor(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ctl, err := New(genConfig(t))
		if err != nil {
			t.Fatal(err)
		}
		var placed []Kept
		cards := func() []baccarat.Card {
			var cs []baccarat.Card
			for _, k := range placed {
				cs = append(cs, k.Card)
			}
			return cs
		}
		for _, ev := range genEvents(t) {
			before := ctl.State()
			waiting := map[Kept]int{}
			for _, k := range append(before.Kept, before.Held.Pending...) {
				waiting[k]++
			}
			effs := ctl.Step(ev)
			accounted := 0
			for _, e := range effs {
				own := ev.Kind == CardDrawn && e.Card == ev.Card && e.Seq == ev.Seq
				switch e.Kind {
				case CardPlaced:
					placed = append(placed, Kept{Card: e.Card, Seq: e.Seq})
					if len(placed) > 6 {
						t.Fatalf("round %d: %d cards placed", e.Round, len(placed))
					}
					switch k := (Kept{Card: e.Card, Seq: e.Seq}); {
					case own && accounted == 0:
						accounted++
					case waiting[k] > 0:
						waiting[k]--
					default:
						t.Fatalf("%s placed %s seq %d, which was neither drawn now nor waiting", ev.Kind, e.Card, e.Seq)
					}
				case CardBurned, CardNotDue, CardHeld:
					if own {
						accounted++
					}
				case BurnStarted:
					if own && e.Card.Valid() {
						accounted++
					}
				case Reconstructed:
					// Cards taken out of the round by a reconstruction wait to be placed again.
					var kept []Kept
					coup := e.Coup()
					for s := baccarat.P1; s <= baccarat.B3; s++ {
						if c, ok := coup.SlotCard(s); ok {
							kept = append(kept, placed[len(kept)])
							if placed[len(kept)-1].Card != c {
								t.Fatalf("reconstructed %v from %v", e.Coup(), placed)
							}
						}
					}
					for _, k := range placed[len(kept):] {
						waiting[k]++
					}
					placed = kept
				case RoundComplete:
					// Re-deal the placed cards through a fresh coup: the same round.
					c, used := baccarat.CoupOf(cards()...)
					if used != len(placed) || c != e.Coup() || !c.Complete() {
						t.Fatalf("round %d complete with %v, but placed %v", e.Round, e.Coup(), placed)
					}
				case BettingOpened, ShoeEnded:
					placed = placed[:0]
				}
			}
			if ev.Kind == CardDrawn && accounted != 1 {
				t.Fatalf("card %s seq %d accounted for %d times: %v", ev.Card, ev.Seq, accounted, effs)
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
				all = append(all, Clone(ctl.Step(ev))...)
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

// TestCardNumbersRunOnAcrossShoes: the shoe device numbers its cards across sets, so the
// first card of a new shoe that skips a number is a card not read (RWS Baccarat 5.5.3).
func TestCardNumbersRunOnAcrossShoes(t *testing.T) {
	cfg := DefaultConfig(baccarat.MustLookup("classic", baccarat.Options{}))
	cfg.Burn, cfg.SimultaneousWindow = BurnNone, 0
	ctl, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctl.Step(Event{Kind: NewShoe, Set: "A", Decks: 8})
	ctl.Step(Event{Kind: BetsClosed})
	ctl.Step(Event{Kind: CardDrawn, Card: baccarat.MustParseCard("2H"), Seq: 40})
	ctl.Step(Event{Kind: ShoeEnd})
	ctl.Step(Event{Kind: NewShoe, Set: "B", Decks: 8})
	ctl.Step(Event{Kind: BetsClosed})
	effs := ctl.Step(Event{Kind: CardDrawn, Card: baccarat.MustParseCard("3H"), Seq: 42})
	if len(effs) == 0 || effs[0].Kind != IrregularityRaised || effs[0].Irregularity != irregularities.IncorrectCards {
		t.Errorf("card 42 after card 40 of the last shoe: %v", effs)
	}
}
