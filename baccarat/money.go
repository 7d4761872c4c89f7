package baccarat

import (
	"fmt"
	"strconv"
	"strings"
)

// Money is an amount in the table's smallest unit (a cent, a chip unit). No payout is
// ever a float.
type Money int64

// Odds is an exact payout ratio "Num to Den": a winning stake s earns s*Num/Den on top of
// the stake returned. Banker under commission is 19:20 (0.95 to 1), Non-Commission
// Banker on six is 1:2, the top Banker Insurance row is 3:2 (1.5 to 1).
type Odds struct {
	Num uint32 `json:"num"`
	Den uint32 `json:"den"`
}

// O returns the odds num to den.
func O(num, den uint32) Odds { return Odds{Num: num, Den: den} }

// String prints the odds the way the rule documents write them: "8:1", "1:2", "0.95:1",
// "1.5:1". A ratio with no short decimal form prints as "num:den".
func (o Odds) String() string {
	switch {
	case o.Den == 0:
		return "?"
	case o.Den == 1:
		return fmt.Sprintf("%d:1", o.Num)
	case o.Num == 1:
		return fmt.Sprintf("1:%d", o.Den)
	}
	// Print num/den as a decimal to 1 if it terminates within four places.
	for _, scale := range []uint64{10, 100, 1000, 10000} {
		if uint64(o.Num)*scale%uint64(o.Den) == 0 {
			v := uint64(o.Num) * scale / uint64(o.Den)
			s := strconv.FormatUint(v, 10)
			digits := len(strconv.FormatUint(scale, 10)) - 1
			for len(s) <= digits {
				s = "0" + s
			}
			whole, frac := s[:len(s)-digits], strings.TrimRight(s[len(s)-digits:], "0")
			return whole + "." + frac + ":1"
		}
	}
	return fmt.Sprintf("%d:%d", o.Num, o.Den)
}

// MarshalText prints the odds as String does.
func (o Odds) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// Rounding says how a winning amount that is not a whole number of units is settled. It
// is a table setting and is applied in exactly one place, Rounding.up, for a payout
// (Odds.Win) and for a pro-rated stake (RuleSet.CloseBets).
type Rounding uint8

// The rounding rules. RoundDown (the house keeps the fraction) is the default.
const (
	RoundDown Rounding = iota
	RoundHalfUp
	RoundUp
)

var roundingNames = [...]string{"down", "half-up", "up"}

// String names the rule: down, half-up or up.
func (r Rounding) String() string {
	if int(r) < len(roundingNames) {
		return roundingNames[r]
	}
	return "?"
}

// MarshalText prints the rule's name.
func (r Rounding) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a rule's name.
func (r *Rounding) UnmarshalText(b []byte) error {
	v, err := ParseRounding(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// ParseRounding reads a rounding rule by name: down, half-up or up.
func ParseRounding(s string) (Rounding, error) {
	for i, n := range roundingNames {
		if n == s {
			return Rounding(i), nil
		}
	}
	return 0, fmt.Errorf("rounding %q: want one of %s", s, strings.Join(roundingNames[:], ", "))
}

// Win is what a winning stake earns at these odds, rounded by r when it is not a whole
// number of units. This is the only place a payout is rounded.
func (o Odds) Win(stake Money, r Rounding) Money {
	n := int64(stake) * int64(o.Num)
	d := int64(o.Den)
	q, rem := n/d, n%d
	if r.up(rem, d) {
		q++
	}
	return Money(q)
}

// up says whether a quotient whose division by d left remainder rem (0 <= rem < d) goes
// up one unit under rule r. It is the one place a fraction of a unit is decided: for a
// payout (Odds.Win) and for a pro-rated stake (RuleSet.CloseBets).
func (r Rounding) up(rem, d int64) bool {
	switch {
	case rem == 0:
		return false
	case r == RoundUp:
		return true
	case r == RoundHalfUp:
		return rem >= d-rem
	}
	return false
}
