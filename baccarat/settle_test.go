package baccarat

import (
	"fmt"
	"testing"
)

// round deals cards (rank-then-suit notation) into a complete coup and returns its outcome.
func round(t *testing.T, cards string) Outcome {
	t.Helper()
	cs, err := ParseCards(cards)
	if err != nil {
		t.Fatal(err)
	}
	c, used := CoupOf(cs...)
	if used != len(cs) || !c.Complete() {
		t.Fatalf("%s: not one complete round (used %d of %d cards)", cards, used, len(cs))
	}
	return OutcomeOf(c)
}

type settleCase struct {
	cards string // the round, dealt in order P1 B1 P2 B2 [P3] [B3]
	bet   Bet
	want  string // Resolution.String()
}

func runSettle(t *testing.T, rules string, opt Options, cases []settleCase) {
	t.Helper()
	rs := MustLookup(rules, opt)
	for _, tc := range cases {
		if !rs.Offers(tc.bet) {
			t.Errorf("%s does not offer %s", rules, tc.bet)
			continue
		}
		if got := rs.Resolve(tc.bet, round(t, tc.cards)).String(); got != tc.want {
			t.Errorf("%s %s on %q: %s, want %s", rules, tc.bet, tc.cards, got, tc.want)
		}
	}
}

// Rounds used below, with their results:
const (
	playerNatural9 = "9H 5C KS KD"       // P 9, B 5: Player wins, natural
	bankerNatural8 = "4D 3H 3C 5S"       // P 7, B 8: Banker wins, natural
	tieNatural8    = "8S 4C KH 4D"       // P 8, B 8: Tie, Banker pair 4-4
	bankerSix2     = "3H 6D AC KD KS"    // P 4 (3 cards), B 6 on two cards: Banker wins on 6
	bankerSix3     = "KH AC 4D AS AD 4C" // P 5, B 6 on three cards (Banker pair A-A)
	tieSix         = "6H 2S KC 3D AH"    // P 6, B 6 (Banker draws an Ace): Tie on 6
	playerPair     = "2C 6S 2D KH 6D 3C" // P 0, B 9: Banker wins, Player pair 2-2
	tenKing        = "TH 5C KD KS 2H"    // P 2 (10-K, not a pair), B 5 stands on a third card of 2
)

func TestSettleClassic(t *testing.T) {
	// Game project sheet: Banker 1:1 less 5%, Player 1:1, Tie 8:1; bets returned on a Tie.
	runSettle(t, "classic", Options{}, []settleCase{
		{playerNatural9, BetPlayer, "win 1:1"},
		{playerNatural9, BetBanker, "lose"},
		{playerNatural9, BetTie, "lose"},
		{bankerNatural8, BetBanker, "win 0.95:1"},
		{bankerNatural8, BetPlayer, "lose"},
		{bankerSix2, BetBanker, "win 0.95:1"}, // commission: no special case on 6
		{tieNatural8, BetBanker, "push"},
		{tieNatural8, BetPlayer, "push"},
		{tieNatural8, BetTie, "win 8:1"},
	})
}

func TestSettleNonCommission(t *testing.T) {
	// RWS Baccarat 4.1.1, NC Tournament 4.1.1, NC Insurance 4.1.1: Banker 1:1, on 6 1:2.
	for _, rules := range []string{"rws", "nc-tournament", "nc-insurance"} {
		runSettle(t, rules, Options{}, []settleCase{
			{bankerNatural8, BetBanker, "win 1:1"},
			{bankerSix2, BetBanker, "win 1:2"},
			{bankerSix3, BetBanker, "win 1:2"},
			{bankerSix2, BetPlayer, "lose"},
			{playerNatural9, BetPlayer, "win 1:1"},
			{playerNatural9, BetBanker, "lose"},
			{tieSix, BetBanker, "push"},
			{tieSix, BetPlayer, "push"},
			{tieSix, BetTie, "win 8:1"},
			{bankerNatural8, BetTie, "lose"},
			// Pairs: the first two cards of a hand, same rank (1.15), 11:1.
			{playerPair, BetPlayerPair, "win 11:1"},
			{playerPair, BetBankerPair, "lose"},
			{tieNatural8, BetBankerPair, "win 11:1"},
			{tieNatural8, BetPlayerPair, "lose"},
			{tenKing, BetPlayerPair, "lose"},
		})
	}
}

