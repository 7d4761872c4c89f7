package board

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
)

// mqttMessage is one message as the daemon publishes it.
type mqttMessage struct {
	topic    string
	payload  []byte
	retained bool
}

// shoeRounds are the rounds of the test shoe, each as the ranks of its cards in the
// order they are drawn (P1 B1 P2 B2, then P3 and B3 when the Table of Play gives them).
// The first twenty give the roadmap's sample shoe of docs/roadmap.md,
// B B P Bb B B P P T B P Pp P P B Tn B B P Bbpn (with naturals and pairs where the cards
// make them); the twenty-first deals five Kings in a row, which the bad-shuffle alarm
// warns the dealer of, and is a Banker win with both pairs.
var shoeRounds = []string{
	"2 3 4 4",     // 1  B 7-6
	"3 2 4 K 6",   // 2  B 8-7, the Banker draws
	"3 2 4 4",     // 3  P 7-6
	"3 9 4 9",     // 4  B 8-7 natural, Banker pair
	"Q K 6 7",     // 5  B 7-6
	"A 5 5 2",     // 6  B 7-6
	"2 K 3 7 4",   // 7  P 9-7, the Player draws
	"K J 7 6",     // 8  P 7-6
	"3 5 4 2",     // 9  T 7-7
	"7 8 9 9",     // 10 B 7-6
	"5 A 2 5",     // 11 P 7-6
	"4 Q 4 6",     // 12 P 8-6 natural, Player pair
	"8 7 9 9",     // 13 P 7-6
	"A 7 4 K 3",   // 14 P 8-7, the Player draws
	"J 6 6 A",     // 15 B 7-6
	"5 6 3 2",     // 16 T 8-8 natural
	"6 Q A J 8",   // 17 B 8-7, the Banker draws
	"9 Q 7 7",     // 18 B 7-6
	"A Q 6 6",     // 19 P 7-6
	"3 4 3 4",     // 20 B 8-6 natural, both pairs
	"K K K K K 5", // 21 B 5-0, both pairs; the fifth King in a row warns the dealer
}

const (
	// heldFirst and heldSecond are drawn 40 ms apart in round 22: cards drawn
	// simultaneously (RWS Baccarat 5.10), and the table is held for the Pit Supervisor.
	heldFirst  = "9"
	heldSecond = "8"
	// heldDisplay is the catalogue's text for that irregularity.
	heldDisplay = "Cards drawn simultaneously: the Pit Supervisor decides which card is received first"
)

// dealtShoe is the test shoe dealt through the real round controller and message
// builder: the messages in the order the daemon publishes them, and the roadmap as it
// stands at the end.
type dealtShoe struct {
	msgs    []mqttMessage
	roadmap roadmap.JSON
	status  []byte
}

