package simulator

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tablectl/tablectl/api"
)

// Dealers is how the simulated dealers take turns at the table (docs/simulator.md,
// "Dealers"): the first takes the table before the first round; every Rotate rounds the
// next one relieves the dealer on, after a break of Break with no dealer on (0: at once).
// Names are the dealers' ids, as they would log in. Rotate 0 leaves the first on.
type Dealers struct {
	Names  []string
	Rotate int
	Break  time.Duration
}

// Check refuses a rotation without dealers, and a negative count or break.
func (d Dealers) Check() error {
	switch {
	case d.Rotate < 0:
		return fmt.Errorf("dealers: rotate every %d rounds: want 0 (never) or more", d.Rotate)
	case d.Break < 0:
		return fmt.Errorf("dealers: a break of %s: want 0 or more", d.Break)
	case len(d.Names) == 0 && (d.Rotate > 0 || d.Break > 0):
		return fmt.Errorf("dealers: a rotation with no dealers named")
	}
	for i, n := range d.Names {
		if n == "" || len(n) > api.MaxNameLen {
			return fmt.Errorf("dealers: dealer %d: %q: want a name of 1 to %d bytes", i+1, n, api.MaxNameLen)
		}
	}
	return nil
}

// dealers has the dealer due take the table before a round: the first before the
// first round, the next every Dealers.Rotate rounds, each in their own name, as a dealer
// who logs in on the table's page does.
func (s *Simulator) dealers(ctx context.Context) error {
	d := s.cfg.Dealers
	if len(d.Names) == 0 {
		return nil
	}
	due := 0
	if d.Rotate > 0 {
		due = s.rounds / d.Rotate
	}
	if s.dealerOn && due == s.dealerTurn {
		return nil
	}
	if s.dealerOn && d.Break > 0 {
		if err := s.dealerCommand(ctx, api.CmdDealerOff, d.Names[s.dealerTurn%len(d.Names)]); err != nil {
			return err
		}
		if !sleep(ctx, d.Break) {
			return ctx.Err()
		}
	}
	s.dealerTurn, s.dealerOn = due, true
	return s.dealerCommand(ctx, api.CmdDealerOn, d.Names[due%len(d.Names)])
}

// dealerCommand has the table take cmd (dealer_on or dealer_off) from dealer, once it has
// taken every card dealt before.
func (s *Simulator) dealerCommand(ctx context.Context, cmd, dealer string) error {
	payload, err := json.Marshal(api.Command{Cmd: cmd, Actor: dealer})
	if err != nil {
		return err
	}
	s.log.Info("the simulated dealer", "command", cmd, "dealer", dealer, "rounds", s.rounds)
	return s.act(ctx, Step{Op: cmd, Role: "dealer", Command: payload})
}

// HeldTable is a Table that tells the irregularity it is held for, so that the simulated
// Pit Supervisor can decide it (Config.MisreadEvery).
type HeldTable interface {
	Table
	// HeldFor returns, once the table has taken every input it was sent, the number of
	// the irregularity it is held for (0: none).
	HeldFor(ctx context.Context) (uint32, error)
}

// Supervisor is the name the simulated Pit Supervisor decides in.
const Supervisor = "SIM-SUPERVISOR"

// failRead passes the next card unread (Config.MisreadEvery). The table holds for it
// (RWS Baccarat 5.5.3); with a HeldTable, the simulated supervisor lets play go on
// MisreadHold later: the card is set aside and the round goes on with the next.
func (s *Simulator) failRead(ctx context.Context) error {
	s.read = 0
	if err := s.misread(ctx); err != nil {
		return err
	}
	ht, ok := s.cfg.Table.(HeldTable)
	if !ok {
		return nil
	}
	if err := s.shoeTaken(ctx); err != nil {
		return err
	}
	var held uint32
	if err := waitUntil(ctx, "the table holds for the unread card", func() bool {
		var err error
		held, err = ht.HeldFor(ctx)
		return err != nil || held != 0
	}); err != nil {
		return err
	}
	return s.proceed(ctx, held)
}
