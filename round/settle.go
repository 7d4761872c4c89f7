package round

import (
	"fmt"
	"strings"

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

// SettleRound plays one round through a fresh controller of cfg, as the live table does:
// a new shoe of cfg.Decks decks (the rule set's default when 0) with no burn, bets closed
// with ws (baccarat.RuleSet.CloseBets, under cfg.Limits), cards dealt in that order
// (DealOrder), the dealer's confirmation. It returns the round's outcome and its
// settlements, or an error when the controller refused an event or raised an
// irregularity.
func SettleRound(cfg Config, ws []baccarat.Wager, cards []baccarat.Card) (baccarat.Outcome, []Settlement, error) {
	cfg.Burn, cfg.BurnCount = BurnNone, 0
	cfg.SimultaneousWindow = 0 // the cards carry no time
	cfg.ShoeOnFirstCard = false
	if cfg.Decks == 0 && cfg.Rules != nil {
		cfg.Decks = cfg.Rules.DefaultDecks
	}
	ctl, err := New(cfg)
	if err != nil {
		return baccarat.Outcome{}, nil, err
	}
	evs := []Event{{Kind: NewShoe, Set: "settle", Decks: cfg.Decks}, {Kind: BetsClosed, Wagers: ws}}
	for i, c := range cards {
		evs = append(evs, Event{Kind: CardDrawn, Card: c, Seq: uint64(i + 1)})
	}
	evs = append(evs, Event{Kind: ConfirmResult})
	for _, ev := range evs {
		for _, e := range ctl.Step(ev) {
			switch e.Kind {
			case RoundSettled:
				return e.Outcome, e.Settlements, nil
			case EventRefused, IrregularityRaised, CardNotDue, RoundVoided:
				return baccarat.Outcome{}, nil, fmt.Errorf("%s: %s", ev.Kind, strings.TrimPrefix(e.String(), e.Kind.String()+" "))
			}
		}
	}
	return baccarat.Outcome{}, nil, fmt.Errorf("the round was not settled")
}
