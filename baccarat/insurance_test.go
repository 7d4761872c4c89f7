package baccarat

import (
	"errors"
	"strings"
	"testing"
)

// The Baccarat Insurance Pay Table, NC Insurance 4.1.2, written out by hand as grids.
// Entries: "." nothing offered; "bN" Banker Insurance at N:1; "pN" Player Insurance at
// N:1 ("b1.5" is 1.5 to 1).
//
// After four cards: rows are the Player's points 0-7, columns the Banker's 0-7.
const afterFourGrid = `
P0  .  .  .  .  .  b2 b3 b4
P1  .  .  .  .  .  b2 b3 b4
P2  .  .  .  .  .  b2 b3 b4
P3  .  .  .  .  .  b2 b3 b4
P4  .  .  .  .  .  b2 b3 b4
P5  .  .  .  .  p2 .  b3 b4
P6  p3 p3 p3 p3 p3 p3 .  .
P7  p4 p4 p4 p4 p4 p4 .  .
`

// After the Player's third card: rows are the Player's points 0-9 with three cards,
// columns the Banker's two-card points 0-7. An offer is made only when the Banker is
// still to draw (NC Insurance 1.9: Insurance comes before a hand goes into its third
// card); the test checks that separately.
const afterThirdGrid = `
P0  .  .  .  .  .    .  .  .
P1  .  b6 b7 b7 b7   b7 b7 .
P2  .  .  .  b4 b4   b4 b4 .
P3  .  .  .  .  b1.5 .  .  .
P4  .  .  .  .  .    .  .  .
P5  p2 p2 p2 p2 p2   .  .  .
P6  p3 p3 p3 p3 p3   p3 .  .
P7  p4 p4 p4 p4 p4   p4 p4 .
P8  p7 p7 p7 p7 p7   p7 p7 .
P9  p8 p8 p8 p8 p8   p8 p8 .
`

func parseInsuranceGrid(text string) map[[2]int]string {
	m := map[[2]int]string{}
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(l)
		p := int(f[0][1] - '0')
		for b, e := range f[1:] {
			m[[2]int{p, b}] = e
		}
	}
	return m
}

func offerCode(offers []InsuranceOffer) string {
	if len(offers) == 0 {
		return "."
	}
	var s []string
	for _, o := range offers {
		r := o.Info()
		code := "p"
		if r.Bet == BetBankerInsurance {
			code = "b"
		}
		s = append(s, code+strings.TrimSuffix(r.Odds.String(), ":1"))
	}
	return strings.Join(s, "+")
}

func TestInsuranceOffersAfterFourCards(t *testing.T) {
	grid := parseInsuranceGrid(afterFourGrid)
	for p := 0; p <= 9; p++ {
		for b := 0; b <= 9; b++ {
			p1, p2 := cardsFor(p, Hearts)
			b1, b2 := cardsFor(b, Spades)
			c, _ := CoupOf(p1, b1, p2, b2)
			want, ok := grid[[2]int{p, b}]
			if !ok {
				want = "." // naturals (8, 9) are never insured
			}
			if got := offerCode(InsuranceOffers(nil, c)); got != want {
				t.Errorf("after four cards P%d B%d: %s, want %s", p, b, got, want)
			}
		}
	}
}

func TestInsuranceOffersAfterPlayersThirdCard(t *testing.T) {
	grid := parseInsuranceGrid(afterThirdGrid)
	drawGrid := parseBankerGrid(t)
	checked := 0
	for p := 0; p <= 5; p++ { // the Player draws on 0-5
		for b := 0; b <= 7; b++ {
			for v := 0; v <= 9; v++ {
				p1, p2 := cardsFor(p, Hearts)
				b1, b2 := cardsFor(b, Spades)
				c, _ := CoupOf(p1, b1, p2, b2, thirdCard(v))
				final := (p + v) % 10
				want := grid[[2]int{final, b}]
				if !drawGrid[[2]int{b, v}] {
					want = "." // the Banker stands: the round is decided, nothing to insure
				}
				if got := offerCode(InsuranceOffers(nil, c)); got != want {
					t.Errorf("P%d draws %d (-> %d), B%d: %s, want %s", p, v, final, b, got, want)
				}
				checked++
			}
		}
	}
	if checked != 6*8*10 {
		t.Fatalf("checked %d situations", checked)
	}
}

