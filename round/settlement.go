package round

import (
	"encoding/json"
	"fmt"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// Settlement is one wager's result at the end of a round: what the table decided of it
// when bets closed (baccarat.RuleSet.CloseBets), how it ended, and what goes back to the
// player. The live table's result message and `tablectl settle` print it alike.
type Settlement struct {
	Wager baccarat.Wager
	// Effective is the part of the stake that played: the stake, what the limits left of
	// it, or 0 for a refused wager.
	Effective  baccarat.Money
	Resolution baccarat.Resolution
	// Won is the winnings on the effective stake: 0 unless the bet won.
	Won baccarat.Money
	// Returned is everything handed back to the player: the effective stake on a win or
	// push, the winnings, and the part of the stake that did not play (cut back or
	// refused). On a void round, every stake placed (RWS Baccarat 5.15).
	Returned baccarat.Money
	// Rule is the decision's rule: its verdict (accepted, cut_back, refused,
	// under_minimum), then ": " and why, naming the document and rule.
	Rule string
	// MayWithdraw: the wager pushed on a Tie and may be withdrawn or left to ride
	// (NC Tournament 3.9).
	MayWithdraw bool
	// Option is the box's recorded choice that decided this settlement, if any: the bet
	// returned (RWS Baccarat 5.12.3), the Original Bet returned for a neglected Insurance
	// (NC Insurance 5.13), or withdrawn on a Tie (NC Tournament 3.9).
	Option irregularities.Option
}

// settlementJSON is a Settlement as the result message and `tablectl settle` write it.
type settlementJSON struct {
	Box         string                `json:"box"`
	Seat        baccarat.Seat         `json:"seat"`
	Bet         baccarat.Bet          `json:"bet"`
	Stake       baccarat.Money        `json:"stake"`
	Effective   baccarat.Money        `json:"effective_stake"`
	Result      baccarat.Result       `json:"result"`
	Won         baccarat.Money        `json:"won"`
	Returned    baccarat.Money        `json:"returned"`
	Rule        string                `json:"rule"`
	MayWithdraw bool                  `json:"may_withdraw,omitempty"`
	Option      irregularities.Option `json:"option,omitempty"`
}

// MarshalJSON writes the settlement flat: box, seat, bet, stake, effective_stake, result,
// won, returned, rule, and may_withdraw and option when set (docs/mqtt.md, result).
func (s Settlement) MarshalJSON() ([]byte, error) {
	return json.Marshal(settlementJSON{Box: s.Wager.Box, Seat: s.Wager.Seat, Bet: s.Wager.Bet, Stake: s.Wager.Stake,
		Effective: s.Effective, Result: s.Resolution.Result, Won: s.Won, Returned: s.Returned, Rule: s.Rule,
		MayWithdraw: s.MayWithdraw, Option: s.Option})
}

// UnmarshalJSON reads what MarshalJSON writes. The odds of a win are not written: the
// result message's bets carry them.
func (s *Settlement) UnmarshalJSON(b []byte) error {
	var v settlementJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("settlement: %w", err)
	}
	*s = Settlement{Wager: baccarat.Wager{Box: v.Box, Seat: v.Seat, Bet: v.Bet, Stake: v.Stake}, Effective: v.Effective,
		Resolution: baccarat.Resolution{Result: v.Result}, Won: v.Won, Returned: v.Returned, Rule: v.Rule,
		MayWithdraw: v.MayWithdraw, Option: v.Option}
	return nil
}

// decision is the table's decision on wager i of the round; a state written before the
// table had limits has none, and its wagers played as placed.
func (c *Controller) decision(i int) baccarat.Decision {
	if i < len(c.st.Decisions) {
		return c.st.Decisions[i]
	}
	return accepted(c.st.Wagers[i])
}

// accepted is the decision on a wager that plays as placed.
func accepted(w baccarat.Wager) baccarat.Decision {
	return baccarat.Decision{Verdict: baccarat.Accepted, Effective: w.Stake, Rule: baccarat.Accepted.String()}
}

// settlement pays wager w on its effective stake (RWS Baccarat 5.1.1: a pro-rated bet
// wins or loses on its pro-rated amount) by resolution res; the part of the stake that did
// not play goes back with it. A refused wager took no part in the round: it is returned.
func (c *Controller) settlement(w baccarat.Wager, d baccarat.Decision, res baccarat.Resolution) Settlement {
	if d.Verdict == baccarat.Refused {
		res = baccarat.Pushed
	}
	s := Settlement{Wager: w, Effective: d.Effective, Resolution: res, Rule: d.Rule}
	if res.Result == baccarat.Win {
		s.Won = res.Odds.Win(d.Effective, c.cfg.Rounding)
	}
	s.Returned = res.Returned(d.Effective, c.cfg.Rounding) + max(0, placed(w)-d.Effective)
	return s
}

// voided is wager w's settlement in a void round: every stake placed is returned (RWS
// Baccarat 5.15; NC Insurance 5.16).
func voided(w baccarat.Wager, d baccarat.Decision) Settlement {
	return Settlement{Wager: w, Effective: d.Effective, Resolution: baccarat.Pushed, Returned: placed(w), Rule: d.Rule}
}

// placed is what the player put down for w: its stake, or nothing for a stake that is
// not positive.
func placed(w baccarat.Wager) baccarat.Money { return max(0, w.Stake) }
