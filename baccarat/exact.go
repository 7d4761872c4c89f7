package baccarat

import "fmt"

// paidAt lists the odds other than whole numbers to one that bet b can be paid at in
// this rule set, each with what it is in words: Banker under commission ("a Banker win
// pays 0.95:1"), Non-Commission Banker winning on 6 ("a Banker win on 6 pays 1:2"), a
// Player paid other than whole. Insurance odds depend on the offer (see CheckExactOdds).
func (rs *RuleSet) paidAt(b Bet) []paid {
	var out []paid
	add := func(o Odds, what string) {
		if o.Den != 0 && o.Num%o.Den != 0 {
			out = append(out, paid{o, fmt.Sprintf("%s pays %s", what, o)})
		}
	}
	switch p := &rs.Pays; b {
	case BetPlayer:
		add(p.Player, "a Player win")
	case BetBanker:
		add(p.Banker, "a Banker win")
		if p.BankerOnSix.Den != 0 {
			add(p.BankerOnSix, "a Banker win on 6")
		}
	}
	return out
}

// paid is odds a bet can be paid at, with what they are in words.
type paid struct {
	odds Odds
	what string
}

// CheckExact refuses a wager whose winnings the table's smallest unit cannot pay exactly:
// the documents state the payouts exactly (RWS Baccarat 1.11, 4.1.1: 50% on a Banker win
// on 6; Royal Baccarat and the game project sheet: 0.95 to 1), so a stake is accepted only
// when every payout it can win is a whole number of units.
func (rs *RuleSet) CheckExact(w Wager) error {
	for _, p := range rs.paidAt(w.Bet) {
		if err := checkExact(w, p.odds, p.what); err != nil {
			return err
		}
	}
	return nil
}

// CheckExactOdds refuses a wager whose winnings at odds o are not a whole number of units
// (an Insurance stake on the 1.5:1 row, NC Insurance 4.1.2).
func CheckExactOdds(w Wager, o Odds) error {
	return checkExact(w, o, fmt.Sprintf("a win pays %s", o))
}

func checkExact(w Wager, o Odds, what string) error {
	n := int64(w.Stake) * int64(o.Num)
	if n%int64(o.Den) == 0 {
		return nil
	}
	step := int64(o.Den) / gcd(int64(o.Num), int64(o.Den))
	rem, den := n%int64(o.Den), int64(o.Den)
	g := gcd(rem, den)
	return &WagerError{Wager: w, Reason: fmt.Sprintf(
		"%s, so a stake of %d would win %d %d/%d units, which the table's smallest unit cannot pay exactly: stakes on this bet must be multiples of %d (or the table set to pay rounded)",
		what, w.Stake, n/den, rem/g, den/g, step)}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
