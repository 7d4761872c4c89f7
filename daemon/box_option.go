package daemon

import (
	"fmt"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// boxOption reads a box_option command into ev: one box's choice for the round (RWS
// Baccarat 5.12, NC Insurance 5.13, NC Tournament 3.9). The controller checks it against
// the rule that gives it.
func boxOption(c Command, ev *round.Event) error {
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
