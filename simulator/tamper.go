package simulator

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// Tamper is a set changed between the shuffler and the shoe, as by a hand that palms a
// card or slips one in: the shuffler reports the set it shuffled, and the shoe holds
// it with Remove taken out and Add put in. Each card goes in or out at a random place
// between the shoe's first TamperFrom cards (the burn) and the cut card, so it is
// among the cards dealt. The zero value tampers with no set.
type Tamper struct {
	// Set is the set tampered with, counting from the first the simulator loads; 0:
	// none.
	Set uint32
	// Remove are the cards taken out: one copy each.
	Remove []baccarat.Card
	// Add are the cards put in.
	Add []baccarat.Card
}

// TamperFrom is how many cards from the top of the shoe a tampered card stays clear
// of: the burn card and the cards it burns (at most ten).
const TamperFrom = 12

// on reports whether set is the one tampered with.
func (t Tamper) on(set uint32) bool {
	return t.Set != 0 && set == t.Set && len(t.Remove)+len(t.Add) > 0
}

// apply returns cards with t's cards taken out and put in at random places from
// TamperFrom to end (the cut card's place), drawn from rng. A card to take out of which
// no copy lies there is an error naming it.
func (t Tamper) apply(cards []baccarat.Card, end int, rng *rand.Rand) ([]baccarat.Card, error) {
	out := slices.Clone(cards)
	for _, r := range t.Remove {
		var at []int
		for i := TamperFrom; i < min(end, len(out)); i++ {
			if out[i] == r {
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			return nil, fmt.Errorf("tamper: no %s lies between card %d and the cut card of set %d to take out", r, TamperFrom+1, t.Set)
		}
		i := at[rng.IntN(len(at))]
		out = slices.Delete(out, i, i+1)
		end--
	}
	for _, a := range t.Add {
		hi := min(end, len(out))
		if hi <= TamperFrom {
			return nil, fmt.Errorf("tamper: set %d has no place between card %d and the cut card to put %s in", t.Set, TamperFrom+1, a)
		}
		i := TamperFrom + rng.IntN(hi-TamperFrom+1)
		out = slices.Insert(out, i, a)
		end++
	}
	return out, nil
}

// tamper changes the set just loaded by Config.Tamper, when it is the one: the shoe's
// cards change, and the cut card keeps its count of cards behind it.
func (s *Simulator) tamper() error {
	t := s.cfg.Tamper
	if !t.on(s.set) {
		return nil
	}
	end := len(s.cards)
	if s.cutAt >= 0 {
		end = s.cutAt
	}
	cards, err := t.apply(s.cards, end, s.rng)
	if err != nil {
		return err
	}
	s.cards, s.tampered = cards, true
	if s.cutAt >= 0 {
		s.cutAt = len(cards) - s.cfg.Cut
	}
	s.log.Info("the simulated set tampered with", "set", s.set, "removed", t.Remove, "added", t.Add)
	return nil
}

// proceedIfHeld has the simulated Pit Supervisor let play go on, MisreadHold later,
// when the table holds once it has taken the shoe's cards: a tampered set holds it for
// a card out of the shuffler's order or foreign to the set. Without a HeldTable the
// table stays held.
func (s *Simulator) proceedIfHeld(ctx context.Context) error {
	ht, ok := s.cfg.Table.(HeldTable)
	if !ok {
		return nil
	}
	if err := s.shoeTaken(ctx); err != nil {
		return err
	}
	held, err := ht.HeldFor(ctx)
	if err != nil || held == 0 {
		return err
	}
	return s.proceed(ctx, held)
}

// proceed has the simulated Pit Supervisor decide irregularity held: play goes on
// with the cards as they are, MisreadHold after the table held.
func (s *Simulator) proceed(ctx context.Context, held uint32) error {
	if !sleep(ctx, s.cfg.MisreadHold) {
		return ctx.Err()
	}
	payload, err := json.Marshal(api.Command{Cmd: api.CmdDecide, Irregularity: held, Choice: irregularities.Proceed.String(), Actor: Supervisor})
	if err != nil {
		return err
	}
	s.log.Info("the simulated supervisor", "command", api.CmdDecide, "irregularity", held, "choice", irregularities.Proceed.String())
	return s.act(ctx, Step{Op: "decide", Role: "supervisor", Command: payload})
}
