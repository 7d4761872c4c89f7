package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func runSettleWith(t *testing.T, input string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"settle"}, stdio{in: strings.NewReader(input), out: &out, err: &errOut})
	return out.String(), err
}

// TestSettleIssueExample: the round of the settle command's documentation: the standing
// player's Banker bet over the box's maximum Differential is cut back (RWS Baccarat 5.1)
// and wins on what is left.
func TestSettleIssueExample(t *testing.T) {
	out, err := runSettleWith(t, `{"rules":"rws","cards":{"player":["KS","3D","2C"],"banker":["4H","3S"]},
		"limits":{"min":{"banker":100},"max":{"banker":20000},"max_differential":10000},"excess":"reject",
		"wagers":[{"box":"1","seat":"seated","bet":"banker","stake":6000},{"box":"1","seat":"standing","bet":"banker","stake":5000}]}`)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"winner":"banker","player_points":5,"banker_points":7,"natural":false,"settlements":[` +
		`{"box":"1","seat":"seated","bet":"banker","stake":6000,"effective_stake":6000,"result":"win","won":6000,"returned":12000,"rule":"accepted"},` +
		`{"box":"1","seat":"standing","bet":"banker","stake":5000,"effective_stake":4000,"result":"win","won":4000,"returned":9000,` +
		`"rule":"cut_back: 4000 of 5000 plays: box 1's Differential of 11000 (banker 11000, player 0) is over the maximum of 10000: the excess banker Bets are rejected, seated player first (RWS Baccarat 5.1)"}]}` + "\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

type settled struct {
	Winner      string `json:"winner"`
	Natural     bool   `json:"natural"`
	Settlements []struct {
		Box         string `json:"box"`
		Seat        string `json:"seat"`
		Bet         string `json:"bet"`
		Stake       int64  `json:"stake"`
		Effective   int64  `json:"effective_stake"`
		Result      string `json:"result"`
		Won         int64  `json:"won"`
		Returned    int64  `json:"returned"`
		Rule        string `json:"rule"`
		MayWithdraw bool   `json:"may_withdraw"`
	} `json:"settlements"`
}

func settleJSON(t *testing.T, input string) settled {
	t.Helper()
	out, err := runSettleWith(t, input)
	if err != nil {
		t.Fatal(err)
	}
	var s settled
	if err := json.Unmarshal([]byte(out), &s); err != nil {
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
	// 1714 wins 857, 2286 wins 1143.
	s = settleJSON(t, `{"rules":"rws","cards":{"player":["3H","AC","KS"],"banker":["6D","KD"]},"pay_rounded":true,"rounding":"half-up",
		"limits":{"min":{"banker":100},"max_differential":10000,"excess":"pro_rata"},
		"wagers":[{"box":"2","bet":"banker","stake":6000},{"box":"2","seat":"standing","bet":"banker","stake":3001},
		          {"box":"2","seat":"standing","bet":"banker","stake":4000}]}`)
	// 4000 shared by 3001 and 4000: 1714.61 -> 1715 (wins 857.5 -> 858), 2285.39 -> 2285 (wins 1142.5 -> 1143).
	if g := s.Settlements[1]; g.Effective != 1715 || g.Won != 858 {
		t.Errorf("paid rounded: %+v", g)
	}
	if g := s.Settlements[2]; g.Effective != 2285 || g.Won != 1143 {
		t.Errorf("paid rounded: %+v", g)
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

// TestSettleHelpDocumentsInput: settle -h says what the input holds.
func TestSettleHelpDocumentsInput(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"settle", "-h"}, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
	if err == nil || !strings.Contains(err.Error(), "help") {
		t.Fatalf("settle -h: %v", err)
	}
	for _, want := range []string{`"rules":"rws"`, "cards", "wagers", "seat", "limits", "max_differential", "excess", "pro_rata",
		"rounding", "royal_paytable", "royal_tiers", "decks", "effective_stake", "exit status is 2"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("settle -h does not mention %q:\n%s", want, errOut.String())
		}
	}
}

// TestSettleBadInput: each fault is an error naming what and where.
func TestSettleBadInput(t *testing.T) {
	const cards = `"cards":{"player":["KS","3D","2C"],"banker":["4H","3S"]}`
	for _, c := range []struct{ name, input, want string }{
		{"unknown bet", `{"rules":"rws",` + cards + `,"wagers":[{"box":"1","bet":"bankr","stake":100}]}`, `wagers[1].bet: unknown bet "bankr"`},
		{"bet not offered", `{"rules":"classic",` + cards + `,"wagers":[{"box":"1","bet":"player_pair","stake":100}]}`, `wagers[1].bet: rule set classic does not offer player_pair`},
		{"card that does not parse", `{"rules":"rws","cards":{"player":["KS","3D","2Q"],"banker":["4H","3S"]}}`, `cards.player[3]: card "2Q"`},
		{"seven cards", `{"rules":"rws","cards":{"player":["KS","3D","2C","5C"],"banker":["4H","3S","2D"]}}`, `cards: 7 cards`},
		{"a hand of one card", `{"rules":"rws","cards":{"player":["KS"],"banker":["4H","3S"]}}`, `cards.player: 1 cards: a hand has 2 or 3`},
		{"a third card on a Natural", `{"rules":"rws","cards":{"player":["9S","KD","2C"],"banker":["4H","3S"]}}`, `cards: a Natural (Player 9, Banker 7 on two cards): neither hand draws`},
		{"the Player standing on 6 given a card", `{"rules":"rws","cards":{"player":["KS","6D","2C"],"banker":["4H","3S"]}}`, `cards.player: a third card, but the Player stands on 6`},
		{"the Banker drawing without one", `{"rules":"rws","cards":{"player":["KS","3D","4C"],"banker":["4H","KH"]}}`, `cards.banker: no third card, but the Banker draws on 4 when the Player's third card is worth 4`},
		{"negative stake", `{"rules":"rws",` + cards + `,"wagers":[{"box":"1","bet":"banker","stake":-100}]}`, `wagers[1].stake: -100: want a positive amount`},
		{"fractional stake", `{"rules":"rws",` + cards + `,"wagers":[{"box":"1","bet":"banker","stake":10.5}]}`, `wagers[1].stake: 10.5: want a whole number`},
		{"unknown key", `{"rules":"rws",` + cards + `,"wagers":[],"limit":{}}`, `limit: unknown key (the input has rules, cards`},
		{"unknown key in a wager", `{"rules":"rws",` + cards + `,"wagers":[{"box":"1","bet":"banker","stake":100,"odds":2}]}`, `wagers[1].odds: unknown key`},
		{"unknown key in the limits", `{"rules":"rws",` + cards + `,"limits":{"minimum":{}}}`, `limits.minimum: unknown key`},
		{"unknown bet in the limits", `{"rules":"rws",` + cards + `,"limits":{"min":{"bnker":100}}}`, `limits.min.bnker: unknown bet`},
		{"a limit that cannot be met", `{"rules":"rws",` + cards + `,"limits":{"min":{"player":500},"max_differential":400}}`, `limits.max_differential: 400 is below the player minimum of 500`},
		{"excess twice", `{"rules":"rws",` + cards + `,"limits":{"excess":"reject"},"excess":"pro_rata"}`, `excess: "pro_rata", but limits.excess is "reject"`},
		{"unknown seat", `{"rules":"rws",` + cards + `,"wagers":[{"box":"1","seat":"sitting","bet":"banker","stake":100}]}`, `wagers[1].seat: unknown seat "sitting"`},
		{"unknown rules", `{"rules":"punto",` + cards + `}`, `rules: unknown rule set "punto"`},
		{"no rules", `{` + cards + `}`, `rules: missing`},
		{"no cards", `{"rules":"rws"}`, `cards: missing`},
		{"decks", `{"rules":"rws",` + cards + `,"decks":2}`, `decks: rule set rws: 2 decks not permitted`},
		{"more than a card set holds", `{"rules":"rws","cards":{"player":["KS","KS","KS"],"banker":["KS","KS","KS"]},"decks":4}`, `a 4-deck set holds 4`},
		{"not JSON", `{"rules":`, `the input: want a JSON object`},
		{"two documents", `{"rules":"rws",` + cards + `} {}`, `more after the object`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := runSettleWith(t, c.input)
			if err == nil {
				t.Fatalf("no error, printed %s", out)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "settle: ") {
				t.Fatalf("error\n%v\nwant it to contain\n%s", err, c.want)
			}
			if out != "" {
				t.Errorf("printed %q with the error", out)
			}
		})
	}
}

// TestSettleExitStatus: bad input ends tablectl settle with exit status 2, the error on
// standard error.
func TestSettleExitStatus(t *testing.T) {
	cmd := exec.Command(os.Args[0], "settle")
	cmd.Env = append(os.Environ(), "TABLECTL_TEST_MAIN=1")
	cmd.Stdin = strings.NewReader(`{"rules":"rws","cards":{"player":["KS","3D","2C"],"banker":["4H","3S"]},"wagers":[{"box":"1","bet":"banker","stake":-1}]}`)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit: %v, want status 2", err)
	}
	if !strings.Contains(stderr.String(), "wagers[1].stake: -1") {
		t.Errorf("stderr: %s", stderr.String())
	}
}