func TestSettleSuperSixPlus(t *testing.T) {
	// NC Insurance 1.21 and 4.1.1: 12:1 on two cards, 20:1 on three; anything else loses.
	runSettle(t, "nc-insurance", Options{}, []settleCase{
		{bankerSix2, BetSuperSixPlus, "win 12:1"},
		{bankerSix3, BetSuperSixPlus, "win 20:1"},
		{tieSix, BetSuperSixPlus, "lose"},
		{bankerNatural8, BetSuperSixPlus, "lose"},
		{playerNatural9, BetSuperSixPlus, "lose"},
	})
}

// The Wins On pay tables, written out from RWS Baccarat 4.1.2, 4.1.3 and 4.1.4.
var (
	wantPlayerWinsOn = map[int]string{1: "160:1", 2: "80:1", 3: "50:1", 4: "50:1", 5: "30:1", 6: "11:1", 7: "8:1", 8: "6:1", 9: "5:1"}
	wantBankerWinsOn = map[int]string{1: "160:1", 2: "80:1", 3: "50:1", 4: "25:1", 5: "15:1", 6: "11:1", 7: "8:1", 8: "6:1", 9: "5:1"}
	wantTieWinsOn    = map[int]string{0: "110:1", 1: "160:1", 2: "160:1", 3: "150:1", 4: "100:1", 5: "90:1", 6: "35:1", 7: "35:1", 8: "60:1", 9: "60:1"}
)

func TestSettleWinsOn(t *testing.T) {
	rs := MustLookup("rws", Options{})
	for n := 0; n <= 9; n++ {
		for m := 0; m <= 9; m++ {
			// Outcomes with the Player on n and the Banker on m.
			o := Outcome{PlayerPoints: uint8(n), BankerPoints: uint8(m), PlayerCards: 2, BankerCards: 2}
			switch {
			case n > m:
				o.Winner = PlayerWins
			case m > n:
				o.Winner = BankerWins
			default:
				o.Winner = Tie
			}
			for k := 1; k <= 9; k++ {
				want := "lose"
				if o.Winner == PlayerWins && n == k {
					want = "win " + wantPlayerWinsOn[k]
				}
				if got := rs.Resolve(PlayerWinsOn(k), o).String(); got != want {
					t.Errorf("player_wins_on_%d at P%d B%d: %s, want %s", k, n, m, got, want)
				}
				want = "lose"
				if o.Winner == BankerWins && m == k {
					want = "win " + wantBankerWinsOn[k]
				}
				if got := rs.Resolve(BankerWinsOn(k), o).String(); got != want {
					t.Errorf("banker_wins_on_%d at P%d B%d: %s, want %s", k, n, m, got, want)
				}
			}
			for k := 0; k <= 9; k++ {
				want := "lose" // a Wins On bet loses on a Tie of another total, and on any win
				if o.Winner == Tie && n == k {
					want = "win " + wantTieWinsOn[k]
				}
				if got := rs.Resolve(TieWinsOn(k), o).String(); got != want {
					t.Errorf("tie_wins_on_%d at P%d B%d: %s, want %s", k, n, m, got, want)
				}
			}
		}
	}
	// And from real cards: the Player wins on 9, the Banker on 8.
	runSettle(t, "rws", Options{}, []settleCase{
		{playerNatural9, PlayerWinsOn(9), "win 5:1"},
		{playerNatural9, BankerWinsOn(5), "lose"},
		{bankerNatural8, BankerWinsOn(8), "win 6:1"},
		{tieSix, TieWinsOn(6), "win 35:1"},
		{tieSix, PlayerWinsOn(6), "lose"},
		{tieSix, BankerWinsOn(6), "lose"},
	})
}

