package round

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"pgregory.net/rapid"
)

// genCards draws a session whose cards vary in everything the common card's single pass
// looks at: the set they carry, their numbers (gaps, renumbering), the shoe's clock
// (simultaneous draws), the shoe's burn mode, resending, unreadable and foreign cards,
// with the recorded order of a shuffled set or none, and the events that hold, open or
// end a round between them.
func genCards(t *rapid.T) []Event {
	order := shuffledShoe(8, rapid.Uint64().Draw(t, "seed"))
	evs := []Event{{Kind: NewShoe, Set: "S", Decks: 8}}
	if rapid.Bool().Draw(t, "recorded") {
		evs[0].Order = order
	}
	var seq uint64
	var shoe uint32
	pos := 0
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for range rapid.IntRange(1, 200).Draw(t, "n") {
		var ev Event
		switch k := rapid.IntRange(0, 29).Draw(t, "kind"); {
		case k < 22:
			seq += uint64(rapid.SampledFrom([]int{1, 1, 1, 1, 1, 1, 2, 0}).Draw(t, "seq-step"))
			shoe += uint32(rapid.SampledFrom([]int{2000, 900, 40, 40}).Draw(t, "shoe-ms"))
			at = at.Add(time.Second)
			c := order[pos%len(order)]
			if !rapid.Bool().Draw(t, "in-order") {
				c = baccarat.Card{Rank: baccarat.Rank(rapid.IntRange(0, 13).Draw(t, "rank")),
					Suit: baccarat.Suit(rapid.IntRange(1, 4).Draw(t, "suit"))}
			}
			pos++
			ev = Event{Kind: CardDrawn, Seq: seq, At: at, Card: c, ShoeTime: shoe,
				ShoeTimed:  rapid.IntRange(0, 3).Draw(t, "timed") > 0,
				Set:        rapid.SampledFrom([]string{"", "", "S", "OTHER"}).Draw(t, "set"),
				Burned:     rapid.IntRange(0, 9).Draw(t, "burned") == 0,
				Resent:     rapid.IntRange(0, 9).Draw(t, "resent") == 0,
				Renumbered: rapid.IntRange(0, 19).Draw(t, "renumbered") == 0}
			if ev.Renumbered {
				seq, ev.Seq = 1, 1
			}
		case k < 26:
			ev = Event{Kind: BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetBanker, Stake: 100}}}
		case k < 28:
			ev = Event{Kind: ConfirmResult}
		default:
			kinds := []EventKind{InsuranceWindowClosed, InsuranceBet, SqueezeRequested, CutCard, ShoeEnd, NewShoe,
				Report, Decide, OptionsWindowClosed}
			ev = Event{Kind: rapid.SampledFrom(kinds).Draw(t, "other"), Set: "S", Decks: 8,
				Irregularity: rapid.SampledFrom(irregularities.Kinds()).Draw(t, "irregularity"),
				Choice:       irregularities.Choice(rapid.IntRange(1, 5).Draw(t, "choice")),
				Role:         irregularities.Role(rapid.IntRange(1, 4).Draw(t, "role"))}
			if ev.Kind == InsuranceBet {
				ev.Wagers = []baccarat.Wager{{Box: "1", Bet: baccarat.BetBankerInsurance, Stake: 10}}
			}
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestPropertyCommonCardIsCheckByCheck: the single pass the common card takes gives the
// effects, and leaves the state, that stepping it check by check gives, whatever the
// table and the cards.
func TestPropertyCommonCardIsCheckByCheck(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		cfg.Decks = 8
		if rapid.Bool().Draw(t, "burn-shoe") {
			cfg.Burn = BurnShoe
		}
		cfg.NoInsurance = rapid.IntRange(0, 3).Draw(t, "no-insurance") == 0
		fast, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		slow, _ := New(cfg)
		slow.checkByCheck = true
		for i, ev := range genCards(t) {
			got, want := effectLines(fast.Step(ev)), effectLines(slow.Step(ev))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("event %d %s: effects\n%v\nwant, check by check:\n%v", i, ev, got, want)
			}
			if !reflect.DeepEqual(fast.State(), slow.State()) {
				t.Fatalf("event %d %s: state\n%+v\nwant, check by check:\n%+v", i, ev, fast.State(), slow.State())
			}
		}
	})
}

// effectLines is each effect's text and JSON.
func effectLines(effs []Effect) []string {
	var out []string
	for _, e := range effs {
		b, err := json.Marshal(e)
		if err != nil {
			b = []byte(err.Error()) // an unreadable card is no card to write
		}
		out = append(out, e.String(), string(b))
	}
	return out
}
