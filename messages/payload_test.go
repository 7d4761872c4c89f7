package messages

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
)

// payloads are the payloads of msgs on topic, each as a JSON object.
func payloads(t *testing.T, msgs []Message, topic api.Topic) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range msgs {
		if m.Topic == topic {
			var v map[string]any
			if err := json.Unmarshal(m.Payload, &v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
	}
	return out
}

// TestPointsAreTheSecondDigit: a hand's points, in each card message and in the state,
// are the second digit of its cards' total when that is over 9 (RWS Baccarat 1.17), the
// Banker's as much as the Player's.
func TestPointsAreTheSecondDigit(t *testing.T) {
	evs := append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8}, {Kind: round.BetsClosed}},
		cardEvents(t, "7H 8D 6C 9S")...) // Player 7, 13: 3; Banker 8, 17: 7
	msgs := play(t, "classic", evs)
	want := [][2]float64{{7, 0}, {7, 8}, {3, 8}, {3, 7}}
	cards := payloads(t, msgs, api.TopicCard)
	if len(cards) != len(want) {
		t.Fatalf("%d card messages, want %d", len(cards), len(want))
	}
	for i, c := range cards {
		if c["player_points"] != want[i][0] || c["banker_points"] != want[i][1] {
			t.Errorf("card %d %v: points %v/%v, want %v", i+1, c["card"], c["player_points"], c["banker_points"], want[i])
		}
	}
	states := payloads(t, msgs, api.TopicState)
	if s := states[len(states)-1]; s["player_points"] != 3.0 || s["banker_points"] != 7.0 {
		t.Errorf("state after the four cards: points %v/%v, want 3/7", s["player_points"], s["banker_points"])
	}
}

// TestStateNextSlotAndOutcome: the state names the next slot while a round is being
// dealt, and no longer once it is complete; it carries the outcome of a complete round,
// and none for a round that is void (RWS Baccarat 5.5.1: a foreign card found).
func TestStateNextSlotAndOutcome(t *testing.T) {
	evs := append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8}, {Kind: round.BetsClosed}},
		cardEvents(t, "9H 5C KS KD")...) // Player 9, a natural
	states := payloads(t, play(t, "rws", evs), api.TopicState)
	dealing, complete := states[len(states)-2], states[len(states)-1]
	if dealing["phase"] != "dealing" || dealing["next_slot"] != "B2" || dealing["outcome"] != nil {
		t.Errorf("state after three cards: %v", dealing)
	}
	if o, _ := complete["outcome"].(map[string]any); complete["phase"] != "complete" || complete["next_slot"] != nil || o == nil || o["winner"] != "player" {
		t.Errorf("state of the complete round: %v", complete)
	}

	evs = append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8}, {Kind: round.BetsClosed}}, cardEvents(t, "3H 4C")...)
	evs = append(evs, round.Event{Kind: round.Report, Irregularity: irregularities.ForeignCard, Role: irregularities.Dealer, Card: baccarat.MustParseCard("QH")})
	states = payloads(t, play(t, "rws", evs), api.TopicState)
	if void := states[len(states)-1]; void["phase"] != "complete" || void["held"] == nil || void["outcome"] != nil || void["next_slot"] != nil {
		t.Errorf("state of the void round: %v", void)
	}
}

// TestStateShowsTheLastRoundOfTheShoe: once the shoe's last round is settled, the state
// still shows its cards, until the shoe is ended (the phase "shoe-done").
func TestStateShowsTheLastRoundOfTheShoe(t *testing.T) {
	evs := append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8}, {Kind: round.CutCard}, {Kind: round.BetsClosed}},
		cardEvents(t, "9H 5C KS KD")...)
	evs = append(evs, round.Event{Kind: round.ConfirmResult}, round.Event{Kind: round.BetsClosed})
	evs = append(evs, cardEvents(t, "8H 5D KC QD")...)
	evs = append(evs, round.Event{Kind: round.ConfirmResult})
	states := payloads(t, play(t, "rws", evs), api.TopicState)
	done := states[len(states)-1]
	if cards, _ := done["cards"].([]any); done["phase"] != "shoe-done" || len(cards) != 4 {
		t.Errorf("state after the shoe's last round: %v", done)
	}
}