func TestResolveInsurance(t *testing.T) {
	rowOf := func(bet Bet, stage Stage, p, b uint8) InsuranceOffer {
		for i, r := range InsuranceTable {
			if r.Bet == bet && r.Stage == stage && p >= r.PlayerLo && p <= r.PlayerHi && b >= r.BankerLo && b <= r.BankerHi {
				return InsuranceOffer{Row: i}
			}
		}
		t.Fatalf("no row for %s %s P%d B%d", bet, stage, p, b)
		return InsuranceOffer{}
	}
	for _, tc := range []struct {
		offer InsuranceOffer
		out   Outcome
		want  string
	}{
		// Paid when the insured hand loses (3.11).
		{rowOf(BetBankerInsurance, AfterFourCards, 4, 5), Outcome{Winner: PlayerWins, PlayerPoints: 7, BankerPoints: 5}, "win 2:1"},
		{rowOf(BetBankerInsurance, AfterFourCards, 4, 5), Outcome{Winner: BankerWins, PlayerPoints: 4, BankerPoints: 5}, "lose"},
		{rowOf(BetBankerInsurance, AfterFourCards, 4, 5), Outcome{Winner: Tie, PlayerPoints: 5, BankerPoints: 5}, "push"},
		{rowOf(BetBankerInsurance, AfterPlayerThird, 3, 4), Outcome{Winner: PlayerWins, PlayerPoints: 3, BankerPoints: 2}, "win 1.5:1"},
		{rowOf(BetPlayerInsurance, AfterFourCards, 6, 3), Outcome{Winner: BankerWins, PlayerPoints: 6, BankerPoints: 8}, "win 3:1"},
		{rowOf(BetPlayerInsurance, AfterFourCards, 6, 3), Outcome{Winner: Tie, PlayerPoints: 6, BankerPoints: 6}, "push"},
		{rowOf(BetPlayerInsurance, AfterPlayerThird, 8, 2), Outcome{Winner: Tie, PlayerPoints: 8, BankerPoints: 8}, "push"},
		// The Player-9 case: the Banker draws to 9, a Tie, and the Insurance is paid (4.2.1).
		{rowOf(BetPlayerInsurance, AfterPlayerThird, 9, 2), Outcome{Winner: Tie, PlayerPoints: 9, BankerPoints: 9}, "win 8:1"},
		{rowOf(BetPlayerInsurance, AfterPlayerThird, 9, 2), Outcome{Winner: PlayerWins, PlayerPoints: 9, BankerPoints: 5}, "lose"},
	} {
		if got := ResolveInsurance(tc.offer, tc.out).String(); got != tc.want {
			t.Errorf("%+v on %s: %s, want %s", tc.offer.Info(), tc.out, got, tc.want)
		}
	}
}

func TestCheckInsuranceCap(t *testing.T) {
	rs := MustLookup("nc-insurance", Options{})
	b15 := InsuranceOffer{Row: 9} // Banker Insurance 1.5:1 after the Player's third card
	if InsuranceTable[9].Odds != O(3, 2) {
		t.Fatal("row 9 is not the 1.5:1 row")
	}
	w := func(stake Money) Wager { return Wager{Box: "1", Bet: BetBankerInsurance, Stake: stake} }
	// 3.12.2: the payout may not exceed the Original Bet. 66 at 1.5:1 pays 99; 67 pays 100.5.
	if err := rs.CheckInsurance(b15, w(66), 100, nil); err != nil {
		t.Errorf("66 at 1.5:1 against 100: %v", err)
	}
	if err := rs.CheckInsurance(b15, w(67), 100, nil); err == nil {
		t.Error("67 at 1.5:1 (pays 100.5) against 100 accepted")
	}
	if got := MaxInsurance(b15, 100, nil); got != 66 {
		t.Errorf("max insurance %d, want 66", got)
	}
	// Earlier Insurance on the same hand counts toward the cap: 25 at 2:1 pays 50.
	earlier := []InsuranceTaken{{Offer: InsuranceOffer{Row: 0}, Wager: w(25)}}
	if got := MaxInsurance(b15, 100, earlier); got != 33 {
		t.Errorf("max insurance after 50 paid: %d, want 33", got)
	}
	if err := rs.CheckInsurance(b15, w(34), 100, earlier); err == nil {
		t.Error("34 at 1.5:1 after 50 paid accepted against 100")
	}
	// No Original Bet on the hand, wrong hand, not offered by the rule set.
	var we *WagerError
	if err := rs.CheckInsurance(b15, w(10), 0, nil); !errors.As(err, &we) || !strings.Contains(we.Reason, "no banker bet") {
		t.Errorf("insurance without a banker bet: %v", err)
	}
	if err := rs.CheckInsurance(b15, Wager{Box: "1", Bet: BetPlayerInsurance, Stake: 10}, 100, nil); err == nil {
		t.Error("player insurance on a banker offer accepted")
	}
	if err := MustLookup("rws", Options{}).CheckInsurance(b15, w(10), 100, nil); err == nil {
		t.Error("rws accepted insurance")
	}
}

