package messages

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
)

// play steps events through a controller and a builder and returns every message.
// drawn is a card drawn from the shoe: card s, the shoe's number seq.
func drawn(s string, seq uint64) round.Event {
	return round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard(s), Seq: seq}
}

func play(t *testing.T, rules string, evs []round.Event) []Message {
	t.Helper()
	rs := baccarat.MustLookup(rules, baccarat.Options{})
	cfg := round.DefaultConfig(rs)
	cfg.Burn = round.BurnNone
	ctl, err := round.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBuilder("T1", rs, roadmap.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var out []Message
	for i, ev := range evs {
		ev.At = time.Date(2026, 11, 22, 23, 0, i, 0, time.UTC)
		effs := ctl.Step(ev)
		msgs, err := b.Effects(ev, effs, ctl.State())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, msgs...)
	}
	return out
}

func cardEvents(t *testing.T, s string) []round.Event {
	cs, err := baccarat.ParseCards(s)
	if err != nil {
		t.Fatal(err)
	}
	var evs []round.Event
	for i, c := range cs {
		evs = append(evs, round.Event{Kind: round.CardDrawn, Card: c, Seq: uint64(i + 1)})
	}
	return evs
}

func TestResultCarriesEveryBet(t *testing.T) {
	// nc-insurance: Player 4, Banker 6 opens Banker Insurance 3:1; the Player draws a King
	// and the Banker 6 stands: Banker wins on 6 with two cards.
	evs := append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8}, {Kind: round.BetsClosed}},
		cardEvents(t, "3H 6D AC KD")...)
	evs = append(evs, round.Event{Kind: round.InsuranceWindowClosed})
	evs = append(evs, round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard("KS"), Seq: 5},
		round.Event{Kind: round.ConfirmResult})
	msgs := play(t, "nc-insurance", evs)
	var seqs []uint64
	var res api.Result
	var cards []api.Card
	for _, m := range msgs {
		if m.Topic.Retained() {
			if m.Seq != 0 {
				t.Errorf("retained %s carries seq %d in the message", m.Topic, m.Seq)
			}
			continue
		}
		seqs = append(seqs, m.Seq)
		switch m.Topic {
		case api.TopicCard:
			var c api.Card
			json.Unmarshal(m.Payload, &c)
			cards = append(cards, c)
		case api.TopicResult:
			if err := json.Unmarshal(m.Payload, &res); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !reflect.DeepEqual(seqs, []uint64{1, 2, 3, 4, 5, 6}) {
		t.Errorf("sequence numbers %v, want 1 to 6", seqs)
	}
	// The hands' points as each card is placed.
	points := [][2]int{{3, 0}, {3, 6}, {4, 6}, {4, 6}, {4, 6}}
	for i, c := range cards {
		if c.PlayerPoints != points[i][0] || c.BankerPoints != points[i][1] {
			t.Errorf("card %d %s: points %d/%d, want %v", i+1, c.Card, c.PlayerPoints, c.BankerPoints, points[i])
		}
	}
	got := map[string]string{}
	for _, b := range res.Bets {
		got[string(b.Bet)] = string(b.Result) + " " + b.Odds
	}
	want := map[string]string{"player": "lose ", "banker": "win 1:2", "tie": "lose ", "player_pair": "lose ",
		"banker_pair": "lose ", "super_six_plus": "win 12:1", "banker_insurance": "lose "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bets %v, want %v", got, want)
	}
	if res.Winner != "banker" || res.BankerPoints != 6 || res.Void {
		t.Errorf("result %+v", res)
	}
}

func TestVoidReturnsEveryBet(t *testing.T) {
	evs := append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8},
		{Kind: round.BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetPlayer, Stake: 100}}}},
		cardEvents(t, "3H 4C")...)
	evs = append(evs, round.Event{Kind: round.ShoeEnd})
	var res api.Result
	for _, m := range play(t, "classic", evs) {
		if m.Topic == api.TopicResult {
			json.Unmarshal(m.Payload, &res)
		}
	}
	if !res.Void || res.Reason == "" || len(res.Bets) != 3 || len(res.Settlements) != 1 || res.Settlements[0].Returned != 100 {
		t.Fatalf("void result %+v", res)
	}
	for _, b := range res.Bets {
		if b.Result != "push" {
			t.Errorf("%s: %s, want push", b.Bet, b.Result)
		}
	}
}

// TestDeterministic: the same events give the same messages, byte for byte: what a
// restart relies on to re-publish with the same numbers.
func TestDeterministic(t *testing.T) {
	evs := append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8}, {Kind: round.BetsClosed}},
		cardEvents(t, "9H 5C KS KD")...)
	evs = append(evs, round.Event{Kind: round.ConfirmResult})
	a, b := play(t, "rws", evs), play(t, "rws", evs)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same events gave different messages")
	}
}

// TestDeviceOfAFailure: an irregularity raised for a card the shoe could not read names
// the shoe as its device, and a device's own fault names that device; a fault a person
// reports names none (api.Irregularity.Device).
func TestDeviceOfAFailure(t *testing.T) {
	order := cardEvents(t, "9H 5C KS KD 2H 3D")
	evs := []round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8}, {Kind: round.BetsClosed},
		{Kind: round.Report, Irregularity: irregularities.DeviceFault, Role: irregularities.Dealer, Actor: "gpio", Detail: "light_green on could not be set"},
		{Kind: round.Report, Irregularity: irregularities.DeviceFault, Role: irregularities.Supervisor, Actor: "S17", Detail: "the shoe's lamp is out"},
		order[0], {Kind: round.CardDrawn, Actor: "shoe", Detail: "unreadable card code 0x00"}}
	var got []string
	for _, m := range play(t, "rws", evs) {
		var ir api.Irregularity
		if m.Topic == api.TopicIrregularity && json.Unmarshal(m.Payload, &ir) == nil && ir.Event == api.EventRaised {
			got = append(got, string(ir.Kind)+":"+ir.Device)
		}
	}
	if want := "[device_fault:gpio device_fault: incorrect_cards:shoe]"; fmt.Sprint(got) != want {
		t.Errorf("the irregularities' devices %v, want %s", got, want)
	}
}
