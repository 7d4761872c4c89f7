package baccarat

import (
	"fmt"
	"math/big"
)

// Wager is one bet placed in one betting box.
type Wager struct {
	Box string `json:"box"` // the betting box (or player) it belongs to
	// Seat says whether it is the box's seated player's or a standing player's (RWS
	// Baccarat 1.20, 1.21). Left out, it is the seated player's.
	Seat  Seat  `json:"seat,omitempty"`
	Bet   Bet   `json:"bet"`   // what it is on
	Stake Money `json:"stake"` // how much, in the table's smallest unit
}

// WagerError says why a wager is refused, naming the box, the bet and the rule.
type WagerError struct {
	Wager  Wager
	Reason string
}

// Error names the box, the bet, the stake and the reason.
func (e *WagerError) Error() string {
	return fmt.Sprintf("box %s, %s %d: %s", e.Wager.Box, e.Wager.Bet, e.Wager.Stake, e.Reason)
}

// CheckWagers validates the wagers on the layout when bets close and returns one error
// (or nil) per wager, in order. A refused wager takes no part in the round. CloseBets
// applies it first, then the table's limits.
//
//   - the bet must be offered by the rule set, and the stake positive (at most MaxStake);
//   - Insurance is placed only on an offer, never with the initial bets (NC Insurance 3.12);
//   - where OneMainBet holds, a seated player with both Player and Banker has both
//     refused (NC Tournament 3.3; game project sheet); a standing player's bets are
//     another player's;
//   - where SideBetNeedsMain holds, a side bet in a box without an accepted Player or
//     Banker bet is refused (NC Tournament 3.4).
func (rs *RuleSet) CheckWagers(ws []Wager) []error {
	errs := make([]error, len(ws))
	refuse := func(i int, format string, a ...any) {
		if errs[i] == nil {
			errs[i] = &WagerError{Wager: ws[i], Reason: fmt.Sprintf(format, a...)}
		}
	}
	for i, w := range ws {
		switch {
		case w.Bet.Insurance() && rs.Insurance:
			refuse(i, "insurance is placed only when it is offered, after the cards (%s 3.12)", rs.Document)
		case !rs.Offers(w.Bet):
			refuse(i, "not offered by rule set %s", rs.Name)
		case w.Stake <= 0:
			refuse(i, "stake must be positive")
		case w.Stake > MaxStake:
			refuse(i, "stake over the largest the table takes, %d", MaxStake)
		}
	}
	if rs.OneMainBet {
		// One player's bets: the seated player's of a box, or a standing player's (the
		// wagers do not say which standing player placed which, so the standing wagers
		// of a box are not held to one side).
		type player struct {
			box  string
			seat Seat
		}
		sides := map[player][2]bool{}
		for i, w := range ws {
			if errs[i] == nil && w.Bet.Main() && w.Seat == Seated {
				p := player{w.Box, w.Seat}
				s := sides[p]
				s[w.Bet-BetPlayer] = true
				sides[p] = s
			}
		}
		for i, w := range ws {
			if s := sides[player{w.Box, w.Seat}]; w.Bet.Main() && s[0] && s[1] {
				refuse(i, "a box may not bet both player and banker (%s)", rs.cite(RuleOneMainBet))
			}
		}
	}
	if rs.SideBetNeedsMain {
		hasMain := map[string]bool{}
		for i, w := range ws {
			if errs[i] == nil && w.Bet.Main() {
				hasMain[w.Box] = true
			}
		}
		for i, w := range ws {
			if !w.Bet.Main() && !hasMain[w.Box] {
				refuse(i, "a side bet needs a player or banker bet in the same box (%s)", rs.cite(RuleSideBetNeedsMain))
			}
		}
	}
	return errs
}

// CheckInsurance validates an Insurance wager w on offer o (NC Insurance 3.11, 3.12.2).
// original is the box's Original Bet on the insured hand; earlier are the box's Insurance
// wagers already taken on that hand this round, with their offers. The total payout of
// the box's Insurance on a hand may not exceed its Original Bet on that hand; the
// comparison is exact.
func (rs *RuleSet) CheckInsurance(o InsuranceOffer, w Wager, original Money, earlier []InsuranceTaken) error {
	row := o.Info()
	refuse := func(format string, a ...any) error {
		return &WagerError{Wager: w, Reason: fmt.Sprintf(format, a...)}
	}
	switch {
	case !rs.Insurance:
		return refuse("rule set %s offers no insurance", rs.Name)
	case w.Bet != row.Bet:
		return refuse("the open offer is %s (%s)", row.Bet, row.Stage)
	case w.Stake <= 0:
		return refuse("stake must be positive")
	case original <= 0:
		return refuse("no %s bet in this box to insure (NC Insurance 3.11)", insuredHand(row.Bet))
	}
	total := new(big.Rat)
	for _, e := range earlier {
		total.Add(total, payout(e.Wager.Stake, e.Offer.Info().Odds))
	}
	total.Add(total, payout(w.Stake, row.Odds))
	if total.Cmp(new(big.Rat).SetInt64(int64(original))) > 0 {
		return refuse("insurance would pay %s in all, more than the %s bet of %d (NC Insurance 3.12.2)",
			total.RatString(), insuredHand(row.Bet), original)
	}
	return nil
}

// InsuranceTaken is an accepted Insurance wager with the offer it was placed on.
type InsuranceTaken struct {
	Offer InsuranceOffer `json:"offer"`
	Wager Wager          `json:"wager"`
}

func payout(stake Money, o Odds) *big.Rat {
	return new(big.Rat).SetFrac64(int64(stake)*int64(o.Num), int64(o.Den))
}

func insuredHand(b Bet) Bet {
	if b == BetBankerInsurance {
		return BetBanker
	}
	return BetPlayer
}

// MaxInsurance is the largest whole stake on offer o that keeps the box's Insurance payout
// on that hand within its Original Bet (NC Insurance 3.12.2), given the Insurance already
// taken. It is what a display shows as the insurance limit.
func MaxInsurance(o InsuranceOffer, original Money, earlier []InsuranceTaken) Money {
	left := new(big.Rat).SetInt64(int64(original))
	for _, e := range earlier {
		left.Sub(left, payout(e.Wager.Stake, e.Offer.Info().Odds))
	}
	if left.Sign() <= 0 {
		return 0
	}
	odds := o.Info().Odds
	// stake * num / den <= left  <=>  stake <= left * den / num
	left.Mul(left, new(big.Rat).SetFrac64(int64(odds.Den), int64(odds.Num)))
	q := new(big.Int).Quo(left.Num(), left.Denom())
	return Money(q.Int64())
}
