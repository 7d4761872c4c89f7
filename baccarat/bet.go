package baccarat

import (
	"fmt"
	"strconv"
)

// Bet identifies a bet. Its text form (see String) is the identifier used everywhere
// outside the code: JSON, config and MQTT.
type Bet uint8

// The bets of all five rule sets. The Wins On bets are consecutive: PlayerWinsOn(n) is
// BetPlayerWinsOn1 + n - 1, BankerWinsOn(n) likewise, TieWinsOn(n) is BetTieWinsOn0 + n.
const (
	BetNone Bet = iota
	BetPlayer
	BetBanker
	BetTie
	BetPlayerPair
	BetBankerPair
	BetSuperSixPlus
	BetPlayerWinsOn1
	BetBankerWinsOn1   = BetPlayerWinsOn1 + 9
	BetTieWinsOn0      = BetBankerWinsOn1 + 9
	BetRoyalTie        = BetTieWinsOn0 + 10
	BetPlayerInsurance = BetRoyalTie + 1
	BetBankerInsurance = BetRoyalTie + 2
	betCount           = BetRoyalTie + 3
)

// PlayerWinsOn is the Player Wins On bet for point total n, 1 to 9 (RWS Baccarat 1.16).
func PlayerWinsOn(n int) Bet { return BetPlayerWinsOn1 + Bet(n-1) }

// BankerWinsOn is the Banker Wins On bet for point total n, 1 to 9 (RWS Baccarat 1.2).
func BankerWinsOn(n int) Bet { return BetBankerWinsOn1 + Bet(n-1) }

// TieWinsOn is the Tie Wins On bet for point total n, 0 to 9 (RWS Baccarat 1.23).
func TieWinsOn(n int) Bet { return BetTieWinsOn0 + Bet(n) }

var betNames = func() [betCount]string {
	var n [betCount]string
	n[BetNone] = "none"
	n[BetPlayer] = "player"
	n[BetBanker] = "banker"
	n[BetTie] = "tie"
	n[BetPlayerPair] = "player_pair"
	n[BetBankerPair] = "banker_pair"
	n[BetSuperSixPlus] = "super_six_plus"
	for i := 1; i <= 9; i++ {
		n[PlayerWinsOn(i)] = "player_wins_on_" + strconv.Itoa(i)
		n[BankerWinsOn(i)] = "banker_wins_on_" + strconv.Itoa(i)
	}
	for i := 0; i <= 9; i++ {
		n[TieWinsOn(i)] = "tie_wins_on_" + strconv.Itoa(i)
	}
	n[BetRoyalTie] = "royal_tie"
	n[BetPlayerInsurance] = "player_insurance"
	n[BetBankerInsurance] = "banker_insurance"
	return n
}()

// String is the bet's identifier, for example "player_wins_on_4".
func (b Bet) String() string {
	if b < betCount {
		return betNames[b]
	}
	return "bet(" + strconv.Itoa(int(b)) + ")"
}

// ParseBet reads a bet identifier.
func ParseBet(s string) (Bet, error) {
	for b := BetPlayer; b < betCount; b++ {
		if betNames[b] == s {
			return b, nil
		}
	}
	return BetNone, fmt.Errorf("unknown bet %q", s)
}

// MarshalText prints the bet's identifier.
func (b Bet) MarshalText() ([]byte, error) {
	if b == BetNone || b >= betCount {
		return nil, fmt.Errorf("marshal bet: %d is not a bet", b)
	}
	return []byte(b.String()), nil
}

// UnmarshalText reads a bet identifier.
func (b *Bet) UnmarshalText(t []byte) error {
	v, err := ParseBet(string(t))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// Main reports whether b is an Original Bet: on the Player Hand or the Banker Hand.
func (b Bet) Main() bool { return b == BetPlayer || b == BetBanker }

// Insurance reports whether b is an Insurance bet.
func (b Bet) Insurance() bool { return b == BetPlayerInsurance || b == BetBankerInsurance }

// winsOn reports the kind and point total of a Wins On bet: kind is BetPlayer, BetBanker
// or BetTie, or BetNone when b is not a Wins On bet.
func (b Bet) winsOn() (kind Bet, total int) {
	switch {
	case b >= BetPlayerWinsOn1 && b < BetBankerWinsOn1:
		return BetPlayer, int(b-BetPlayerWinsOn1) + 1
	case b >= BetBankerWinsOn1 && b < BetTieWinsOn0:
		return BetBanker, int(b-BetBankerWinsOn1) + 1
	case b >= BetTieWinsOn0 && b < BetRoyalTie:
		return BetTie, int(b - BetTieWinsOn0)
	}
	return BetNone, 0
}

// Result is how a bet ends.
type Result uint8

// The results. A Push returns the stake.
const (
	Undecided Result = iota
	Lose
	Win
	Push
)

var resultNames = [...]string{"undecided", "lose", "win", "push"}

// String names the result: lose, win, push (or undecided).
func (r Result) String() string {
	if int(r) < len(resultNames) {
		return resultNames[r]
	}
	return "?"
}

// MarshalText prints the result as String does.
func (r Result) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a result's name.
func (r *Result) UnmarshalText(b []byte) error {
	for i, n := range resultNames {
		if n == string(b) {
			*r = Result(i)
			return nil
		}
	}
	return fmt.Errorf("unknown bet result %q", b)
}

// Resolution is a bet's result and, for a Win, the odds it is paid at.
type Resolution struct {
	Result Result `json:"result"`
	Odds   Odds   `json:"odds"`
}

// Lost, Pushed and Won build resolutions.
var (
	Lost   = Resolution{Result: Lose}
	Pushed = Resolution{Result: Push}
)

// Won is a Win paid at odds o.
func Won(o Odds) Resolution { return Resolution{Result: Win, Odds: o} }

// String prints the resolution, for example "win 11:1" or "push".
func (r Resolution) String() string {
	if r.Result == Win {
		return "win " + r.Odds.String()
	}
	return r.Result.String()
}

// Returned is what goes back to the player for a stake: stake plus winnings on a Win,
// the stake on a Push, nothing on a Lose.
func (r Resolution) Returned(stake Money, rounding Rounding) Money {
	switch r.Result {
	case Win:
		return stake + r.Odds.Win(stake, rounding)
	case Push:
		return stake
	}
	return 0
}

// Net is the player's gain (positive) or loss (negative) on a stake.
func (r Resolution) Net(stake Money, rounding Rounding) Money {
	return r.Returned(stake, rounding) - stake
}
