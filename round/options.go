package round

import (
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// boxChoice records one box's choice for the round, checked against the rule that gives
// it: the options of RWS Baccarat 5.12 once they were offered, NC Insurance 5.13's
// returned Original Bet (a Pit Manager or above), NC Tournament 3.9's withdrawal on a Tie.
// A later choice of the same box replaces an earlier one of the same kind.
func (c *Controller) boxChoice(ev *Event) {
	inRound := !c.st.Voided && (c.st.Phase == Dealing || c.st.Phase == Complete)
	switch {
	case ev.Box == "":
		c.refuse(ev, "no box named")
		return
	case ev.Role < irregularities.Dealer || ev.Role > irregularities.ShiftManager:
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
		if !c.st.OptionsOpen {
			c.refuse(ev, "the players were not given the options of %s this round", c.optionsRule())
			return
		}
	case irregularities.OptInsuranceIntended:
		switch {
		case !c.cfg.Rules.Insurance:
			c.refuse(ev, "rule set %s offers no insurance", c.cfg.Rules.Name)
			return
		case c.cfg.NoInsurance:
			c.refuse(ev, "this table offers no insurance (NC Insurance 4.2.2): 5.13 does not apply")
			return
		case ev.Role < irregularities.PitManager:
			c.refuse(ev, "a %s may not return an Original Bet: it takes a pit_manager or above (NC Insurance 5.13)", ev.Role)
			return
		case !ev.Bet.Insurance():
			c.refuse(ev, "name the insurance intended: player_insurance or banker_insurance")
			return
		case !c.wasNeglected(ev.Bet):
			c.refuse(ev, "no %s offer was neglected this round (NC Insurance 5.13)", ev.Bet)
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
	c.emit(ev, Effect{Kind: OptionRecorded, Wager: baccarat.Wager{Box: ev.Box, Bet: opt.Bet}, Option: opt.Option,
		Role: ev.Role, Actor: ev.Actor})
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
			for _, off := range c.st.Neglected {
				if off.Info().Bet == opt.Bet && baccarat.ResolveInsurance(off, o).Result == baccarat.Win {
					s.Resolution, s.Won, s.Returned, s.Option = baccarat.Pushed, 0, placed(s.Wager), opt.Option
					return
				}
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