// TestStateSaysBurning: the state says the burn is being drawn while it is, and not
// after.
func TestStateSaysBurning(t *testing.T) {
	rs := baccarat.MustLookup("rws", baccarat.Options{})
	cfg := round.DefaultConfig(rs)
	cfg.Burn, cfg.BurnCount = round.BurnFixed, 2
	ctl, err := round.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBuilder("T1", rs, roadmap.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var burning []any
	for i, ev := range append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8}}, cardEvents(t, "2H 3H")...) {
		ev.At = time.Date(2026, 11, 22, 23, 0, i, 0, time.UTC)
		msgs, err := b.Effects(ev, ctl.Step(ev), ctl.State())
		if err != nil {
			t.Fatal(err)
		}
		states := payloads(t, msgs, api.TopicState)
		s := states[len(states)-1]
		burning = append(burning, s["phase"], s["burning"])
	}
	want := []any{"burning", true, "burning", true, "betting-open", nil}
	if len(burning) != len(want) {
		t.Fatalf("states %v", burning)
	}
	for i := range want {
		if burning[i] != want[i] {
			t.Fatalf("phases and burning flags %v, want %v", burning, want)
		}
	}
}

// TestResultOddsAndSuitsWhereTheyApply: a bet's odds are given where it wins, and not
// where it loses or is pushed; the suit class of a settled round only at a table whose
// Tie pays on it (Royal Baccarat).
func TestResultOddsAndSuitsWhereTheyApply(t *testing.T) {
	// Player 9 against Banker 0: the Player wins; then a void round, every bet pushed.
	evs := append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8}, {Kind: round.BetsClosed}}, cardEvents(t, "9H 5C KS KD")...)
	evs = append(evs, round.Event{Kind: round.ConfirmResult}, round.Event{Kind: round.BetsClosed})
	evs = append(evs, cardEvents(t, "3H 4C")...)
	evs = append(evs, round.Event{Kind: round.ShoeEnd})
	for _, rules := range []string{"classic", "royal"} {
		results := payloads(t, play(t, rules, evs), api.TopicResult)
		if len(results) != 2 {
			t.Fatalf("%s: %d results", rules, len(results))
		}
		for i, r := range results {
			if _, ok := r["suits"]; ok != (rules == "royal" && r["void"] == false) || ok && r["suits"] != "unsuited" {
				t.Errorf("%s, result %d: suits %v", rules, i+1, r["suits"])
			}
			for _, x := range r["bets"].([]any) {
				bet := x.(map[string]any)
				_, odds := bet["odds"]
				_, num := bet["odds_num"]
				if win := bet["result"] == "win"; odds != win || num != win {
					t.Errorf("%s, result %d: %v", rules, i+1, bet)
				}
			}
		}
	}
}

// TestResultPairs: the result says which hand's first two cards form a pair, the
// Banker's alone here (RWS Baccarat 1.15).
func TestResultPairs(t *testing.T) {
	evs := append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8}, {Kind: round.BetsClosed}}, cardEvents(t, "9H 4C KS 4D")...)
	evs = append(evs, round.Event{Kind: round.ConfirmResult})
	results := payloads(t, play(t, "rws", evs), api.TopicResult)
	if r := results[0]; r["banker_pair"] != true || r["player_pair"] != false {
		t.Errorf("result %v, want a Banker pair only", r)
	}
}

// TestInsuranceOffersAreTheRounds: a round's result carries the Insurance offered in
// that round and none offered in an earlier one; a void round's Insurance bet is pushed
// with its offer (NC Insurance 3.11, 4.1.2).
func TestInsuranceOffersAreTheRounds(t *testing.T) {
	// Round 1: Player 4, Banker 6 opens Banker Insurance 3:1 (NC Insurance 4.1.2); the
	// shoe ends before the Player's third card: the round is void. Round 2 offers none.
	evs := append([]round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8}, {Kind: round.BetsClosed}}, cardEvents(t, "3H 6D AC KD")...)
	evs = append(evs, round.Event{Kind: round.ShoeEnd}, round.Event{Kind: round.NewShoe, Set: "S2", Decks: 8}, round.Event{Kind: round.BetsClosed})
	evs = append(evs, cardEvents(t, "9H 5C KS KD")...)
	evs = append(evs, round.Event{Kind: round.ConfirmResult})
	results := payloads(t, play(t, "nc-insurance", evs), api.TopicResult)
	if len(results) != 2 {
		t.Fatalf("%d results", len(results))
	}
	insurance := func(r map[string]any) []map[string]any {
		var out []map[string]any
		for _, x := range r["bets"].([]any) {
			if b := x.(map[string]any); strings.HasSuffix(b["bet"].(string), "_insurance") {
				out = append(out, b)
			}
		}
		return out
	}
	void := insurance(results[0])
	if offer, _ := void[0]["offer"].(map[string]any); results[0]["void"] != true || len(void) != 1 || void[0]["result"] != "push" || offer == nil || offer["odds"] != "3:1" {
		t.Errorf("void round's Insurance: %v", void)
	}
	if next := insurance(results[1]); len(next) != 0 {
		t.Errorf("the next round's result carries the Insurance of the round before: %v", next)
	}
}