func TestCheckWagers(t *testing.T) {
	ws := func(s ...string) []Wager {
		var out []Wager
		for _, x := range s {
			f := strings.Split(x, ":")
			b, err := ParseBet(f[1])
			if err != nil {
				t.Fatal(err)
			}
			var stake Money
			for _, ch := range f[2] {
				stake = stake*10 + Money(ch-'0')
			}
			out = append(out, Wager{Box: f[0], Bet: b, Stake: stake})
		}
		return out
	}
	for _, tc := range []struct {
		rules  string
		wagers []Wager
		refuse []string // substring of each wager's error, "" for accepted
	}{
		// RWS 3.7: side bets without a main bet are fine; Player and Banker together too.
		{"rws", ws("1:player_pair:5", "1:tie_wins_on_3:5", "2:player:10", "2:banker:10"), []string{"", "", "", ""}},
		// NC Tournament 3.3, 3.4.
		{"nc-tournament", ws("1:player:10", "1:banker:10"), []string{"3.3", "3.3"}},
		{"nc-tournament", ws("1:tie:5", "2:banker:10", "2:tie:5"), []string{"3.4", "", ""}},
		// Game project sheet: not both Player and Banker; Tie alone is allowed.
		{"classic", ws("1:player:10", "1:banker:10", "2:tie:5"), []string{"game project sheet", "game project sheet", ""}},
		// NC Insurance 3.7: side bets alone are fine; Insurance only on an offer.
		{"nc-insurance", ws("1:super_six_plus:5", "1:player_insurance:5"), []string{"", "only when it is offered"}},
		{"classic", ws("1:player_pair:5", "1:player:0"), []string{"not offered", "positive"}},
		{"royal", ws("1:tie:5", "1:royal_tie:5"), []string{"not offered", ""}},
	} {
		errs := MustLookup(tc.rules, Options{}).CheckWagers(tc.wagers)
		for i, e := range errs {
			switch {
			case tc.refuse[i] == "" && e != nil:
				t.Errorf("%s %+v refused: %v", tc.rules, tc.wagers[i], e)
			case tc.refuse[i] != "" && (e == nil || !strings.Contains(e.Error(), tc.refuse[i])):
				t.Errorf("%s %+v: error %v, want one mentioning %q", tc.rules, tc.wagers[i], e, tc.refuse[i])
			}
		}
	}
}

func TestEstablished(t *testing.T) {
	coup := func(cards string) Coup {
		cs, err := ParseCards(cards)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := CoupOf(cs...)
		return c
	}
	for _, tc := range []struct {
		rules, cards string
		want         bool
	}{
		{"rws", "", false},
		{"rws", "3H 4C", false},
		{"rws", "3H 4C 3D", true}, // the Player Pair is decided by P1 and P2
		{"rws", "3H 4C 5D", true}, // ... won or lost alike
		{"classic", "3H 4C 5D", false},
		{"classic", "2H 7C 3D KS", false}, // Player 5 to draw, Banker 7: any result still possible
		{"classic", "9H 5C KS KD", true},  // complete
		// Player 6 stands, Banker 7 stands: complete at four cards.
		{"classic", "6H 7C KS KD", true},
		// Player 0 after three cards, Banker 3 to draw: the Player cannot win.
		// Banker wins or ties: the Player bet is not decided (push or lose), the Tie bet is
		// not, so nothing is established.
		{"classic", "KH 3C KD KS KC", false},
		// Royal: 2H 3H ... suits still open.
		{"royal", "2H 3H 4H", false},
		// nc-insurance after four cards: the pairs are decided.
		{"nc-insurance", "2H 5C 2D KS", true},
	} {
		rs := MustLookup(tc.rules, Options{})
		if got := rs.Established(coup(tc.cards)); got != tc.want {
			t.Errorf("%s %q: established %v, want %v", tc.rules, tc.cards, got, tc.want)
		}
	}
}

// TestResolveEveryInsuranceRow settles every row of the pay table (NC Insurance 4.1.2)
// both ways and on a Tie: paid at the row's odds when the insured hand loses (3.11),
// returned on a Tie except the Player-9 row (3.17, 4.2.1), lost when the insured hand
// wins. The expected odds are written out from the document, row by row.
func TestResolveEveryInsuranceRow(t *testing.T) {
	want := []string{"2:1", "3:1", "4:1", "2:1", "3:1", "4:1", "6:1", "7:1", "4:1", "1.5:1", "2:1", "3:1", "4:1", "7:1", "8:1"}
	if len(InsuranceTable) != len(want) {
		t.Fatalf("%d rows, want %d", len(InsuranceTable), len(want))
	}
	for i, row := range InsuranceTable {
		o := InsuranceOffer{Row: i}
		insuredWins, insuredLoses := PlayerWins, BankerWins
		if row.Bet == BetBankerInsurance {
			insuredWins, insuredLoses = BankerWins, PlayerWins
		}
		if got := ResolveInsurance(o, Outcome{Winner: insuredLoses}).String(); got != "win "+want[i] {
			t.Errorf("row %d (%s %s): insured hand loses: %s, want win %s", i, row.Bet, row.Stage, got, want[i])
		}
		if got := ResolveInsurance(o, Outcome{Winner: insuredWins}).String(); got != "lose" {
			t.Errorf("row %d: insured hand wins: %s", i, got)
		}
		tie := "push"
		if row.Bet == BetPlayerInsurance && row.Stage == AfterPlayerThird && row.PlayerLo == 9 {
			tie = "win 8:1"
		}
		if got := ResolveInsurance(o, Outcome{Winner: Tie}).String(); got != tie {
			t.Errorf("row %d: tie: %s, want %s", i, got, tie)
		}
	}
}
