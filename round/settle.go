package round

import (
	"fmt"

	"github.com/tablectl/tablectl/baccarat"
)

// DealOrder is the order the cards of a round with hands player and banker were dealt in
// (P1 B1 P2 B2, then the Player's third card, then the Banker's), or an error when the
// Table of Play would not deal those hands (RWS Baccarat 3.10-3.12; NC Tournament 3.7;
// NC Insurance 3.15): a hand of other than 2 or 3 cards, a third card where the hand
// stands, none where it draws. The error names the hand ("player", "banker" or "" for
// both).
func DealOrder(player, banker []baccarat.Card) ([]baccarat.Card, string, error) {
	switch {
	case len(player)+len(banker) > 6:
		return nil, "", fmt.Errorf("%d cards: a round has 4 to 6, 2 or 3 a hand", len(player)+len(banker))
	case len(player) < 2 || len(player) > 3:
		return nil, "player", fmt.Errorf("%d cards: a hand has 2 or 3", len(player))
	case len(banker) < 2 || len(banker) > 3:
		return nil, "banker", fmt.Errorf("%d cards: a hand has 2 or 3", len(banker))
	}
	order := []baccarat.Card{player[0], banker[0], player[1], banker[1]}
	order = append(order, player[2:]...)
	order = append(order, banker[2:]...)
	c, used := baccarat.CoupOf(order...)
	if used == len(order) && c.Complete() && c.Player.Len() == len(player) && c.Banker.Len() == len(banker) {
		return order, "", nil
	}
	p2 := (player[0].Points() + player[1].Points()) % 10
	b2 := (banker[0].Points() + banker[1].Points()) % 10
	natural := p2 >= 8 || b2 >= 8
	playerDraws := !natural && baccarat.PlayerDraws(p2)
	switch {
	case natural && len(player)+len(banker) > 4:
		return nil, "", fmt.Errorf("a Natural (Player %d, Banker %d on two cards): neither hand draws (RWS Baccarat 3.12)", p2, b2)
	case playerDraws != (len(player) == 3):
		return nil, "player", fmt.Errorf("%s the Player %s on %d (Table of Play, RWS Baccarat 3.12)", given(len(player)), drawsOrStands(playerDraws), p2)
	}
	third := baccarat.NoThirdCard
	if len(player) == 3 {
		third = player[2].Points()
	}
	bankerDraws := baccarat.BankerDraws(b2, third)
	why := "the Player stood"
	if third != baccarat.NoThirdCard {
		why = fmt.Sprintf("the Player's third card is worth %d", third)
	}
	return nil, "banker", fmt.Errorf("%s the Banker %s on %d when %s (Table of Play, RWS Baccarat 3.11, 3.12)", given(len(banker)), drawsOrStands(bankerDraws), b2, why)
}

func given(n int) string {
	if n == 3 {
		return "a third card, but"
	}
	return "no third card, but"
}

func drawsOrStands(draws bool) string {
	if draws {
		return "draws"
	}
	return "stands"
}

// Taken is the Insurance taken on one offer of a round SettleRound settles, as the table
// recorded it: the offer's stage (NC Insurance 3.12; its bet and pay-table row are those
// the round's cards make) and the wagers placed on it, in the order taken (a wager with
// no bet takes the offer's).
type Taken struct {
	Stage  baccarat.Stage
	Wagers []baccarat.Wager
}

// Settled is a round SettleRound settled: its outcome, each wager's settlement (the
// wagers in the order given, then the Insurance bets in the order taken), and the
// Insurance offers its cards made.
type Settled struct {
	Outcome     baccarat.Outcome
	Settlements []Settlement
	Offers      []baccarat.InsuranceOffer
}

// SettleError is why SettleRound could not settle a round: the controller's reason, and
// where in the input it arose: the card (its place in the order dealt, from 1), or the
// Insurance entry and its wager (each from 1); none of them for the round as a whole.
type SettleError struct {
	Card, Offer, Wager int
	Reason             string
}

