package messages

import (
	"testing"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
)

// TestCardsRemainingLeavesForeignOut: a card not of the set (RWS Baccarat 5.5.1) is
// counted in cards_drawn, read from the shoe, but takes none of the set's cards: of a
// 4-deck set, 10 cards read with one foreign leave 199 of its 208 (5.5.2).
func TestCardsRemainingLeavesForeignOut(t *testing.T) {
	b, err := NewBuilder("T1", baccarat.MustLookup("rws", baccarat.Options{}), roadmap.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	s := b.State(round.State{Phase: round.Dealing, Shoe: 1, Decks: 4, CardsDrawn: 10, Foreign: 1}, api.Envelope{})
	if s.CardsDrawn != 10 || s.CardsRemaining != 199 {
		t.Errorf("cards_drawn %d, cards_remaining %d: want 10 and 199", s.CardsDrawn, s.CardsRemaining)
	}
}