func TestSettleRoyal(t *testing.T) {
	royalTie := "AS KS QS JS 9S TS" // all spades with A, K, Q, J; Tie at 0
	straight := "2H 3H 5H 4H"       // 2-3-4-5 hearts; Tie at 7
	flush := "2D 3D 6D 5D"          // diamonds, not in sequence; Tie at 8
	unsuited := "9C 9D KC KH"       // Tie at 9
	// Royal Baccarat Tie pays, written out from the document: the Flush tier by pay table.
	flushPays := map[int]string{1: "88:1", 2: "77:1", 3: "55:1", 4: "33:1", 5: "11:1"}
	for table := 1; table <= 5; table++ {
		for _, tiers := range []int{4, 3} {
			sf := "win 1000:1"
			if tiers == 3 {
				sf = "win " + flushPays[table] // no Straight Flush tier: pays as a Flush
			}
			t.Run(fmt.Sprintf("paytable%d-%dtier", table, tiers), func(t *testing.T) {
				runSettle(t, "royal", Options{RoyalPaytable: table, RoyalTiers: tiers}, []settleCase{
					{royalTie, BetRoyalTie, "win 10000:1"},
					{straight, BetRoyalTie, sf},
					{flush, BetRoyalTie, "win " + flushPays[table]},
					{unsuited, BetRoyalTie, "win 8:1"},
					{playerNatural9, BetRoyalTie, "lose"},
					{bankerNatural8, BetBanker, "win 0.95:1"},
					{bankerNatural8, BetPlayer, "lose"},
					{unsuited, BetBanker, "push"},
					{unsuited, BetPlayer, "push"},
				})
			})
		}
	}
}

func TestSuitClass(t *testing.T) {
	for _, tc := range []struct {
		cards string
		want  SuitClass
	}{
		{"AS KS QS JS 9S TS", RoyalFlush},
		{"JH QH KH AH", RoyalFlush},       // J-Q-K-A: Ace high, and royal
		{"AD KD QD JD 5D 5D", RoyalFlush}, // includes A, K, Q, J: royal whatever else
		{"TC JC QC KC", StraightFlush},    // no Ace: not royal
		{"AH 2H 3H 4H", StraightFlush},    // Ace low
		{"2H 3H 5H 4H", StraightFlush},    // order of dealing does not matter
		{"2H 3H 4H 5H 6H", StraightFlush},
		{"QS KS AS 2S", Flush}, // no wrap around
		{"2D 3D 6D 5D", Flush},
		{"2D 3D 3D 4D", Flush}, // not distinct
		{"2D 3D 4D 5C", Unsuited},
	} {
		cs, err := ParseCards(tc.cards)
		if err != nil {
			t.Fatal(err)
		}
		var c Coup
		for _, card := range cs {
			if c.Len() < 4 {
				c.Place(card)
				continue
			}
			// Place the fifth and sixth cards directly: the class does not depend on play.
			if c.Player.n < 3 {
				addCard(&c.Player, card)
			} else {
				addCard(&c.Banker, card)
			}
		}
		if got := SuitClassOf(c); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.cards, got, tc.want)
		}
	}
}

