package round

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/tablectl/tablectl/baccarat"
)

// TestEffectIsSmall: an effect is a small fixed-size value; its larger parts are held
// apart, once.
func TestEffectIsSmall(t *testing.T) {
	if n := unsafe.Sizeof(Effect{}); n > 64 {
		t.Errorf("an Effect is %d bytes, want 64 or less", n)
	}
}

// stepRound steps a round with a wager, the burn and the cut card through a fresh
// controller and returns each step's effects as the controller returned them, with their
// text and JSON read at once. keep, when not nil, is given every step's effects at once.
func stepRound(t *testing.T, keep func([]Effect)) (steps [][]Effect, texts, jsons []string) {
	t.Helper()
	ctl, err := New(DefaultConfig(baccarat.MustLookup("classic", baccarat.Options{})))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	evs := []Event{{Kind: NewShoe, Set: "S1", Decks: 8}, {Kind: CardDrawn, Card: card(t, "AS"), Seq: 1},
		{Kind: CardDrawn, Card: card(t, "2S"), Seq: 2},
		{Kind: BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetBanker, Stake: 100}}},
		{Kind: CardDrawn, Card: card(t, "9H"), Seq: 3}, {Kind: CardDrawn, Card: card(t, "3D"), Seq: 4},
		{Kind: CardDrawn, Card: card(t, "KC"), Seq: 5}, {Kind: CardDrawn, Card: card(t, "5C"), Seq: 6},
		{Kind: CardDrawn, Card: card(t, "7C"), Seq: 7}, {Kind: CutCard}, {Kind: ConfirmResult}}
	for i, ev := range evs {
		ev.At = at.Add(time.Duration(i) * time.Second)
		effs := ctl.Step(ev)
		steps = append(steps, effs)
		if keep != nil {
			keep(effs)
		}
		for _, e := range effs {
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			texts, jsons = append(texts, e.String()), append(jsons, string(b))
		}
	}
	return steps, texts, jsons
}

func card(t *testing.T, s string) baccarat.Card {
	t.Helper()
	c, err := baccarat.ParseCard(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCloneOutlivesTheStep: effects cloned as they come read their larger parts after
// any number of later steps, just as they read them at once; an effect kept without a
// clone panics when its larger part is read after the next step, rather than read
// another effect's.
func TestCloneOutlivesTheStep(t *testing.T) {
	var kept, copied []Effect
	_, texts, jsons := stepRound(t, func(effs []Effect) {
		kept = append(kept, Clone(effs)...)
		copied = append(copied, effs...) // the values only
	})
	var gotTexts, gotJSONs []string
	for _, e := range kept {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		gotTexts, gotJSONs = append(gotTexts, e.String()), append(gotJSONs, string(b))
	}
	if !strings.Contains(strings.Join(texts, "\n"), "round-settled round=1 P\n    1:banker:100 lose returned=0") {
		t.Fatalf("the round did not settle its wager: %s", strings.Join(texts, "\n"))
	}
	if !reflect.DeepEqual(gotTexts, texts) {
		t.Errorf("clones read after the steps:\n%s\nwant, as read at once:\n%s", strings.Join(gotTexts, "\n"), strings.Join(texts, "\n"))
	}
	if !reflect.DeepEqual(gotJSONs, jsons) {
		t.Errorf("clones' JSON:\n%s\nwant:\n%s", strings.Join(gotJSONs, "\n"), strings.Join(jsons, "\n"))
	}
	// The first step's effect, its value copied without a clone: its part is gone.
	stale := copied[0]
	for name, read := range map[string]func(){
		"At": func() { stale.At() }, "Set": func() { stale.Set() }, "Reason": func() { stale.Reason() },
		"String": func() { _ = stale.String() }, "Clone": func() { Clone(copied[:1]) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s of an effect kept past the next step: no panic", name)
				}
			}()
			read()
		}()
	}
	// The fields of the value itself stay.
	if stale.Kind != ShoeStarted || stale.Count != 8 {
		t.Errorf("a kept effect's own fields: %+v", stale)
	}
}

// TestWithDetail: an effect made outside the controller reads the detail given to it,
// and Detail gives it back.
func TestWithDetail(t *testing.T) {
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	d := Detail{At: at, Set: "S9", Offer: baccarat.InsuranceOffer{Row: 3}, Wager: baccarat.Wager{Box: "2", Bet: baccarat.BetPlayer, Stake: 50},
		Stake: 40, Reason: "why", Actor: "S17", Settlements: []Settlement{{Returned: 7}}, Outcome: baccarat.Outcome{Winner: baccarat.Tie}}
	e := Effect{Kind: WagerLimited, Shoe: 2, Round: 3}.WithDetail(d)
	if got := e.Detail(); !reflect.DeepEqual(got, d) {
		t.Errorf("Detail() = %+v, want %+v", got, d)
	}
	if e.At() != at || e.Set() != "S9" || e.Offer().Row != 3 || e.Wager().Box != "2" || e.Stake() != 40 ||
		e.Reason() != "why" || e.Actor() != "S17" || len(e.Settlements()) != 1 || e.Outcome().Winner != baccarat.Tie {
		t.Errorf("an effect with a detail reads %+v", e.Detail())
	}
	if got := (Effect{Kind: BettingOpened}).Detail(); !reflect.DeepEqual(got, Detail{}) {
		t.Errorf("a bare effect's detail: %+v, want none", got)
	}
}
