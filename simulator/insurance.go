package simulator

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/tablectl/tablectl/baccarat"
)

// Insurance is how the simulated dealer deals at a table that offers Insurance (NC
// Insurance 3.11, 3.12) and closes each offer once it has been open Pause (a table
// standing in for the dealer, with its insurance_pause). After a card that opens an offer
// the dealer leaves the players the pause to bet, and half as long again (or the pace,
// when longer), so the table has closed the offer before the next card. But one offer
// in OneIn, picked by a generator seeded from the simulator's seed (and apart from the
// shuffles, which stay as they would be without it), the dealer draws the next card when
// only half the pause has passed: over the open offer, the irregularity of NC Insurance
// 5.13. On a shoe that
// stamps its cards, the stamps say so, whenever the table reads them: the card drawn over
// an offer is stamped half the pause after the card that opened it, and any other at
// least the pause and a half after it.
type Insurance struct {
	// Pause is how long the table leaves each offer open; 0: the dealer deals as at any
	// table, at its pace.
	Pause time.Duration
	// OneIn: one offer in OneIn is drawn over (1: every one); 0: none.
	OneIn int
}

// insuranceSeed sets the generator of the dealer's Insurance slips apart from the
// shuffles'.
const insuranceSeed = 0x5_13

// newInsuranceRand is the generator of the dealer's choices at Insurance offers.
func newInsuranceRand(cfg Config) (*rand.Rand, error) {
	return NewRand(cfg.Seed^insuranceSeed, cfg.Random)
}

// offerOpened notes, after a card placed in coup, whether it opened an Insurance offer
// at the table: the dealer then waits for the offer (or draws over it) before the next
// card (afterOffer).
func (s *Simulator) offerOpened(coup baccarat.Coup) {
	if s.cfg.Insurance.Pause <= 0 || coup.Complete() {
		return
	}
	s.offer = len(baccarat.InsuranceOffers(nil, coup)) > 0
}

// afterOffer is the dealer's wait before the card after an Insurance offer.
func (s *Simulator) afterOffer(ctx context.Context) error {
	s.offer = false
	pause := s.cfg.Insurance.Pause
	if n := s.cfg.Insurance.OneIn; n > 0 && s.insRng.IntN(n) == 0 {
		s.log.Info("the simulated dealer draws the next card over the open Insurance offer (NC Insurance 5.13)",
			"after", pause/2, "offer open for", pause)
		if !sleep(ctx, pause/2) {
			return ctx.Err()
		}
		// The shoe stamps the card half the pause after the one that opened the offer:
		// the table judges by the stamps, so a busy machine that writes it late changes
		// nothing.
		s.overOffer, s.overAfter = true, pause/2
		return nil
	}
	// The pause runs from when the table read the card that opened the offer; a dealer
	// slower than that deals at the pace.
	if err := s.Shoe.Drain(ctx); err != nil {
		return err
	}
	if !sleep(ctx, max(pause+pause/2, s.cfg.Pace)) {
		return ctx.Err()
	}
	return nil
}
