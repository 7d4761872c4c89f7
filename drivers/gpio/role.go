// Package gpio drives the table's buttons, sensors, dealers' badges, tower light and
// buzzer through the host's GPIO pins: it turns debounced input edges into typed events
// (a button pressed or released, a sensor or a badge on or off, stamped by an injected
// clock; a badge's carrying its dealer's name) and output commands (a light or the buzzer
// off, on or blinking) into pin levels. It knows no baccarat rules.
// Pins are found by name through a PinLookup (periph's gpioreg.ByName on the table, a
// PinMap of gpiotest pins in tests); Open reports ErrAbsent on a host with no GPIO.
package gpio

import (
	"fmt"
	"strconv"
)

// Role is what a pin is for at the table: a dealer button, a sensor, a dealer's badge,
// or an output. The set is closed; each role has a text name used in configuration
// ("confirm", "shoe_lid", "dealer", "light_red", ...). The zero Role is not a role.
type Role uint8

// The dealer buttons, the sensors, the dealer's badge and the outputs.
const (
	_ Role = iota
	// Confirm is the dealer's button that confirms the revealed result.
	Confirm
	// NewShoe is the dealer's button that starts a new shoe.
	NewShoe
	// InsuranceClosed is the dealer's button that closes the Insurance offers (NC
	// Insurance 3.12, 5.3).
	InsuranceClosed
	// CallSupervisor is the dealer's button that calls a Pit Supervisor to the table, for
	// the decisions the rules reserve to one (RWS Baccarat 5.10, 5.10.2).
	CallSupervisor
	// ShoeLid is the shoe's lid sensor: on while the lid is open.
	ShoeLid
	// CardPresent is the shoe's exit sensor: on while a card sits at the exit.
	CardPresent
	// DoubleCard is the shoe's thickness sensor: on while two cards are sensed at once
	// (cards drawn simultaneously, RWS Baccarat 5.10).
	DoubleCard
	// Dealer is one dealer's badge: a badge holder's contact, a badge reader's relay
	// output or a key switch, active while that dealer's badge is in (or the key on).
	// Its pin entry names the dealer (PinConfig.Dealer). Unlike the other roles it may
	// be given several times, once per dealer.
	Dealer
	// LightRed is the red lamp of the tower light.
	LightRed
	// LightAmber is the amber lamp of the tower light.
	LightAmber
	// LightGreen is the green lamp of the tower light.
	LightGreen
	// Buzzer is the table's buzzer.
	Buzzer
	roleCount
)

var roleNames = [roleCount]string{"", "confirm", "new_shoe", "insurance_closed",
	"call_supervisor", "shoe_lid", "card_present", "double_card", "dealer", "light_red",
	"light_amber", "light_green", "buzzer"}

// Roles lists every role, inputs first, in declaration order.
func Roles() []Role {
	rs := make([]Role, 0, roleCount-1)
	for r := Role(1); r < roleCount; r++ {
		rs = append(rs, r)
	}
	return rs
}

// Valid reports whether r is one of the declared roles.
func (r Role) Valid() bool { return r > 0 && r < roleCount }

// IsButton reports whether r is a dealer button.
func (r Role) IsButton() bool { return r >= Confirm && r <= CallSupervisor }

// IsSensor reports whether r is a sensor.
func (r Role) IsSensor() bool { return r >= ShoeLid && r <= DoubleCard }

// IsDealer reports whether r is a dealer's badge.
func (r Role) IsDealer() bool { return r == Dealer }

// IsInput reports whether r is read from a pin (a button, a sensor or a dealer's badge).
func (r Role) IsInput() bool { return r.IsButton() || r.IsSensor() || r.IsDealer() }

// IsOutput reports whether r is driven on a pin (a lamp or the buzzer).
func (r Role) IsOutput() bool { return r >= LightRed && r <= Buzzer }

// String is the role's configuration name, e.g. "new_shoe"; an undeclared role prints as
// "role(N)".
func (r Role) String() string {
	if r.Valid() {
		return roleNames[r]
	}
	return "role(" + strconv.Itoa(int(r)) + ")"
}

// ParseRole returns the role named s ("confirm", "light_green", ...).
func ParseRole(s string) (Role, error) {
	for r := Role(1); r < roleCount; r++ {
		if roleNames[r] == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown role %q", ErrConfig, s)
}

// MarshalText writes the role's name; an undeclared role is an error.
func (r Role) MarshalText() ([]byte, error) {
	if !r.Valid() {
		return nil, fmt.Errorf("%w: %s is not a role", ErrConfig, r)
	}
	return []byte(roleNames[r]), nil
}

// UnmarshalText reads a role's name.
func (r *Role) UnmarshalText(b []byte) error {
	v, err := ParseRole(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}
