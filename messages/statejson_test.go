package messages

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
)

// checkStateJSON fails unless stateJSON gives exactly json.Marshal's bytes for s, or an
// error where json.Marshal gives one.
func checkStateJSON(t *testing.T, s api.State) {
	t.Helper()
	tj, err := json.Marshal(s.Table)
	if err != nil {
		t.Fatal(err)
	}
	got, err := stateJSON(&s, tj)
	checkAsEncodingJSON(t, s, got, err)
}

// randomState is a state message with every field drawn from rng, valid or not: each
// part the writer writes itself, leaves to json.Marshal, or sends whole to it.
func randomState(rng *rand.Rand) api.State {
	pick := rng.IntN
	texts := []string{"", "A", "classic", "ez-baccarat", "set 7", "<&>", "a\"b\\c", "Tisch ü", "\x01", "\xff"}
	zones := []*time.Location{time.UTC, time.FixedZone("CET", 3600), time.FixedZone("neg", -9*3600-30*60),
		time.FixedZone("far", 25*3600)}
	at := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(400 * 24 * time.Hour))))
	switch pick(8) {
	case 0:
		at = at.Truncate(time.Second)
	case 1:
		at = time.Date(pick(12000)-1000, 1, 1, 0, 0, 0, 0, time.UTC) // years JSON cannot carry
	case 2:
		at = time.Time{}
	}
	card := func() api.CardCode {
		if pick(30) == 0 {
			return api.CardCode(baccarat.Card{Rank: baccarat.Rank(pick(15)), Suit: baccarat.Suit(pick(6))}.String()) // perhaps not a card
		}
		return WireCard(baccarat.Card{Rank: baccarat.Rank(1 + pick(13)), Suit: baccarat.Suit(1 + pick(4))})
	}
	s := api.State{
		Envelope: api.Envelope{Schema: api.Schema, Table: texts[pick(len(texts))], Shoe: rng.Uint32() >> pick(32),
			Round: rng.Uint32() >> pick(32), Seq: rng.Uint64() >> pick(64), At: at.In(zones[pick(len(zones))])},
		Phase: round.Phase(pick(9)).String(), BettingOpen: pick(2) == 0, Rules: texts[pick(len(texts))],
		Decks: pick(10) - 1, Set: texts[pick(len(texts))], PlayerPoints: pick(12) - 1, BankerPoints: pick(12) - 1,
		Next: WireSlot(baccarat.Slot(pick(9))), CutCard: pick(2) == 0, CardsDrawn: pick(500) - 2, CardsRemaining: pick(500) - 2,
		Burning: pick(2) == 0,
	}
	if pick(10) != 0 {
		s.Cards = []api.SlotCard{}
		for range pick(7) {
			s.Cards = append(s.Cards, api.SlotCard{Slot: WireSlot(baccarat.Slot(pick(9))), Card: card(), CardNo: rng.Uint64() >> pick(65)})
		}
	}
	if pick(10) != 0 {
		s.Offers = []api.InsuranceOffer{}
		for range pick(3) {
			s.Offers = append(s.Offers, WireOffer(baccarat.InsuranceOffer{Row: pick(len(baccarat.InsuranceTable) + 1)}))
		}
	}
	if pick(4) == 0 {
		o := WireOutcome(baccarat.Outcome{Winner: baccarat.Winner(pick(4)), PlayerPoints: uint8(pick(10)), BankerPoints: uint8(pick(10)),
			PlayerCards: uint8(2 + pick(2)), BankerCards: uint8(2 + pick(2)), PlayerPair: pick(2) == 0, BankerPair: pick(2) == 0,
			Suits: baccarat.SuitClass(pick(4))})
		s.Outcome = &o
	}
	if pick(4) == 0 {
		s.Held = &api.Held{ID: rng.Uint32(), Kind: WireKind(irregularities.Kind(pick(20))), Rule: texts[pick(len(texts))],
			Display: texts[pick(len(texts))], Reason: texts[pick(len(texts))], Options: pick(2) == 0,
			DecidedBy: WireRole(irregularities.Role(pick(5)))}
		for range pick(3) {
			s.Held.Choices = append(s.Held.Choices, WireChoice(irregularities.Choice(pick(8))))
		}
		for range pick(3) {
			s.Held.Pending = append(s.Held.Pending, card())
		}
	}
	if pick(5) == 0 {
		s.Options = &api.Options{Irregularity: rng.Uint32(), Kind: WireKind(irregularities.Kind(pick(20))), Rule: texts[pick(len(texts))],
			Open: pick(2) == 0, ClosedBy: WireRole(irregularities.Role(pick(5)))}
		for range pick(3) {
			s.Options.Choices = append(s.Options.Choices, WireOption(irregularities.Option(pick(6))))
			s.Options.Boxes = append(s.Options.Boxes, api.WindowBox{Box: texts[pick(len(texts))], Option: WireOption(irregularities.Option(pick(6)))})
		}
	}
	return s
}