// TestIrregularityMessagesSayWhoAndWhat: the raised message says whether the players
// get their options (RWS Baccarat 5.12); the resolved one says the decision and who made
// it.
func TestIrregularityMessagesSayWhoAndWhat(t *testing.T) {
	var raised, resolved []map[string]any
	for _, ir := range payloads(t, play(t, "rws", everyMessageEvents()), api.TopicIrregularity) {
		switch ir["event"] {
		case api.EventRaised:
			raised = append(raised, ir)
		case api.EventResolved:
			resolved = append(resolved, ir)
		}
	}
	if r := raised[0]; r["kind"] != "simultaneous_draw" || r["player_options"] != true || r["role"] != "dealer" || r["actor"] != "D4" {
		t.Errorf("raised: %v", r)
	}
	if r := raised[1]; r["kind"] != "card_count" || r["player_options"] != nil {
		t.Errorf("raised: %v", r)
	}
	if r := resolved[0]; r["choice"] != "as-read" || r["role"] != "supervisor" || r["actor"] != "S1" {
		t.Errorf("resolved: %v", r)
	}
}

// TestStatusAsTakesTheLatestState: the offline status takes the latest state's number
// when the state is of the same round, and keeps its own when that is the later; it
// keeps its decks and set against a state without them, and ignores a state of an
// earlier round or of another table.
func TestStatusAsTakesTheLatestState(t *testing.T) {
	stop := time.Date(2026, 5, 1, 23, 0, 0, 0, time.UTC)
	status, err := json.Marshal(NewStatus(round.State{Shoe: 4, Round: 17, Decks: 8, Set: "S2"},
		StatusInfo{Table: "t1", State: "online", Rules: baccarat.MustLookup("rws", baccarat.Options{}), Seq: 70, At: stop.Add(-time.Hour)}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		state string
		want  string // shoe round seq decks set
	}{
		{`{"schema":2,"table":"t1","shoe":4,"round":17,"seq":75,"decks":8,"set":"S2"}`, "4 17 75 8 S2"},
		{`{"schema":2,"table":"t1","shoe":4,"round":17,"seq":60,"decks":8,"set":"S2"}`, "4 17 70 8 S2"},
		{`{"schema":2,"table":"t1","shoe":4,"round":18,"seq":80}`, "4 18 80 8 S2"},
		{`{"schema":2,"table":"t1","shoe":4,"round":16,"seq":90,"decks":6,"set":"S1"}`, "4 17 70 8 S2"},
		{`{"schema":2,"table":"t2","shoe":9,"round":1,"seq":99,"decks":6,"set":"S9"}`, "4 17 70 8 S2"},
	} {
		b, err := StatusAs(status, []byte(tc.state), "offline", stop)
		if err != nil {
			t.Fatal(err)
		}
		var s api.Status
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		got := strings.Join([]string{itoa(s.Shoe), itoa(s.Round), itoa(uint32(s.Seq)), itoa(uint32(s.Decks)), s.Set}, " ")
		if got != tc.want {
			t.Errorf("after state %s: status %s, want %s", tc.state, got, tc.want)
		}
	}
}

func itoa(n uint32) string { b, _ := json.Marshal(n); return string(b) }

// TestOptionsWindowCitesItsDocument: the players' options window cites NC Insurance 5.12
// at an NC Insurance table, which numbers it as RWS Baccarat does, and RWS Baccarat 5.12
// elsewhere: in the irregularity message that opens it and in the state.
func TestOptionsWindowCitesItsDocument(t *testing.T) {
	for rules, want := range map[string]string{"rws": "RWS Baccarat 5.12", "nc-insurance": "NC Insurance 5.12", "classic": "RWS Baccarat 5.12"} {
		evs := []round.Event{{Kind: round.NewShoe, Set: "S", Decks: 8},
			{Kind: round.BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetPlayer, Stake: 100}}},
			drawn("4H", 1), {Kind: round.Report, Irregularity: irregularities.ExposedCard, Role: irregularities.Dealer}}
		msgs := play(t, rules, evs)
		opened := 0
		for _, ir := range payloads(t, msgs, api.TopicIrregularity) {
			if ir["event"] == api.EventOptionsOpened {
				opened++
				if ir["rule"] != want {
					t.Errorf("%s: the window opens under %v, want %s", rules, ir["rule"], want)
				}
			}
		}
		states := payloads(t, msgs, api.TopicState)
		o, _ := states[len(states)-1]["options"].(map[string]any)
		if opened != 1 || o == nil || o["rule"] != want {
			t.Errorf("%s: %d windows opened; the state's window %v, want it under %s", rules, opened, o, want)
		}
	}
}
