package messages

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
)

// everyMessageEvents is two shoes that between them give every message the builder
// emits on the card, result and irregularity topics: cards, an irregularity raised and
// resolved, the players' options window opened, a box's choice and the window closed
// (RWS Baccarat 5.10, 5.12), a dealer warning (the shoe empty while the round awaits its
// confirmation), a settled round, and a void round (RWS Baccarat 5.15).
func everyMessageEvents() []round.Event {
	return []round.Event{{Kind: round.NewShoe, Set: "S1", Decks: 8},
		{Kind: round.BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetPlayer, Stake: 100},
			{Box: "2", Bet: baccarat.BetBanker, Stake: 100}}},
		drawn("4H", 1),
		{Kind: round.Report, Irregularity: irregularities.SimultaneousDraw, Role: irregularities.Dealer, Actor: "D4"},
		drawn("3D", 2),
		{Kind: round.Decide, ID: 1, Choice: irregularities.AsRead, Role: irregularities.Supervisor, Actor: "S1"},
		{Kind: round.BoxChoice, Box: "2", Option: irregularities.OptBetReturned, Role: irregularities.Dealer, Actor: "D4"},
		{Kind: round.OptionsWindowClosed, Role: irregularities.Supervisor, Actor: "S1"},
		drawn("5C", 3), drawn("KD", 4), // Player 9, a natural: the round is complete
		{Kind: round.ShoeEnd, Empty: true}, // a dealer warning: the shoe ends once the round is settled
		{Kind: round.ConfirmResult},
		{Kind: round.NewShoe, Set: "S2", Decks: 8},
		{Kind: round.BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetPlayer, Stake: 100}}},
		drawn("3H", 1), drawn("4C", 2),
		{Kind: round.ShoeEnd}, // the round in play is void
	}
}

// seqOf is what a message's payload says of itself: its seq, and which message it is.
type seqOf struct {
	Seq   uint64 `json:"seq"`
	Event string `json:"event"`
	Void  bool   `json:"void"`
}

// step is what one event gave: its messages, and the builder's Seq after it.
type step struct {
	msgs []Message
	seq  uint64
}

// stepAll steps evs through a controller and builder b and returns what each gave.
func stepAll(t *testing.T, b *Builder, rs *baccarat.RuleSet, evs []round.Event) []step {
	t.Helper()
	cfg := round.DefaultConfig(rs)
	cfg.Burn = round.BurnNone
	ctl, err := round.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out []step
	for i, ev := range evs {
		ev.At = time.Date(2026, 11, 22, 23, 0, i, 0, time.UTC)
		msgs, err := b.Effects(ev, ctl.Step(ev), ctl.State())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, step{msgs, b.Seq()})
	}
	return out
}

// checkSeqs checks the sequence numbers of the messages of each event, the first
// numbered message of them following after: the card, result and irregularity messages
// are one series with no gaps and no number given twice (docs/mqtt.md, "Envelope": a
// subscriber drops a seq it has already seen, so a message numbered again is lost); each
// payload carries its message's number; the retained messages carry the latest number
// in their payload and none in the message. It returns the messages seen, by topic and
// event ("result void" for a void round).
func checkSeqs(t *testing.T, steps []step, evs []round.Event, after uint64) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	latest := after
	for i, st := range steps {
		for _, m := range st.msgs {
			var p seqOf
			if err := json.Unmarshal(m.Payload, &p); err != nil {
				t.Fatalf("after %v: %s: %v", evs[i], m.Topic, err)
			}
			if m.Topic.Retained() {
				if m.Seq != 0 || p.Seq != latest {
					t.Errorf("after %v: retained %s: seq %d, payload seq %d; want 0 and the latest number, %d", evs[i], m.Topic, m.Seq, p.Seq, latest)
				}
				continue
			}
			name := m.Topic.String()
			if p.Event != "" {
				name += " " + p.Event
			}
			if p.Void {
				name += " void"
			}
			seen[name] = true
			if m.Seq != latest+1 || p.Seq != m.Seq {
				t.Errorf("after %v: %s: seq %d, payload seq %d; want %d, one more than the message before", evs[i], name, m.Seq, p.Seq, latest+1)
			}
			latest = max(latest, m.Seq)
		}
		if st.seq != latest {
			t.Errorf("after %v: the builder's Seq is %d, want the latest message's, %d", evs[i], st.seq, latest)
		}
	}
	return seen
}

// TestEveryMessageTakesTheNextSeq: every message the builder numbers, of every kind,
// takes the next sequence number, a void round's result as much as a card's: none
// repeats the number of the message before it, which a subscriber would drop as seen
// (docs/mqtt.md, "Nothing lost, in order").
func TestEveryMessageTakesTheNextSeq(t *testing.T) {
	rs := baccarat.MustLookup("rws", baccarat.Options{})
	b, err := NewBuilder("T1", rs, roadmap.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	evs := everyMessageEvents()
	seen := checkSeqs(t, stepAll(t, b, rs, evs), evs, 0)
	want := []string{api.TopicCard.String(), api.TopicResult.String(), api.TopicResult.String() + " void"}
	for _, e := range []string{api.EventRaised, api.EventResolved, api.EventDealerWarning, api.EventOptionsOpened,
		api.EventOptionRecorded, api.EventOptionsClosed} {
		want = append(want, api.TopicIrregularity.String()+" "+e)
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("the events gave no %s message: the test no longer covers it", w)
		}
	}
	for s := range seen {
		if !slices.Contains(want, s) {
			t.Errorf("a %s message is not in the list this test covers: add it", s)
		}
	}

	// A table started from a snapshot goes on from the snapshot's number.
	b, err = NewBuilder("T1", rs, roadmap.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	b.SetSeq(100)
	checkSeqs(t, stepAll(t, b, rs, evs), evs, 100)
}
