package irregularities

import (
	"fmt"
	"strings"
)

// Option is one box's choice after an irregularity, recorded so the settlement says what
// the table paid.
type Option uint8

// The options a box may take.
const (
	_ Option = iota
	// OptContinue: the box continues its hand as dealt (RWS Baccarat 5.12.1).
	OptContinue
	// OptReconstructed: the box continues with the reconstructed hand (RWS Baccarat 5.12.2).
	OptReconstructed
	// OptBetReturned: the box's bets are returned (RWS Baccarat 5.12.3).
	OptBetReturned
	// OptInsuranceIntended: the box intended an Insurance bet on an offer the dealer
	// neglected; its Original Bet on that hand is returned when that Insurance would have
	// won (NC Insurance 5.13). The event names the Insurance bet (player or banker).
	OptInsuranceIntended
	// OptWithdraw: on a Tie the box withdraws its Original Bet; without it, the bet is
	// left on the layout for the next round (NC Tournament 3.9).
	OptWithdraw
	optionCount
)

var optionNames = [optionCount]string{"?", "continue", "continue-reconstructed", "bet-returned",
	"insurance-intended", "withdraw"}

// String names the option as commands do, e.g. "bet-returned".
func (o Option) String() string {
	if o < optionCount {
		return optionNames[o]
	}
	return "?"
}

// MarshalText prints the option's name.
func (o Option) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads an option's name.
func (o *Option) UnmarshalText(b []byte) error {
	v, err := ParseOption(string(b))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// ParseOption reads an option's name.
func ParseOption(s string) (Option, error) {
	for i := OptContinue; i < optionCount; i++ {
		if optionNames[i] == s {
			return i, nil
		}
	}
	return 0, fmt.Errorf("unknown option %q: want one of %s", s, strings.Join(optionNames[1:], ", "))
}
