package baccarat

import (
	"encoding/json"
	"fmt"
	"math/bits"
)

// Stage is the moment in a round at which Insurance may be offered (NC Insurance 3.12).
type Stage uint8

// The two stages.
const (
	AfterFourCards   Stage = 1 + iota // after the initial four cards
	AfterPlayerThird                  // after the Player Hand's third card
)

// String names the stage: "after four cards" or "after player's third card".
func (s Stage) String() string {
	switch s {
	case AfterFourCards:
		return "after four cards"
	case AfterPlayerThird:
		return "after player's third card"
	}
	return "?"
}

// MarshalText prints the stage as "after_four_cards" or "after_player_third".
func (s Stage) MarshalText() ([]byte, error) {
	switch s {
	case AfterFourCards:
		return []byte("after_four_cards"), nil
	case AfterPlayerThird:
		return []byte("after_player_third"), nil
	}
	return nil, fmt.Errorf("marshal stage: %d is not a stage", s)
}

// InsuranceRow is one row of the Baccarat Insurance Pay Table (NC Insurance 4.1.2).
type InsuranceRow struct {
	Bet   Bet   // BetPlayerInsurance or BetBankerInsurance
	Stage Stage // when it is offered
	// Player and Banker point ranges (inclusive) for which the row applies.
	PlayerLo, PlayerHi uint8
	BankerLo, BankerHi uint8
	Odds               Odds // paid when the insured hand loses
	// TieWins: the Player Insurance on a Player of 9 after the third card, which is paid
	// when the Banker draws to 9 and ties (NC Insurance 4.1.2 footnote, 4.2.1).
	TieWins bool
}

// Points describes the row's point ranges, for example "player 0-4, banker 5".
func (r InsuranceRow) Points() (player, banker string) {
	rng := func(lo, hi uint8) string {
		if lo == hi {
			return fmt.Sprint(lo)
		}
		return fmt.Sprintf("%d-%d", lo, hi)
	}
	return rng(r.PlayerLo, r.PlayerHi), rng(r.BankerLo, r.BankerHi)
}

// InsuranceTable is the Baccarat Insurance Pay Table, NC Insurance 4.1.2, row by row.
var InsuranceTable = []InsuranceRow{
	// After four cards exposed: Banker Insurance.
	{Bet: BetBankerInsurance, Stage: AfterFourCards, BankerLo: 5, BankerHi: 5, PlayerLo: 0, PlayerHi: 4, Odds: O(2, 1)},
	{Bet: BetBankerInsurance, Stage: AfterFourCards, BankerLo: 6, BankerHi: 6, PlayerLo: 0, PlayerHi: 5, Odds: O(3, 1)},
	{Bet: BetBankerInsurance, Stage: AfterFourCards, BankerLo: 7, BankerHi: 7, PlayerLo: 0, PlayerHi: 5, Odds: O(4, 1)},
	// After four cards exposed: Player Insurance.
	{Bet: BetPlayerInsurance, Stage: AfterFourCards, PlayerLo: 5, PlayerHi: 5, BankerLo: 4, BankerHi: 4, Odds: O(2, 1)},
	{Bet: BetPlayerInsurance, Stage: AfterFourCards, PlayerLo: 6, PlayerHi: 6, BankerLo: 0, BankerHi: 5, Odds: O(3, 1)},
	{Bet: BetPlayerInsurance, Stage: AfterFourCards, PlayerLo: 7, PlayerHi: 7, BankerLo: 0, BankerHi: 5, Odds: O(4, 1)},
	// After the Player's third card: Banker Insurance.
	{Bet: BetBankerInsurance, Stage: AfterPlayerThird, PlayerLo: 1, PlayerHi: 1, BankerLo: 1, BankerHi: 1, Odds: O(6, 1)},
	{Bet: BetBankerInsurance, Stage: AfterPlayerThird, PlayerLo: 1, PlayerHi: 1, BankerLo: 2, BankerHi: 6, Odds: O(7, 1)},
	{Bet: BetBankerInsurance, Stage: AfterPlayerThird, PlayerLo: 2, PlayerHi: 2, BankerLo: 3, BankerHi: 6, Odds: O(4, 1)},
	{Bet: BetBankerInsurance, Stage: AfterPlayerThird, PlayerLo: 3, PlayerHi: 3, BankerLo: 4, BankerHi: 4, Odds: O(3, 2)},
	// After the Player's third card: Player Insurance.
	{Bet: BetPlayerInsurance, Stage: AfterPlayerThird, BankerLo: 0, BankerHi: 4, PlayerLo: 5, PlayerHi: 5, Odds: O(2, 1)},
	{Bet: BetPlayerInsurance, Stage: AfterPlayerThird, BankerLo: 0, BankerHi: 5, PlayerLo: 6, PlayerHi: 6, Odds: O(3, 1)},
	{Bet: BetPlayerInsurance, Stage: AfterPlayerThird, BankerLo: 0, BankerHi: 6, PlayerLo: 7, PlayerHi: 7, Odds: O(4, 1)},
	{Bet: BetPlayerInsurance, Stage: AfterPlayerThird, BankerLo: 0, BankerHi: 6, PlayerLo: 8, PlayerHi: 8, Odds: O(7, 1)},
	{Bet: BetPlayerInsurance, Stage: AfterPlayerThird, BankerLo: 0, BankerHi: 6, PlayerLo: 9, PlayerHi: 9, Odds: O(8, 1), TieWins: true},
}