// Error names where, then why.
func (e *SettleError) Error() string {
	switch {
	case e.Card > 0:
		return fmt.Sprintf("card %d dealt: %s", e.Card, e.Reason)
	case e.Offer > 0 && e.Wager > 0:
		return fmt.Sprintf("insurance %d, bet %d: %s", e.Offer, e.Wager, e.Reason)
	case e.Offer > 0:
		return fmt.Sprintf("insurance %d: %s", e.Offer, e.Reason)
	}
	return e.Reason
}

// SettleRound plays one round through a fresh controller of cfg, as the live table does:
// a new shoe of cfg.Decks decks (the rule set's default when 0) with no burn, bets closed
// with ws (baccarat.RuleSet.CloseBets, under cfg.Limits), cards dealt in that order
// (DealOrder), and at each Insurance offer the cards make the bets ins takes on it (by
// its stage), then the offer closed, as the dealer closes it before the next card (NC
// Insurance 3.12, 5.3): an offer ins does not name is closed unbet. Then the dealer's
// confirmation. It returns the round settled, or a *SettleError when the controller
// refused an event or a bet, or raised an irregularity, or when an entry of ins names an
// offer the cards do not make.
func SettleRound(cfg Config, ws []baccarat.Wager, cards []baccarat.Card, ins []Taken) (Settled, error) {
	cfg.Burn, cfg.BurnCount = BurnNone, 0
	cfg.SimultaneousWindow = 0 // the cards carry no time
	cfg.ShoeOnFirstCard = false
	if cfg.Decks == 0 && cfg.Rules != nil {
		cfg.Decks = cfg.Rules.DefaultDecks
	}
	ctl, err := New(cfg)
	if err != nil {
		return Settled{}, err
	}
	var out Settled
	settled := false
	used := make([]bool, len(ins))
	step := func(ev Event, where SettleError) error {
		for _, e := range ctl.Step(ev) {
			switch e.Kind {
			case RoundSettled:
				out.Outcome, out.Settlements, settled = e.Outcome(), e.Settlements(), true
			case InsuranceOffered:
				out.Offers = append(out.Offers, e.Offer())
			case WagerRefused:
				if ev.Kind == InsuranceBet {
					where.Reason = "refused: " + e.Reason()
				}
			case IrregularityRaised:
				where.Reason = fmt.Sprintf("%s: %s", e.Irregularity, e.Reason())
				return &where // it names the card not due, or the round void, that came with it
			case EventRefused, CardNotDue, RoundVoided:
				if where.Reason == "" {
					where.Reason = e.Reason()
				}
			}
		}
		if where.Reason != "" {
			return &where
		}
		return nil
	}
	if err := step(Event{Kind: NewShoe, Set: "settle", Decks: cfg.Decks}, SettleError{}); err != nil {
		return Settled{}, err
	}
	if err := step(Event{Kind: BetsClosed, Wagers: ws}, SettleError{}); err != nil {
		return Settled{}, err
	}
	for i, c := range cards {
		if err := step(Event{Kind: CardDrawn, Card: c, Seq: uint64(i + 1)}, SettleError{Card: i + 1}); err != nil {
			return Settled{}, err
		}
		offers := ctl.State().Offers
		if len(offers) == 0 {
			continue
		}
		stage := offers[0].Info().Stage
		for k, t := range ins {
			if t.Stage != stage {
				continue
			}
			used[k] = true
			for j, w := range t.Wagers {
				if w.Bet == 0 {
					w.Bet = offers[0].Info().Bet // the offer's
				}
				if err := step(Event{Kind: InsuranceBet, Wagers: []baccarat.Wager{w}}, SettleError{Offer: k + 1, Wager: j + 1}); err != nil {
					return Settled{}, err
				}
			}
		}
		if err := step(Event{Kind: InsuranceWindowClosed}, SettleError{}); err != nil {
			return Settled{}, err
		}
	}
	for k, t := range ins {
		if !used[k] {
			return Settled{}, &SettleError{Offer: k + 1, Reason: fmt.Sprintf("the cards make no Insurance offer %s (NC Insurance 3.12, 4.1.2)", t.Stage)}
		}
	}
	if err := step(Event{Kind: ConfirmResult}, SettleError{}); err != nil {
		return Settled{}, err
	}
	if !settled {
		return Settled{}, &SettleError{Reason: "the round was not settled"}
	}
	return out, nil
}