func TestStateJSONIsEncodingJSONs(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 4))
	for range 20000 {
		checkStateJSON(t, randomState(rng))
	}
}

// builderAndController are a builder and a controller, with no burn, for rules.
func builderAndController(tb testing.TB, rules string) (*Builder, *round.Controller) {
	tb.Helper()
	rs := baccarat.MustLookup(rules, baccarat.Options{})
	b, err := NewBuilder("B1", rs, roadmap.Settings{})
	if err != nil {
		tb.Fatal(err)
	}
	cfg := round.DefaultConfig(rs)
	cfg.Burn = round.BurnNone
	ctl, err := round.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return b, ctl
}

// TestStateJSONOfDealtShoes checks the state messages of whole shoes, dealt through
// the controller, against encoding/json: the states a table publishes.
func TestStateJSONOfDealtShoes(t *testing.T) {
	for _, rules := range []string{"classic", "nc-insurance"} {
		b, ctl := builderAndController(t, rules)
		at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
		step := func(ev round.Event) {
			ev.At = at
			at = at.Add(1500 * time.Millisecond)
			effs := ctl.Step(ev)
			st := ctl.State()
			msgs, err := b.Effects(ev, effs, st)
			if err != nil {
				t.Fatal(err)
			}
			s := b.State(st, api.Envelope{Schema: api.Schema, Table: "B1", Shoe: st.Shoe, Round: st.Round, Seq: 1, At: ev.At})
			checkStateJSON(t, s)
			last := msgs[len(msgs)-1]
			if last.Topic != api.TopicState {
				t.Fatalf("the last message of a %s event is on %s, want the state", ev.Kind, last.Topic)
			}
			var got api.State
			if err := json.Unmarshal(last.Payload, &got); err != nil {
				t.Fatalf("state message %s: %v", last.Payload, err)
			}
			if got.CardsDrawn != st.CardsDrawn || got.Phase != st.Phase.String() {
				t.Fatalf("state message %s, state %+v", last.Payload, st)
			}
		}
		rng := rand.New(rand.NewPCG(5, 6))
		cards := shuffledDecks(rng, 8)
		step(round.Event{Kind: round.NewShoe, Set: "A", Decks: 8})
		seq := uint64(0)
		for len(cards) > 6 {
			step(round.Event{Kind: round.BetsClosed})
			for ctl.State().Phase == round.Dealing {
				if len(ctl.State().Offers) > 0 {
					step(round.Event{Kind: round.InsuranceWindowClosed})
					continue
				}
				seq++
				step(round.Event{Kind: round.CardDrawn, Card: cards[0], Seq: seq})
				cards = cards[1:]
			}
			step(round.Event{Kind: round.ConfirmResult})
		}
	}
}

// shuffledDecks is n decks' cards in an order drawn from rng.
func shuffledDecks(rng *rand.Rand, n int) []baccarat.Card {
	var cards []baccarat.Card
	for range n {
		for r := baccarat.Rank(1); r <= 13; r++ {
			for s := baccarat.Suit(1); s <= 4; s++ {
				cards = append(cards, baccarat.Card{Rank: r, Suit: s})
			}
		}
	}
	rng.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
	return cards
}

// FuzzStateJSON checks the state message's writer against encoding/json on states drawn
// from the fuzzer's seeds.
func FuzzStateJSON(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(28), uint64(4))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		checkStateJSON(t, randomState(rand.New(rand.NewPCG(a, b))))
	})
}

// BenchmarkStateJSON writes the state message of a round being dealt (two cards on the
// table) with encoding/json, as before, and with stateJSON.
func BenchmarkStateJSON(b *testing.B) {
	bl, ctl := builderAndController(b, "classic")
	at := time.Date(2026, 11, 27, 12, 0, 0, 123456789, time.UTC)
	ctl.Step(round.Event{Kind: round.NewShoe, Set: "A", Decks: 8, At: at})
	ctl.Step(round.Event{Kind: round.BetsClosed, At: at})
	for i, c := range []string{"9H", "4S"} {
		ctl.Step(round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard(c), Seq: uint64(i + 1), At: at})
	}
	st := ctl.State()
	s := bl.State(st, api.Envelope{Schema: api.Schema, Table: "B1", Shoe: st.Shoe, Round: st.Round, Seq: 9, At: at})
	if len(s.Cards) != 2 {
		b.Fatalf("state %+v: want two cards on the table", s)
	}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(&s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stateJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := stateJSON(&s, bl.tableJS); err != nil {
				b.Fatal(err)
			}
		}
	})
}