// InsuranceOffer is an Insurance bet open to the table: the pay-table row that applies
// to the cards on the table. Row indexes InsuranceTable.
type InsuranceOffer struct {
	Row int `json:"row"`
}

// Info returns the offer's pay-table row.
func (o InsuranceOffer) Info() InsuranceRow { return InsuranceTable[o.Row] }

type insuranceOfferJSON struct {
	Row     int    `json:"row"`
	Bet     Bet    `json:"bet"`
	Stage   Stage  `json:"stage"`
	Player  string `json:"player_points"`
	Banker  string `json:"banker_points"`
	Odds    Odds   `json:"odds"`
	TieWins bool   `json:"tie_wins,omitempty"`
}

// MarshalJSON writes the offer with its row spelled out, as a display shows it.
func (o InsuranceOffer) MarshalJSON() ([]byte, error) {
	if o.Row < 0 || o.Row >= len(InsuranceTable) {
		return nil, fmt.Errorf("marshal insurance offer: row %d is not in the pay table", o.Row)
	}
	r := o.Info()
	p, b := r.Points()
	return json.Marshal(insuranceOfferJSON{Row: o.Row, Bet: r.Bet, Stage: r.Stage, Player: p, Banker: b, Odds: r.Odds, TieWins: r.TieWins})
}

// UnmarshalJSON reads an offer written by MarshalJSON; only its row counts.
func (o *InsuranceOffer) UnmarshalJSON(b []byte) error {
	var v struct {
		Row *int `json:"row"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("insurance offer: %w", err)
	}
	if v.Row == nil || *v.Row < 0 || *v.Row >= len(InsuranceTable) {
		return fmt.Errorf("insurance offer: want a row of the pay table, 0 to %d", len(InsuranceTable)-1)
	}
	o.Row = *v.Row
	return nil
}

// InsuranceOffers appends to dst the Insurance offers that the cards of c open, and
// returns the extended slice. Insurance is offered only before a third card is to come
// (NC Insurance 1.9): after the four initial cards when the round goes on to a third card,
// and after the Player's third card when the Banker is to draw (3.12, 3.12.1). The points
// must match a row of the pay table (4.1.2). A natural offers nothing.
func InsuranceOffers(dst []InsuranceOffer, c Coup) []InsuranceOffer {
	var stage Stage
	switch {
	case c.Player.n == 2 && c.Banker.n == 2:
		stage = AfterFourCards
	case c.Player.n == 3 && c.Banker.n == 2:
		stage = AfterPlayerThird
	default:
		return dst
	}
	if c.Next() == NoSlot {
		return dst
	}
	for rows := insuranceRows[stage&3][c.Player.pts&15][c.Banker.pts&15]; rows != 0; rows &= rows - 1 {
		dst = append(dst, InsuranceOffer{Row: bits.TrailingZeros64(rows)})
	}
	return dst
}

// insuranceRows is, by stage and the Player's and the Banker's points, the rows of
// InsuranceTable that apply, as a bit set in the table's order: read off the table as the
// package starts, so that a card looks up its offers rather than scanning the rows.
var insuranceRows = func() (t [4][16][16]uint64) {
	if len(InsuranceTable) > 64 {
		panic("baccarat: the insurance pay table has more rows than insuranceRows holds")
	}
	for i, r := range InsuranceTable {
		for p := r.PlayerLo; p <= r.PlayerHi && p < 16; p++ {
			for b := r.BankerLo; b <= r.BankerHi && b < 16; b++ {
				t[r.Stage&3][p][b] |= 1 << i
			}
		}
	}
	return t
}()

// ResolveInsurance settles an Insurance bet taken on offer o, once the round is complete.
// It wins at the row's odds when the insured hand loses (NC Insurance 3.11), is returned
// on a Tie, except the Player Insurance on a Player of 9 after the third card, which is
// paid on the Tie at 9 (4.2.1), and loses when the insured hand wins.
func ResolveInsurance(o InsuranceOffer, out Outcome) Resolution {
	r := o.Info()
	insured, other := PlayerWins, BankerWins
	if r.Bet == BetBankerInsurance {
		insured, other = BankerWins, PlayerWins
	}
	switch out.Winner {
	case other:
		return Won(r.Odds)
	case Tie:
		if r.TieWins {
			return Won(r.Odds)
		}
		return Pushed
	case insured:
		return Lost
	}
	return Resolution{}
}
