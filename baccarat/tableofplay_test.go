package baccarat

import (
	"strings"
	"testing"
)

// bankerGrid is the Baccarat Table of Play for the Banker, written out by hand from
// RWS Baccarat 3.12 (and 3.11 for the last column) — not derived from the code. Rows are
// the Banker's two-card total; columns are the value of the Player's third card 0-9, then
// "-" when the Player stood. D: the Banker draws; S: the Banker stands. The game project
// sheet's table ("3: Any (except an 8)", "4: Between 2 and 7", "5: Between 4 and 7",
// "6: Between 6 and 7") and NC Insurance 3.15 give the same grid.
const bankerGrid = `
    0123456789-
0   DDDDDDDDDDD
1   DDDDDDDDDDD
2   DDDDDDDDDDD
3   DDDDDDDDSDD
4   SSDDDDDDSSD
5   SSSSDDDDSSD
6   SSSSSSDDSSS
7   SSSSSSSSSSS
`

func parseBankerGrid(t *testing.T) map[[2]int]bool {
	t.Helper()
	draws := map[[2]int]bool{}
	lines := strings.Split(strings.TrimSpace(bankerGrid), "\n")[1:]
	for _, l := range lines {
		f := strings.Fields(l)
		total := int(f[0][0] - '0')
		for i, ch := range f[1] {
			third := i
			if i == 10 {
				third = NoThirdCard
			}
			draws[[2]int{total, third}] = ch == 'D'
		}
	}
	if len(draws) != 8*11 {
		t.Fatalf("banker grid has %d entries, want 88", len(draws))
	}
	return draws
}

// cardsFor returns two cards totalling points (0-9), using ranks so that pairs vary.
func cardsFor(points int, suit Suit) (Card, Card) {
	if points == 0 {
		return Card{King, suit}, Card{Ten, suit}
	}
	return Card{Rank(points), suit}, Card{King, suit}
}

// thirdCard returns a card worth v points.
func thirdCard(v int) Card {
	if v == 0 {
		return Card{Queen, Clubs}
	}
	return Card{Rank(v), Clubs}
}

// TestTableOfPlayExhaustive deals every (Player two-card total, Banker two-card total,
// Player third card or none) and checks the slots the Coup asks for against the Table of
// Play written out above (RWS Baccarat 3.10-3.12; NC Tournament 3.5-3.7; NC Insurance
// 3.13, 3.15; game project sheet "Third Card Rule").
func TestTableOfPlayExhaustive(t *testing.T) {
	grid := parseBankerGrid(t)
	for p := 0; p <= 9; p++ {
		for b := 0; b <= 9; b++ {
			p1, p2 := cardsFor(p, Hearts)
			b1, b2 := cardsFor(b, Spades)
			var c Coup
			for i, card := range []Card{p1, b1, p2, b2} {
				want := []Slot{P1, B1, P2, B2}[i]
				if got := c.Place(card); got != want {
					t.Fatalf("P%d B%d: card %d went to %s, want %s", p, b, i+1, got, want)
				}
			}
			natural := p >= 8 || b >= 8
			playerDraws := !natural && p <= 5 // Player draws on 0-5, stands on 6-7 (3.12)
			switch {
			case natural:
				if got := c.Next(); got != NoSlot {
					t.Errorf("P%d B%d natural: next is %s, want none", p, b, got)
				}
			case !playerDraws:
				want := NoSlot
				if grid[[2]int{b, NoThirdCard}] {
					want = B3
				}
				if got := c.Next(); got != want {
					t.Errorf("P%d B%d, Player stands: next is %s, want %s", p, b, got, want)
				}
			default:
				for v := 0; v <= 9; v++ {
					cc := c
					if got := cc.Next(); got != P3 {
						t.Fatalf("P%d B%d: next is %s, want P3", p, b, got)
					}
					cc.Place(thirdCard(v))
					want := NoSlot
					if grid[[2]int{b, v}] {
						want = B3
					}
					if got := cc.Next(); got != want {
						t.Errorf("P%d B%d, Player's third card %d: next is %s, want %s", p, b, v, got, want)
					}
					if want == B3 {
						cc.Place(thirdCard(4))
						if !cc.Complete() || cc.Len() != 6 {
							t.Errorf("P%d B%d third %d: not complete after six cards", p, b, v)
						}
					}
				}
			}
		}
	}
}

func TestCoupNeverTakesASeventhCard(t *testing.T) {
	c, used := CoupOf(MustParseCard("5H"), MustParseCard("5D"), MustParseCard("QH"), MustParseCard("KC"),
		MustParseCard("4S"), MustParseCard("4D"), MustParseCard("7C"))
	if used != 6 || c.Len() != 6 {
		t.Fatalf("used %d cards, coup holds %d; want 6 and 6", used, c.Len())
	}
	before := c
	if s := c.Place(MustParseCard("7C")); s != NoSlot || c != before {
		t.Fatalf("a card after the round went to %s and changed the coup", s)
	}
}

func TestPointsAndPairs(t *testing.T) {
	for _, tc := range []struct {
		cards string
		pts   int
		pair  bool
	}{
		{"AS KH", 1, false},
		{"TH TD", 0, true},  // 10-10 is a pair (RWS Baccarat 1.15)
		{"KH KD", 0, true},  // K-K is a pair
		{"TH KD", 0, false}, // 10-K is not
		{"9H 9D", 8, true},
		{"7S 8S 9S", 4, false},
		{"5C 5D 5H", 5, true},
	} {
		cards, err := ParseCards(tc.cards)
		if err != nil {
			t.Fatal(err)
		}
		// The cards as the Player Hand's, beside a Banker Hand of 2C 2D (4: no Natural).
		order := []Card{cards[0], MustParseCard("2C"), cards[1], MustParseCard("2D")}
		c, _ := CoupOf(append(order, cards[2:]...)...)
		h := c.Player
		if h.Len() != len(cards) {
			t.Fatalf("%s: dealt %d cards to the Player", tc.cards, h.Len())
		}
		if h.Points() != tc.pts || h.Pair() != tc.pair {
			t.Errorf("%s: points %d pair %v, want %d %v", tc.cards, h.Points(), h.Pair(), tc.pts, tc.pair)
		}
	}
}
