package round

import (
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

// houseVariant is a rule set a test adds in a registry of its own: RWS Baccarat's bets
// with a Banker win paid 19:20 on 6 too, and its own rule for "No more Bets".
func houseVariant(t *testing.T) *baccarat.RuleSet {
	t.Helper()
	rws, ok := baccarat.Standard.Get("rws")
	if !ok {
		t.Fatal("no rws rule book")
	}
	v := rws.Clone()
	v.Name, v.Display, v.Family = "rws-commission", "RWS Baccarat, commission", baccarat.FamilyBaccarat
	v.Pays.Banker, v.Pays.BankerOnSix = baccarat.O(19, 20), baccarat.Odds{}
	v.Citations[baccarat.RuleNoMoreBets] = "House Rules 2.3"
	reg, err := baccarat.Standard.With(v)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := reg.Lookup("rws-commission", baccarat.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestSettlementOfARuleSetAddedInATest: a round settled under a rule set a test adds is
// settled by its book. A Banker win on 6 pays 95 on 100 (RWS Baccarat pays 50), a Banker
// 30 is refused as its commission cannot pay it exactly (RWS Baccarat takes it), and a
// second "No more Bets" is refused citing the book's own rule.
func TestSettlementOfARuleSetAddedInATest(t *testing.T) {
	t.Parallel()
	cards, err := baccarat.ParseCards("3H 6D AC KD KS") // P 4 on three cards, B 6 on two: Banker wins on 6
	if err != nil {
		t.Fatal(err)
	}
	ws := []baccarat.Wager{{Box: "1", Bet: baccarat.BetBanker, Stake: 100}, {Box: "2", Bet: baccarat.BetBanker, Stake: 30},
		{Box: "3", Bet: baccarat.BetPlayer, Stake: 100}}
	for _, tc := range []struct {
		rs        *baccarat.RuleSet
		won       []baccarat.Money
		returned  []baccarat.Money
		refused30 bool
	}{
		{houseVariant(t), []baccarat.Money{95, 0, 0}, []baccarat.Money{195, 30, 0}, true},
		{baccarat.MustLookup("rws", baccarat.Options{}), []baccarat.Money{50, 15, 0}, []baccarat.Money{150, 45, 0}, false},
	} {
		s, err := SettleRound(DefaultConfig(tc.rs), ws, cards, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.rs.Name, err)
		}
		for i, st := range s.Settlements {
			if st.Won != tc.won[i] || st.Returned != tc.returned[i] {
				t.Errorf("%s, box %s: won %d, returned %d (%s); want %d, %d", tc.rs.Name, st.Wager.Box, st.Won, st.Returned,
					st.Rule, tc.won[i], tc.returned[i])
			}
		}
		if got := strings.HasPrefix(s.Settlements[1].Rule, "refused"); got != tc.refused30 {
			t.Errorf("%s: Banker 30 %s", tc.rs.Name, s.Settlements[1].Rule)
		}
	}

	cfg := DefaultConfig(houseVariant(t))
	cfg.Burn = BurnNone
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Step(Event{Kind: NewShoe, Set: "S1", Decks: 8})
	c.Step(Event{Kind: BetsClosed, Wagers: ws[:1]})
	var reason string
	for _, e := range c.Step(Event{Kind: BetsClosed, Wagers: ws[:1]}) {
		if e.Kind == EventRefused {
			reason = e.Reason()
		}
	}
	if !strings.Contains(reason, "(House Rules 2.3)") {
		t.Errorf("a second No more Bets: %q, want it refused citing House Rules 2.3", reason)
	}
}
