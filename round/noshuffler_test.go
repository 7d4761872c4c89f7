package round

import (
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

// TestShoeOnFirstCardNeedsDecks: a table whose shoes start at their first card has no
// shuffler to say how many decks a set holds, so the table must.
func TestShoeOnFirstCardNeedsDecks(t *testing.T) {
	cfg := DefaultConfig(baccarat.MustLookup("rws", baccarat.Options{}))
	cfg.ShoeOnFirstCard = true
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "deck count") {
		t.Fatalf("New with no deck count: %v, want an error about the deck count", err)
	}
	cfg.Decks = 8
	if _, err := New(cfg); err != nil {
		t.Fatal(err)
	}
	var b BurnRule
	if err := b.UnmarshalText([]byte("shoe")); err != nil || b != BurnShoe || b.String() != "shoe" {
		t.Fatalf("burn rule shoe: %v %v", b, err)
	}
}
