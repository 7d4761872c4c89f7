package settle

import (
	"encoding/json"
	"strings"
	"testing"
)

func settleJSON(t *testing.T, input string) settled {
	t.Helper()
	out, err := Round(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	var s settled
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return s
}

// TestSettleProRataBankerOnSix: non-commission Banker winning on 6 pays 1:2 on a
// pro-rated stake (RWS Baccarat 4.1.1, 5.1.1). The seated 6000 plays whole; 3000 and 4000
// standing share the 4000 left: 1714 and 2284 in even units (so 1:2 pays whole units),
// winning 857 and 1142; the rest of each stake comes back.
func TestSettleProRataBankerOnSix(t *testing.T) {
	s := settleJSON(t, `{"rules":"rws","cards":{"player":["3H","AC","KS"],"banker":["6D","KD"]},
		"limits":{"min":{"banker":100},"max_differential":10000,"excess":"pro_rata"},
		"wagers":[{"box":"2","bet":"banker","stake":6000},{"box":"2","seat":"standing","bet":"banker","stake":3000},
		          {"box":"2","seat":"standing","bet":"banker","stake":4000}]}`)
	want := []struct{ eff, won, returned int64 }{{6000, 3000, 9000}, {1714, 857, 1714 + 857 + 1286}, {2284, 1142, 2284 + 1142 + 1716}}
	if s.Winner != "banker" || len(s.Settlements) != 3 {
		t.Fatalf("%+v", s)
	}
	for i, w := range want {
		g := s.Settlements[i]
		if g.Effective != w.eff || g.Won != w.won || g.Returned != w.returned || g.Result != "win" {
			t.Errorf("settlement %d: %+v, want effective %d won %d returned %d", i+1, g, w.eff, w.won, w.returned)
		}
	}
	if !strings.Contains(s.Settlements[1].Rule, "RWS Baccarat 5.1.1") {
		t.Errorf("rule %q", s.Settlements[1].Rule)
	}
	// Paid rounded, the shares are whole units and their winnings rounded half up:
	// 4000 shared by 3001 and 4000: 1714.61 -> 1715 (wins 857.5 -> 858), 2285.39 -> 2285
	// (wins 1142.5 -> 1143).
	s = settleJSON(t, `{"rules":"rws","cards":{"player":["3H","AC","KS"],"banker":["6D","KD"]},"pay_rounded":true,"rounding":"half-up",
		"limits":{"min":{"banker":100},"max_differential":10000,"excess":"pro_rata"},
		"wagers":[{"box":"2","bet":"banker","stake":6000},{"box":"2","seat":"standing","bet":"banker","stake":3001},
		          {"box":"2","seat":"standing","bet":"banker","stake":4000}]}`)
	if g := s.Settlements[1]; g.Effective != 1715 || g.Won != 858 {
		t.Errorf("paid rounded: %+v", g)
	}
	if g := s.Settlements[2]; g.Effective != 2285 || g.Won != 1143 {
		t.Errorf("paid rounded: %+v", g)
	}
}

// TestSettleSeatedPriorityUnderMinimum: pro rata keeps the seated player's priority
// (RWS Baccarat 5.1), and a standing Bet under the minimum plays as placed (5.1.2).
func TestSettleSeatedPriorityUnderMinimum(t *testing.T) {
	s := settleJSON(t, `{"rules":"rws","cards":{"player":["4H","2C"],"banker":["3D","4S"]},
		"limits":{"min":{"banker":100},"max_differential":10000,"excess":"pro_rata"},
		"wagers":[{"box":"1","bet":"banker","stake":10000},{"box":"1","seat":"standing","bet":"banker","stake":50}]}`)
	if g := s.Settlements[0]; g.Effective != 10000 || g.Returned != 20000 {
		t.Errorf("the seated Banker 10000: %+v", g)
	}
	if g := s.Settlements[1]; g.Effective != 50 || g.Returned != 100 || !strings.Contains(g.Rule, "5.1.2") {
		t.Errorf("the standing 50: %+v", g)
	}
}

// TestSettleTieWithdrawal: on a Tie in nc-tournament the Original Bets push and may be
// withdrawn (NC Tournament 3.9); a cut-back one gives back all of its stake.
func TestSettleTieWithdrawal(t *testing.T) {
	s := settleJSON(t, `{"rules":"nc-tournament","cards":{"player":["9C","KC"],"banker":["9D","KH"]},
		"limits":{"max_differential":1000},
		"wagers":[{"box":"1","bet":"player","stake":700},{"box":"1","seat":"standing","bet":"player","stake":600},
		          {"box":"1","bet":"tie","stake":100}]}`)
	if s.Winner != "tie" || !s.Natural {
		t.Fatalf("%+v", s)
	}
	p, st, tie := s.Settlements[0], s.Settlements[1], s.Settlements[2]
	if p.Result != "push" || !p.MayWithdraw || p.Returned != 700 {
		t.Errorf("seated player bet: %+v", p)
	}
	if st.Effective != 300 || st.Result != "push" || !st.MayWithdraw || st.Returned != 600 {
		t.Errorf("standing player bet cut back to 300: %+v", st)
	}
	if tie.Result != "win" || tie.MayWithdraw || tie.Won != 800 {
		t.Errorf("tie: %+v", tie)
	}
}

// TestSettleInsurance: an NC Insurance round settles with the Insurance offers its cards
// make. With no Insurance given, each offer was closed unbet (NC Insurance 3.12, 5.3):
// Player 4 against Banker 6 opens Banker Insurance at 3:1, the Player's third card 5
// makes Player 9, and the Banker stands on 6: the Player wins. With a bet taken on the
// offer, the Insurance pays 3:1 when the Banker loses (3.11).
func TestSettleInsurance(t *testing.T) {
	const round = `"rules":"nc-insurance","cards":{"player":["4H","KD","5C"],"banker":["6D","KS"]},
		"wagers":[{"box":"1","bet":"banker","stake":100},{"box":"2","bet":"player","stake":100}]`
	s := settleJSON(t, `{`+round+`}`)
	if s.Winner != "player" || len(s.Settlements) != 2 || s.Settlements[0].Returned != 0 || s.Settlements[1].Returned != 200 {
		t.Fatalf("no Insurance given: %+v", s)
	}
	if len(s.Offers) != 1 || s.Offers[0].Bet != "banker_insurance" || s.Offers[0].Stage != "after_four_cards" {
		t.Errorf("offers: %+v", s.Offers)
	}
	s = settleJSON(t, `{`+round+`,"insurance":[{"stage":"after_four_cards","bet":"banker_insurance","bets":[{"box":"1","stake":30}]}]}`)
	if len(s.Settlements) != 3 {
		t.Fatalf("with Insurance: %+v", s)
	}
	if g := s.Settlements[2]; g.Box != "1" || g.Bet != "banker_insurance" || g.Result != "win" || g.Won != 90 || g.Returned != 120 {
		t.Errorf("the Insurance: %+v", g)
	}
	// The bet's kind may be left to the offer.
	s = settleJSON(t, `{`+round+`,"insurance":[{"stage":"after_four_cards","bets":[{"box":"1","stake":30}]}]}`)
	if g := s.Settlements[2]; g.Bet != "banker_insurance" || g.Returned != 120 {
		t.Errorf("the Insurance with its offer's bet: %+v", g)
	}
}

// TestSettleBadInput: each fault is an error naming what and where; wagers, cards and
// Insurance offers and bets by their number in their list, from 1.
func TestSettleBadInput(t *testing.T) {
	const cards = `"cards":{"player":["KS","3D","2C"],"banker":["4H","3S"]}`
	const ins = `"rules":"nc-insurance","cards":{"player":["4H","KD","5C"],"banker":["6D","KS"]},"wagers":[{"box":"1","bet":"banker","stake":100}]`
	for _, c := range []struct{ name, input, want string }{
		{"unknown bet", `{"rules":"rws",` + cards + `,"wagers":[{"box":"1","bet":"bankr","stake":100}]}`, `wager 1, bet: unknown bet "bankr"`},
		{"the second wager", `{"rules":"rws",` + cards + `,"wagers":[{"box":"1","bet":"banker","stake":100},{"box":"2","bet":"tie","stake":0}]}`, `wager 2, stake: 0: want a positive amount`},
		{"bet not offered", `{"rules":"classic",` + cards + `,"wagers":[{"box":"1","bet":"player_pair","stake":100}]}`, `wager 1, bet: rule set classic does not offer player_pair`},
		{"card that does not parse", `{"rules":"rws","cards":{"player":["KS","3D","2Q"],"banker":["4H","3S"]}}`, `cards.player, card 3: card "2Q"`},
		{"seven cards", `{"rules":"rws","cards":{"player":["KS","3D","2C","5C"],"banker":["4H","3S","2D"]}}`, `cards: 7 cards`},
		{"a hand of one card", `{"rules":"rws","cards":{"player":["KS"],"banker":["4H","3S"]}}`, `cards.player: 1 cards: a hand has 2 or 3`},
		{"a third card on a Natural", `{"rules":"rws","cards":{"player":["9S","KD","2C"],"banker":["4H","3S"]}}`, `cards: a Natural (Player 9, Banker 7 on two cards): neither hand draws`},
		{"the Player standing on 6 given a card", `{"rules":"rws","cards":{"player":["KS","6D","2C"],"banker":["4H","3S"]}}`, `cards.player: a third card, but the Player stands on 6`},
		{"the Banker drawing without one", `{"rules":"rws","cards":{"player":["KS","3D","4C"],"banker":["4H","KH"]}}`, `cards.banker: no third card, but the Banker draws on 4 when the Player's third card is worth 4`},
		{"negative stake", `{"rules":"rws",` + cards + `,"wagers":[{"box":"1","bet":"banker","stake":-100}]}`, `wager 1, stake: -100: want a positive amount`},
		{"fractional stake", `{"rules":"rws",` + cards + `,"wagers":[{"box":"1","bet":"banker","stake":10.5}]}`, `wager 1, stake: 10.5: want a whole number`},
		{"a stake as a text", `{"rules":"rws",` + cards + `,"wagers":[{"box":"1","bet":"banker","stake":"100"}]}`, `wager 1, stake: "100": want a whole number, not a text`},
		{"a box as a number", `{"rules":"rws",` + cards + `,"wagers":[{"box":1,"bet":"banker","stake":100}]}`, `wager 1, box: 1: want a text, not a number`},
		{"unknown key", `{"rules":"rws",` + cards + `,"wagers":[],"limit":{}}`, `limit: unknown key (the input has rules, cards`},
		{"unknown key in a wager", `{"rules":"rws",` + cards + `,"wagers":[{"box":"1","bet":"banker","stake":100,"odds":2}]}`, `wager 1.odds: unknown key`},
		{"unknown key in the limits", `{"rules":"rws",` + cards + `,"limits":{"minimum":{}}}`, `limits.minimum: unknown key`},
		{"unknown bet in the limits", `{"rules":"rws",` + cards + `,"limits":{"min":{"bnker":100}}}`, `limits.min.bnker: unknown bet`},
		{"limits of the wrong kind", `{"rules":"rws",` + cards + `,"limits":{"min":[100]}}`, `limits.min: want an object of amounts by bet, not a list`},
		{"a limit that cannot be met", `{"rules":"rws",` + cards + `,"limits":{"min":{"player":500},"max_differential":400}}`, `limits.max_differential: 400 is below the player minimum of 500`},
		{"excess twice", `{"rules":"rws",` + cards + `,"limits":{"excess":"reject"},"excess":"pro_rata"}`, `excess: "pro_rata", but limits.excess is "reject"`},
		{"unknown seat", `{"rules":"rws",` + cards + `,"wagers":[{"box":"1","seat":"sitting","bet":"banker","stake":100}]}`, `wager 1, seat: unknown seat "sitting"`},
		{"unknown rules", `{"rules":"punto",` + cards + `}`, `rules: unknown rule set "punto"`},
		{"no rules", `{` + cards + `}`, `rules: missing`},
		{"no cards", `{"rules":"rws"}`, `cards: missing`},
		{"cards of the wrong kind", `{"rules":"rws","cards":[]}`, `cards: want an object, not a list`},
		{"a hand of the wrong kind", `{"rules":"rws","cards":{"player":"KS","banker":["4H","3S"]}}`, `cards.player: want a list of cards, such as ["KS","3D"], not a text`},
		{"wagers of the wrong kind", `{"rules":"rws",` + cards + `,"wagers":{}}`, `wagers: want a list of wagers, not an object`},
		{"a wager of the wrong kind", `{"rules":"rws",` + cards + `,"wagers":[[]]}`, `wager 1: want an object, not a list`},
		{"decks", `{"rules":"rws",` + cards + `,"decks":2}`, `decks: rule set rws: 2 decks not permitted`},
		{"more than a card set holds", `{"rules":"rws","cards":{"player":["KS","KS","KS"],"banker":["KS","KS","KS"]},"decks":4}`, `cards.player, card 3: foreign_card: KS: a 4-deck set holds 4 and this is one more (RWS Baccarat 5.5.1)`},
		{"not an object", `[]`, `the input: want an object, not a list`},
		{"nothing", ``, `the input: empty: want one JSON object`},
		{"cut short", `{"rules":`, `the input: line 1, column 10: the input ends before the object does`},
		{"a syntax error", "{\"rules\":\"rws\",\n  \"cards\":{\"player\":[\"KS\" \"3D\"]}}", `the input: line 2, column 27: invalid character '"' after array element`},
		{"two documents", `{"rules":"rws",` + cards + `} {}`, `line 1, column 74: more after the object`},
		{"Insurance at a table without it", `{"rules":"rws",` + cards + `,"insurance":[]}`, `insurance: rule set rws offers no Insurance`},
		{"an offer the cards do not make", `{` + ins + `,"insurance":[{"stage":"after_player_third","bets":[]}]}`, `insurance 1: the cards make no Insurance offer after player's third card`},
		{"an unknown stage", `{` + ins + `,"insurance":[{"stage":"after_five_cards"}]}`, `insurance 1, stage: "after_five_cards": want after_four_cards or after_player_third`},
		{"a stage given twice", `{` + ins + `,"insurance":[{"stage":"after_four_cards"},{"stage":"after_four_cards"}]}`, `insurance 2, stage: after_four_cards is given twice`},
		{"the other hand's Insurance", `{` + ins + `,"insurance":[{"stage":"after_four_cards","bet":"player_insurance","bets":[{"box":"1","stake":30}]}]}`, `insurance 1, bet 1: refused: the open offer is banker_insurance`},
		{"an Insurance over the Original Bet", `{` + ins + `,"insurance":[{"stage":"after_four_cards","bets":[{"box":"1","stake":30},{"box":"1","stake":10}]}]}`, `insurance 1, bet 2: refused: insurance would pay 120 in all, more than the banker bet of 100 (NC Insurance 3.12.2)`},
		{"an Insurance bet with no stake", `{` + ins + `,"insurance":[{"stage":"after_four_cards","bets":[{"box":"1"}]}]}`, `insurance 1, bet 1, stake: missing`},
		{"an Insurance wager", `{"rules":"nc-insurance",` + cards + `,"wagers":[{"box":"1","bet":"banker_insurance","stake":10}]}`, `wager 1, bet: banker_insurance is taken on an offer after the cards, not with the wagers: give it under insurance`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := Round(strings.NewReader(c.input))
			if err == nil {
				t.Fatalf("no error, printed %s", out)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error\n%v\nwant it to contain\n%s", err, c.want)
			}
			for _, leak := range []string{"Go value", "json.", "map["} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("the error names a Go type: %v", err)
				}
			}
		})
	}
}
