package round

import (
	"fmt"
	"strings"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// boxChoice records one box's choice for the round, checked against the rule that gives
// it: the options of RWS Baccarat 5.12 while their window is open (window.go), NC
// Insurance 5.13's returned Original Bet (a Pit Manager or above, for an offer neglected
// by the dealer, insuranceIntended), NC Tournament 3.9's withdrawal on a Tie. A later
// choice of the same box replaces an earlier one of the same kind. The last box in play
// to choose its option closes the window.
func (c *Controller) boxChoice(ev *Event) {
	inRound := !c.st.Voided && (c.st.Phase == Dealing || c.st.Phase == Complete)
	switch {
	case ev.Box == "":
		c.refuse(ev, "no box named")
		return
	case ev.Role < BoxChoice.Info().By || ev.Role > irregularities.ShiftManager:
		c.refuse(ev, "a box's choice is recorded with the role of who records it")
		return
	case !inRound:
		c.refuse(ev, "no round is being dealt or awaiting confirmation (%s)", c.st.Phase)
		return
	case !c.hasWager(ev.Box):
		c.refuse(ev, "box %s has no bet this round", ev.Box)
		return
	}
	opt := BoxOption{Box: ev.Box, Option: ev.Option}
	switch ev.Option {
	case irregularities.OptContinue, irregularities.OptReconstructed, irregularities.OptBetReturned:
		switch {
		case c.st.Window.Open:
			opt.Window = c.st.Window.ID
		case c.st.Phase == Complete:
			c.refuse(ev, "round %d's outcome is known: the options of %s are taken when the dealing error is found, before any further card of the round is shown",
				c.st.Round, c.optionsRule())
			return
		case c.st.Window.ID != 0:
			c.refuse(ev, "the options of %s given for irregularity #%d are closed", c.optionsRule(), c.st.Window.ID)
			return
		default:
			c.refuse(ev, "the players were not given the options of %s this round", c.optionsRule())
			return
		}
	case irregularities.OptInsuranceIntended:
		if why := c.insuranceIntended(ev); why != "" {
			c.refuse(ev, "%s", why)
			return
		}
		opt.Bet = ev.Bet
	case irregularities.OptWithdraw:
		switch {
		case !c.cfg.Rules.TieWithdrawal:
			c.refuse(ev, "rule set %s has no withdrawal on a Tie", c.cfg.Rules.Name)
			return
		case c.st.Phase != Complete || c.st.Outcome.Winner != baccarat.Tie:
			c.refuse(ev, "an Original Bet may be withdrawn only on a Tie (NC Tournament 3.9)")
			return
		}
	default:
		c.refuse(ev, "unknown option %d", ev.Option)
		return
	}
	for i, o := range c.st.Options {
		if o.Box == opt.Box && sameGroup(o.Option, opt.Option) && o.Bet == opt.Bet {
			c.st.Options = append(c.st.Options[:i], c.st.Options[i+1:]...)
			break
		}
	}
	c.st.Options = append(c.st.Options, opt)
	c.emitPart(Effect{Kind: OptionRecorded, Option: opt.Option, Role: ev.Role}, part{wager: baccarat.Wager{Box: ev.Box, Bet: opt.Bet}, actor: ev.Actor})
	if opt.Window != 0 && c.everyBoxChose() {
		c.closeWindow(ev, "every box has chosen")
	}
}

// insuranceIntended says why a box's Original Bet may not be returned under NC
// Insurance 5.13 for the Insurance ev.Bet it intended, or "" when it may. 5.13 returns the
// Original Bet to a player who intended an Insurance the dealer neglected to offer and
// that would have won; it is refused for an offer open now, or made and closed by the
// dealer (the box could bet on it, 5.3), to a box that took Insurance on the hand (its
// bet is insured, 3.11, 3.12.2), to a box with no Original Bet on the hand, and where the
// outcome shows the Insurance would have lost. Before the outcome is known it is
// recorded, and settled by it (applyOption).
func (c *Controller) insuranceIntended(ev *Event) string {
	hand := insured(ev.Bet)
	switch {
	case !c.cfg.Rules.Insurance:
		return fmt.Sprintf("rule set %s offers no insurance", c.cfg.Rules.Name)
	case c.cfg.NoInsurance:
		return "this table offers no insurance (NC Insurance 4.2.2): 5.13 does not apply"
	case ev.Role < irregularities.PitManager:
		return fmt.Sprintf("a %s may not return an Original Bet: it takes a pit_manager or above (NC Insurance 5.13)", ev.Role)
	case !ev.Bet.Insurance():
		return "name the insurance intended: player_insurance or banker_insurance"
	}
	for _, o := range c.st.Offers {
		if o.Info().Bet == ev.Bet {
			return fmt.Sprintf("the %s offer %s is open: box %s may take it now (NC Insurance 3.12); 5.13 is for an offer the dealer neglected",
				ev.Bet, stageText(o), ev.Box)
		}
	}
	if !c.wasNeglected(ev.Bet) {
		for _, o := range c.st.Offered {
			if o.Info().Bet == ev.Bet {
				return fmt.Sprintf("the %s offer %s was made and open until the dealer closed it: box %s could have bet on it (NC Insurance 5.3); 5.13 returns an Original Bet only for an offer the dealer neglected",
					ev.Bet, stageText(o), ev.Box)
			}
		}
		return fmt.Sprintf("no %s offer was neglected this round (NC Insurance 5.13)", ev.Bet)
	}
	if t, ok := c.insuranceOf(ev.Box, ev.Bet); ok {
		return fmt.Sprintf("box %s took %s %d on this round's offer %s: its %s bet is insured, and 5.13 does not return it as well (NC Insurance 3.11, 3.12.2, 5.13)",
			ev.Box, ev.Bet, t.Wager.Stake, stageText(t.Offer), hand)
	}
	var original baccarat.Money
	for i, w := range c.st.Wagers {
		if w.Box == ev.Box && w.Bet == hand {
			original += c.decision(i).Effective
		}
	}
	if original == 0 {
		return fmt.Sprintf("box %s has no %s bet to return (NC Insurance 3.11, 5.13)", ev.Box, hand)
	}
	if c.st.Phase == Complete && !c.wouldHaveWon(ev.Bet, c.st.Outcome) {
		return fmt.Sprintf("the %s would have lost: round %d was %s, and 5.13 returns the Original Bet only where the Insurance would have won",
			ev.Bet, c.st.Round, outcomeWords(c.st.Outcome))
	}
	return ""
}

// insuranceOf is box's first Insurance bet b of the round, if it took one.
func (c *Controller) insuranceOf(box string, b baccarat.Bet) (baccarat.InsuranceTaken, bool) {
	for _, t := range c.st.Insurance {
		if t.Wager.Box == box && t.Wager.Bet == b {
			return t, true
		}
	}
	return baccarat.InsuranceTaken{}, false
}

// wouldHaveWon says whether an Insurance b on an offer neglected this round would have
// won with outcome o.
func (c *Controller) wouldHaveWon(b baccarat.Bet, o baccarat.Outcome) bool {
	for _, off := range c.st.Neglected {
		if off.Info().Bet == b && baccarat.ResolveInsurance(off, o).Result == baccarat.Win {
			return true
		}
	}
	return false
}

// stageText is an offer's stage as the effects print it, e.g. "after-four-cards".
func stageText(o baccarat.InsuranceOffer) string {
	return strings.ReplaceAll(o.Info().Stage.String(), " ", "-")
}

// outcomeWords says who won outcome o: "won by the banker", "a tie".
func outcomeWords(o baccarat.Outcome) string {
	switch o.Winner {
	case baccarat.Tie:
		return "a tie"
	case baccarat.BankerWins:
		return "won by the banker"
	}
	return "won by the player"
}

func sameGroup(a, b irregularities.Option) bool {
	group := func(o irregularities.Option) int {
		switch o {
		case irregularities.OptContinue, irregularities.OptReconstructed, irregularities.OptBetReturned:
			return 1
		}
		return int(o)
	}
	return group(a) == group(b)
}

func (c *Controller) optionsRule() string {
	r := c.rule(irregularities.ExcessCard) // the 5.7 entry's document
	if len(r) > 4 {
		r = r[:len(r)-len("5.7")] + "5.12"
	}
	return r
}

func (c *Controller) hasWager(box string) bool {
	for i, w := range c.st.Wagers {
		if w.Box == box && c.decision(i).Verdict != baccarat.Refused {
			return true
		}
	}
	return false
}

func (c *Controller) wasNeglected(b baccarat.Bet) bool {
	for _, o := range c.st.Neglected {
		if o.Info().Bet == b {
			return true
		}
	}
	return false
}

// applyOption changes settlement s by its box's recorded choice: every bet returned
// (RWS Baccarat 5.12.3); the Original Bet on the insured hand returned when a neglected
// Insurance of the kind the box intended would have won (NC Insurance 5.13: none returned
// when it would not); a pushed Original Bet withdrawn on a Tie (NC Tournament 3.9).
func (c *Controller) applyOption(s *Settlement, o baccarat.Outcome) {
	for _, opt := range c.st.Options {
		if opt.Box != s.Wager.Box {
			continue
		}
		switch opt.Option {
		case irregularities.OptBetReturned:
			s.Resolution, s.Won, s.Returned, s.MayWithdraw, s.Option = baccarat.Pushed, 0, placed(s.Wager), false, opt.Option
			return
		case irregularities.OptInsuranceIntended:
			if s.Wager.Bet != insured(opt.Bet) || s.Resolution.Result != baccarat.Lose {
				continue
			}
			if _, took := c.insuranceOf(s.Wager.Box, opt.Bet); took {
				continue // insured by a bet taken after the record: paid as such, not returned too
			}
			if c.wouldHaveWon(opt.Bet, o) {
				s.Resolution, s.Won, s.Returned, s.Option = baccarat.Pushed, 0, placed(s.Wager), opt.Option
				return
			}
		case irregularities.OptWithdraw:
			if s.MayWithdraw {
				s.Option = opt.Option
			}
		}
	}
}

func insured(b baccarat.Bet) baccarat.Bet {
	if b == baccarat.BetBankerInsurance {
		return baccarat.BetBanker
	}
	return baccarat.BetPlayer
}