// dealShoe deals the test shoe under the RWS rules on table: a new eight-deck shoe, the
// burn, the rounds of shoeRounds with bets closed and each result confirmed, then round
// 22 whose first two cards are drawn together, which holds the table.
func dealShoe(t testing.TB, table string) dealtShoe {
	t.Helper()
	rs := baccarat.MustLookup("rws", baccarat.Options{})
	ctl, err := round.New(round.DefaultConfig(rs))
	if err != nil {
		t.Fatal(err)
	}
	b, err := messages.NewBuilder(table, rs, roadmap.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	topics, err := api.NewTopics(table)
	if err != nil {
		t.Fatal(err)
	}
	var out dealtShoe
	at := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	var seq uint64
	suits := "SHDC"
	drawn := map[string]int{} // cards drawn of each rank
	step := func(ev round.Event) {
		t.Helper()
		effs := ctl.Step(ev)
		for _, e := range effs {
			if e.Kind == round.EventRefused {
				t.Fatalf("event %v refused: %s", ev, e.Reason())
			}
		}
		ms, err := b.Effects(ev, effs, ctl.State())
		if err != nil {
			t.Fatalf("messages of %v: %v", ev, err)
		}
		for _, m := range ms {
			out.msgs = append(out.msgs, mqttMessage{topic: api.Prefix + "/" + topics.Table() + "/" + m.Topic.String(),
				payload: m.Payload, retained: m.Topic.Retained()})
		}
	}
	card := func(rank string, gap time.Duration) {
		t.Helper()
		// Each rank's suits go round, so no card is drawn more often than eight decks
		// hold it.
		c, err := baccarat.ParseCard(rank + string(suits[drawn[rank]%4]))
		if err != nil {
			t.Fatal(err)
		}
		drawn[rank]++
		seq++
		at = at.Add(gap)
		// The shoe stamps each card with its own clock: cards drawn together are judged
		// on it (docs/irregularities.md, "Timing").
		step(round.Event{Kind: round.CardDrawn, At: at, Card: c, Seq: seq, ShoeTime: uint32(at.UnixMilli()), ShoeTimed: true})
	}
	next := func() time.Time { at = at.Add(2 * time.Second); return at }

	step(round.Event{Kind: round.NewShoe, At: next(), Set: "S1", Decks: 8})
	for _, r := range []string{"2", "9", "J"} { // the 2 shown burns two more
		card(r, 2*time.Second)
	}
	for i, r := range shoeRounds {
		step(round.Event{Kind: round.BetsClosed, At: next(), Wagers: []baccarat.Wager{
			{Box: "1", Bet: baccarat.BetBanker, Stake: 100}, {Box: "2", Bet: baccarat.BetPlayer, Stake: 100}}})
		for _, rank := range strings.Fields(r) {
			card(rank, 2*time.Second)
		}
		if st := ctl.State(); st.Phase != round.Complete {
			t.Fatalf("round %d (%s) is not complete: %s", i+1, r, st.Phase)
		}
		step(round.Event{Kind: round.ConfirmResult, At: next()})
	}
	step(round.Event{Kind: round.BetsClosed, At: next()})
	card(heldFirst, 2*time.Second)
	card(heldSecond, 40*time.Millisecond)
	if h := ctl.State().Held; h.Kind != irregularities.SimultaneousDraw {
		t.Fatalf("the table is not held for cards drawn simultaneously: %+v", h)
	}
	out.roadmap = b.Roadmap().JSON()
	st := ctl.State()
	status, err := json.Marshal(api.Status{Envelope: api.Envelope{Schema: api.Schema, Table: table,
		Shoe: st.Shoe, Round: st.Round, Seq: b.Seq(), At: at}, State: "online", Rules: rs.Name, Decks: st.Decks,
		Set: st.Set, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	out.status = status
	return out
}

// countEvents counts the messages of the shoe on topics ending in last.
func (d dealtShoe) count(last string) int {
	n := 0
	for _, m := range d.msgs {
		if strings.HasSuffix(m.topic, "/"+last) {
			n++
		}
	}
	return n
}

func (d dealtShoe) String() string {
	var b strings.Builder
	for _, m := range d.msgs {
		fmt.Fprintf(&b, "%s %s\n", m.topic, m.payload)
	}
	return b.String()
}

// TestDealShoe checks the test shoe itself: the roads it makes are the sample shoe's of
// docs/roadmap.md plus round 21, and it carries the irregularity messages the board
// tests look for.
func TestDealShoe(t *testing.T) {
	t.Parallel()
	d := dealShoe(t, "t1")
	var tokens []string
	for _, bead := range d.roadmap.BeadPlate {
		tok := bead.Outcome
		if bead.BankerPair {
			tok += "b"
		}
		if bead.PlayerPair {
			tok += "p"
		}
		tokens = append(tokens, tok)
	}
	want := "B B P Bb B B P P T B P Pp P P B T B B P Bbp Bbp"
	if got := strings.Join(tokens, " "); got != want {
		t.Errorf("bead plate %s, want %s", got, want)
	}
	if got := d.count("result"); got != len(shoeRounds) {
		t.Errorf("%d results, want %d", got, len(shoeRounds))
	}
	var warned, held bool
	for _, m := range d.msgs {
		if !strings.HasSuffix(m.topic, "/irregularity") {
			continue
		}
		var irr struct {
			Event  string `json:"event"`
			Kind   string `json:"kind"`
			Round  uint32 `json:"round"`
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal(m.payload, &irr); err != nil {
			t.Fatal(err)
		}
		if irr.Event == "dealer_warning" {
			if irr.Round != 21 {
				t.Errorf("dealer warning in round %d, want only in round 21: %s", irr.Round, irr.Reason)
			}
			warned = true
		}
		held = held || irr.Event == "raised" && irr.Kind == "simultaneous_draw"
	}
	if !warned || !held {
		t.Errorf("dealer warning %v, simultaneous draw %v; want both", warned, held)
	}
}
