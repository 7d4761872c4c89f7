package table

import (
	"fmt"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/round"
)

// commandEvents turn each command of the table that is a round event (api.Commands,
// all but those that Call) into it: they fill in ev, which holds the role, actor and
// detail already, from c, whose fields api.ParseCommand has checked.
var commandEvents = map[string]func(c api.Command, ev *round.Event) error{
	api.CmdBetsClosed: func(c api.Command, ev *round.Event) error {
		ws, err := messages.WagersOf(c.Wagers)
		if err != nil {
			return fmt.Errorf("bets_closed: %w", err)
		}
		ev.Kind, ev.Wagers = round.BetsClosed, ws
		return nil
	},
	api.CmdInsuranceBet: func(c api.Command, ev *round.Event) error {
		if c.Wager == nil {
			return fmt.Errorf("insurance_bet needs a wager")
		}
		w, err := messages.WagerOf(*c.Wager)
		if err != nil {
			return fmt.Errorf("insurance_bet: %w", err)
		}
		ev.Kind, ev.Wagers = round.InsuranceBet, []baccarat.Wager{w}
		return nil
	},
	api.CmdInsuranceClosed: kind(round.InsuranceWindowClosed),
	api.CmdSqueeze:         kind(round.SqueezeRequested),
	api.CmdConfirm:         kind(round.ConfirmResult),
	api.CmdCutCard:         kind(round.CutCard),
	api.CmdNewShoe: func(c api.Command, ev *round.Event) error {
		if c.Decks < 0 {
			return fmt.Errorf("new_shoe: %d decks", c.Decks)
		}
		ev.Kind, ev.Set, ev.Decks = round.NewShoe, c.Set, c.Decks
		return nil
	},
	api.CmdEndShoe: kind(round.ShoeEnd),
	api.CmdReport: func(c api.Command, ev *round.Event) error {
		k, err := irregularities.ParseKind(c.Kind)
		if err != nil {
			return err
		}
		ev.Kind, ev.Irregularity, ev.Round = round.Report, k, c.Round
		if c.Card != "" {
			if ev.Card, err = baccarat.ParseCard(c.Card); err != nil {
				return fmt.Errorf("report card: %w", err)
			}
		}
		return nil
	},
	api.CmdDecide: func(c api.Command, ev *round.Event) error {
		ch, err := irregularities.ParseChoice(c.Choice)
		if err != nil {
			return err
		}
		if c.Irregularity == 0 {
			return fmt.Errorf("decide needs the irregularity's number")
		}
		ev.Kind, ev.ID, ev.Choice = round.Decide, c.Irregularity, ch
		return nil
	},
	api.CmdBoxOption:     boxOption,
	api.CmdOptionsClosed: kind(round.OptionsWindowClosed),
	api.CmdDealerOn:      dealer(round.DealerOn),
	api.CmdDealerOff:     dealer(round.DealerOff),
}

// dealer is the event of dealer_on or dealer_off: the dealer it names.
func dealer(k round.EventKind) func(api.Command, *round.Event) error {
	return func(c api.Command, ev *round.Event) error {
		ev.Kind, ev.Dealer = k, c.Dealer
		return nil
	}
}

// kind is the event of a command that takes no fields.
func kind(k round.EventKind) func(api.Command, *round.Event) error {
	return func(_ api.Command, ev *round.Event) error {
		ev.Kind = k
		return nil
	}
}

// boxOption reads a box_option command into ev: one box's choice for the round (RWS
// Baccarat 5.12, NC Insurance 5.13, NC Tournament 3.9). The controller checks it against
// the rule that gives it.
func boxOption(c api.Command, ev *round.Event) error {
	if c.Box == "" {
		return fmt.Errorf("box_option needs the box")
	}
	opt, err := irregularities.ParseOption(c.Option)
	if err != nil {
		return err
	}
	ev.Kind, ev.Box, ev.Option = round.BoxChoice, c.Box, opt
	if c.Bet != "" {
		b, err := baccarat.ParseBet(c.Bet)
		if err != nil {
			return fmt.Errorf("box_option bet: %w", err)
		}
		ev.Bet = b
	}
	return nil
}

// ParseCommand reads a command given by role (api.ParseCommand) and the round event it
// is: one with the role, actor and detail only for a command that is none (one that
// Calls, api.CommandSpec.Calls). Anything malformed, unknown or not allowed to the role
// is an error saying so; it changes nothing.
func ParseCommand(roleName string, payload []byte) (api.Command, round.Event, error) {
	c, role, err := api.ParseCommand(roleName, payload)
	if err != nil {
		return c, round.Event{}, err
	}
	ev := round.Event{Role: messages.RoleOf(role), Actor: c.Actor, Detail: c.Detail}
	toEvent := commandEvents[c.Cmd]
	if toEvent == nil {
		return c, ev, nil // a call (spec.Calls): no round event
	}
	if err := toEvent(c, &ev); err != nil {
		return c, ev, err
	}
	return c, ev, nil
}
