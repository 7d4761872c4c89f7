package simulator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tablectl/tablectl/baccarat"
)

// Position is where a simulated shoe stood when its table stopped, as the table's journal
// recorded it. A simulator resumed at it (Resume) is that same shoe, still powered, after
// the table restarted: it deals the rest of the set in its recorded order, its card
// numbers and its clock go on, and the sets it shuffles after are those it would have
// shuffled had the table not stopped.
type Position struct {
	// Set is the number of the set the shuffler reported last (the set in the shoe, or the
	// one that ended); 0: none yet.
	Set uint32
	// Cards are the set in the shoe, in its recorded order, and Next the index of the next
	// card to draw; nil: no set is in the shoe (the next one is shuffled).
	Cards []baccarat.Card
	Next  int
	// CutOut: the cut card has come out.
	CutOut bool
	// Burn is how many cards are still to burn: -1 for the whole burn (its first card not
	// yet drawn), 0 when the burn is done.
	Burn int
	// Coup are the cards of the round being dealt, in the order drawn; none between rounds.
	Coup []baccarat.Card
	// Done: the shoe deals no more rounds; the dealer takes the rest out (the lid).
	Done bool
	// Last: the round going on is the shoe's last, the one more after the cut card's
	// round, as the table counts its rounds: the shoe is done when it ends.
	Last bool
	// CardNo is the number of the last card the table recorded from the shoe: the shoe
	// numbers its next card after it. ShoeTime is the time the shoe stamped on that card
	// (when ShoeTimed), read by the table at At: the shoe's clock goes on from it.
	CardNo    uint64
	ShoeTime  uint32
	ShoeTimed bool
	At        time.Time
}

// Resume sets the simulator to go on from p: Play then deals the rest of p's set before
// it shuffles the next. Call it before Play, with nothing dealt yet.
func (s *Simulator) Resume(p Position) error {
	if s.set != 0 || s.rounds != 0 || s.resumed != nil {
		return errors.New("resume: the simulator has dealt already")
	}
	if p.Cards != nil && (p.Next < 0 || p.Next > len(p.Cards)) {
		return fmt.Errorf("resume: card %d of a set of %d", p.Next+1, len(p.Cards))
	}
	// The shuffles of the sets before, and of p's own, as this seed made them.
	for range p.Set {
		Shuffle(NewDecks(s.cfg.Decks), s.rng)
	}
	s.set = p.Set
	if p.Cards != nil {
		s.cards, s.next, s.cutOut, s.cutAt = slices.Clone(p.Cards), p.Next, p.CutOut, -1
		if s.cfg.Cut > 0 && s.cfg.Cut < len(p.Cards) {
			s.cutAt = len(p.Cards) - s.cfg.Cut
		}
	}
	if p.Cards != nil || p.Done {
		s.resumed = &p
	}
	l := s.shoeEnc
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.framed != nil {
		l.framed.CardNo = uint16(p.CardNo)
		if p.ShoeTimed && !p.At.IsZero() {
			s.powerUp = p.At.Add(-time.Duration(p.ShoeTime) * time.Millisecond)
		}
	}
	return nil
}

// dealOn deals the rest of the shoe from p: the rest of the burn and of the round, then
// rounds as deal does; a shoe done has the rest taken out.
func (s *Simulator) dealOn(ctx context.Context, p Position, maxRounds int) error {
	if p.Done {
		if err := optional(s.shoeEnc.Lid(true)); err != nil {
			return err
		}
		return optional(s.shoeEnc.Lid(false))
	}
	if err := s.burnRest(ctx, p.Burn); err != nil {
		return err
	}
	s.partial = p.Coup
	return s.dealRounds(ctx, maxRounds, p.Last)
}

// burnRest draws the n cards still to burn (n < 0: the whole burn).
func (s *Simulator) burnRest(ctx context.Context, n int) error {
	if n < 0 {
		return s.burn(ctx)
	}
	s.burning = s.cfg.Protocol.BurnMode()
	defer func() { s.burning = false }()
	for range n {
		if _, err := s.draw(ctx); err != nil {
			return ignoreEmpty(err)
		}
	}
	return nil
}