func TestOddsAndRounding(t *testing.T) {
	for _, tc := range []struct {
		odds  Odds
		text  string
		stake Money
		down  Money
		half  Money
		up    Money
	}{
		{O(1, 1), "1:1", 7, 7, 7, 7},
		{O(19, 20), "0.95:1", 100, 95, 95, 95},
		{O(19, 20), "0.95:1", 10, 9, 10, 10}, // 9.5
		{O(19, 20), "0.95:1", 1, 0, 1, 1},    // 0.95
		{O(1, 2), "1:2", 25, 12, 13, 13},     // 12.5
		{O(1, 2), "1:2", 24, 12, 12, 12},
		{O(3, 2), "1.5:1", 3, 4, 5, 5}, // 4.5
		{O(10000, 1), "10000:1", 3, 30000, 30000, 30000},
	} {
		if tc.odds.String() != tc.text {
			t.Errorf("%d/%d prints %q, want %q", tc.odds.Num, tc.odds.Den, tc.odds.String(), tc.text)
		}
		for r, want := range map[Rounding]Money{RoundDown: tc.down, RoundHalfUp: tc.half, RoundUp: tc.up} {
			if got := tc.odds.Win(tc.stake, r); got != want {
				t.Errorf("%s on %d rounded %s: %d, want %d", tc.text, tc.stake, r, got, want)
			}
		}
	}
	res := Won(O(19, 20))
	if got := res.Returned(10, RoundDown); got != 19 {
		t.Errorf("returned %d, want 19", got)
	}
	if got := Pushed.Net(10, RoundDown); got != 0 {
		t.Errorf("push net %d, want 0", got)
	}
	if got := Lost.Net(10, RoundDown); got != -10 {
		t.Errorf("lose net %d, want -10", got)
	}
}

func TestEveryBetIdentifierRoundTrips(t *testing.T) {
	seen := map[string]bool{}
	for b := BetPlayer; b < betCount; b++ {
		name := b.String()
		if seen[name] {
			t.Fatalf("%q used twice", name)
		}
		seen[name] = true
		back, err := ParseBet(name)
		if err != nil || back != b {
			t.Errorf("%q parses as %v, %v", name, back, err)
		}
	}
	// The identifiers the table publishes (issue list): 6 + 9 + 9 + 10 + 3.
	if len(seen) != 37 {
		t.Errorf("%d identifiers, want 37", len(seen))
	}
	for _, name := range []string{"player_wins_on_1", "banker_wins_on_9", "tie_wins_on_0", "super_six_plus", "royal_tie", "banker_insurance"} {
		if !seen[name] {
			t.Errorf("missing %q", name)
		}
	}
	if _, err := ParseBet("player_wins_on_0"); err == nil {
		t.Error("player_wins_on_0 parsed: the Player cannot win on 0")
	}
}

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		name  string
		decks []int
		bad   []int
	}{
		{"classic", []int{1, 8}, []int{0, 9}},
		{"rws", []int{4, 10}, []int{3, 11}},         // RWS Baccarat 2.2.1
		{"nc-tournament", []int{4, 8}, []int{3, 9}}, // NC Tournament 2.2.1
		{"nc-insurance", []int{4, 8}, []int{3, 9}},  // NC Insurance 2.2.1
		{"royal", []int{2, 4, 6, 8}, []int{1, 3, 5, 7, 10}},
	} {
		rs := MustLookup(tc.name, Options{})
		for _, n := range tc.decks {
			if err := rs.CheckDecks(n); err != nil {
				t.Errorf("%s %d decks: %v", tc.name, n, err)
			}
		}
		for _, n := range tc.bad {
			if err := rs.CheckDecks(n); err == nil {
				t.Errorf("%s accepts %d decks", tc.name, n)
			}
		}
	}
	for _, tc := range []struct {
		name string
		opt  Options
	}{
		{"baccarat", Options{}},
		{"royal", Options{RoyalPaytable: 6}},
		{"royal", Options{RoyalTiers: 5}},
		{"rws", Options{RoyalTiers: 3}},
	} {
		if _, err := Lookup(tc.name, tc.opt); err == nil {
			t.Errorf("Lookup(%q, %+v) succeeded", tc.name, tc.opt)
		}
	}
}

// addCard puts card into hand h as a third card, whatever the Table of Play says.
func addCard(h *Hand, card Card) {
	h.cards[h.n] = card
	h.n++
	h.pts = uint8((int(h.pts) + card.Points()) % 10)
}
