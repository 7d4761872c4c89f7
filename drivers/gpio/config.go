package gpio

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"periph.io/x/conn/v3/gpio"
)

// ErrConfig is wrapped by every configuration error: an unknown role or pull name, a role
// or pin given twice, a pin name the host does not have, a bad debounce time, a dealer's
// badge naming no dealer or one named twice.
var ErrConfig = errors.New("gpio config")

// ErrUnknownPin is wrapped, with ErrConfig, by the error for a pin name the host does not
// have; the message names the role and the pin.
var ErrUnknownPin = errors.New("unknown pin name")

// DefaultDebounce is the debounce time used when Config.Debounce is zero.
const DefaultDebounce = 20 * time.Millisecond

// MaxDebounce is the longest debounce time a Config may ask for.
const MaxDebounce = time.Second

// Pull is the pull resistor an input asks for. The zero Pull leaves the pin's resistor as
// it is.
type Pull uint8

// The pull settings, named in configuration "", "up", "down" and "float".
const (
	PullAsIs Pull = iota
	PullUp
	PullDown
	PullFloat
	pullCount
)

var pullNames = [pullCount]string{"", "up", "down", "float"}

// String is the pull's configuration name; PullAsIs prints as "as-is".
func (p Pull) String() string {
	switch {
	case p == PullAsIs:
		return "as-is"
	case p < pullCount:
		return pullNames[p]
	}
	return fmt.Sprintf("pull(%d)", uint8(p))
}

// MarshalText writes the pull's configuration name ("" for PullAsIs).
func (p Pull) MarshalText() ([]byte, error) {
	if p >= pullCount {
		return nil, fmt.Errorf("%w: %s is not a pull setting", ErrConfig, p)
	}
	return []byte(pullNames[p]), nil
}

// UnmarshalText reads "", "up", "down" or "float".
func (p *Pull) UnmarshalText(b []byte) error {
	for i := range pullCount {
		if pullNames[i] == string(b) {
			*p = i
			return nil
		}
	}
	return fmt.Errorf("%w: unknown pull %q (want up, down, float or empty)", ErrConfig, b)
}

// periph is the pull as periph names it.
func (p Pull) periph() gpio.Pull {
	switch p {
	case PullUp:
		return gpio.PullUp
	case PullDown:
		return gpio.PullDown
	case PullFloat:
		return gpio.Float
	}
	return gpio.PullNoChange
}

// PinConfig assigns a role to a pin. Pin is a name the host knows ("GPIO17", the board
// position "P1_11", or the number "17" on a Raspberry Pi). ActiveLow says the role is
// active (pressed, on, lit) when the pin is low, as for a button wired to ground with a
// pull-up. Pull applies to inputs only. Dealer names the dealer whose badge the pin
// reads: required for role Dealer, refused on every other role (CheckDealerName).
type PinConfig struct {
	Role      Role   `json:"role"`
	Pin       string `json:"pin"`
	ActiveLow bool   `json:"active_low,omitempty"`
	Pull      Pull   `json:"pull,omitempty"`
	Dealer    string `json:"dealer,omitempty"`
}

// what names the pin entry's role, and for a dealer's badge the dealer: `dealer "D-ANA"`.
func (p PinConfig) what() string {
	if p.Role.IsDealer() {
		return p.Role.String() + " " + strconv.Quote(p.Dealer)
	}
	return p.Role.String()
}

// MaxDealerName is the longest dealer's name a pin entry gives, in bytes: the commands'
// limit of a name (api.MaxNameLen), which the dealer's name becomes.
const MaxDealerName = 64

// CheckDealerName checks a dealer's name as a pin entry gives it: at most MaxDealerName
// bytes of UTF-8, every character printable. An empty name passes: whether one is needed
// is the role's to say. The error says what is wrong, without naming the pin.
func CheckDealerName(name string) error {
	if len(name) > MaxDealerName {
		return fmt.Errorf("dealer name is %d bytes, over the limit of %d", len(name), MaxDealerName)
	}
	for i, r := range name {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(name[i:], "\uFFFD"):
			return fmt.Errorf("dealer name %q is not UTF-8 at byte %d", name, i)
		case !unicode.IsPrint(r):
			return fmt.Errorf("dealer name %q holds %U at byte %d, not printable", name, r, i)
		}
	}
	return nil
}

// Config says which pin plays which role and how inputs are debounced.
type Config struct {
	// Pins assigns pins to roles; a role not listed is simply not wired.
	Pins []PinConfig
	// Debounce is how long an input's level must hold before it counts; zero means
	// DefaultDebounce.
	Debounce time.Duration
	// Now is the clock that stamps events and times the debounce; nil means time.Now.
	Now func() time.Time
	// Logger receives the driver's log; nil means slog.Default().
	Logger *slog.Logger
	// newTimer makes each output's blink timer; nil means a time.Timer. The tests give
	// timers they fire themselves.
	newTimer func() blinkTimer
}

// Validate checks the configuration without touching any pin: every role is declared and
// given once (but Dealer, once per dealer), every pin name is non-empty and used once,
// pulls are set on inputs only, a dealer is named on every Dealer pin and on no other,
// each dealer once, and the debounce time is between zero and MaxDebounce. Every error
// wraps ErrConfig and names the role or pin at fault.
func (c Config) Validate() error {
	roles := make(map[Role]string, len(c.Pins))
	pins := make(map[string]string, len(c.Pins))
	dealers := make(map[string]string)
	for i, p := range c.Pins {
		switch {
		case !p.Role.Valid():
			return fmt.Errorf("%w: pin entry %d (pin %q): %s is not a role", ErrConfig, i+1, p.Pin, p.Role)
		case p.Pin == "":
			return fmt.Errorf("%w: role %s: no pin name", ErrConfig, p.Role)
		case p.Pull >= pullCount:
			return fmt.Errorf("%w: role %s: %s is not a pull setting", ErrConfig, p.Role, p.Pull)
		case p.Pull != PullAsIs && p.Role.IsOutput():
			return fmt.Errorf("%w: role %s: pull %s set on an output", ErrConfig, p.Role, p.Pull)
		case p.Role.IsDealer() && p.Dealer == "":
			return fmt.Errorf("%w: role %s (pin %q): no dealer named", ErrConfig, p.Role, p.Pin)
		case !p.Role.IsDealer() && p.Dealer != "":
			return fmt.Errorf("%w: role %s (pin %q): dealer %q named: only role %s names a dealer", ErrConfig, p.Role, p.Pin, p.Dealer, Dealer)
		}
		if err := CheckDealerName(p.Dealer); err != nil {
			return fmt.Errorf("%w: role %s (pin %q): %w", ErrConfig, p.Role, p.Pin, err)
		}
		if p.Role.IsDealer() {
			if other, dup := dealers[p.Dealer]; dup {
				return fmt.Errorf("%w: role %s: dealer %q given twice (pins %q and %q)", ErrConfig, p.Role, p.Dealer, other, p.Pin)
			}
			dealers[p.Dealer] = p.Pin
		} else if other, dup := roles[p.Role]; dup {
			return fmt.Errorf("%w: role %s given twice (pins %q and %q)", ErrConfig, p.Role, other, p.Pin)
		}
		if other, dup := pins[p.Pin]; dup {
			return fmt.Errorf("%w: pin %q given to both %s and %s", ErrConfig, p.Pin, other, p.what())
		}
		roles[p.Role] = p.Pin
		pins[p.Pin] = p.what()
	}
	if c.Debounce < 0 || c.Debounce > MaxDebounce {
		return fmt.Errorf("%w: debounce %s outside 0 to %s", ErrConfig, c.Debounce, MaxDebounce)
	}
	return nil
}

// PinLookup finds a pin by name and returns nil when the host has no such pin; periph's
// gpioreg.ByName is the one used on the table.
type PinLookup func(name string) gpio.PinIO

// PinMap is a PinLookup over a fixed set of pins, the test double of gpioreg.ByName: map
// names to periph's gpiotest.Pin values and pass m.ByName to OpenPins.
type PinMap map[string]gpio.PinIO

// ByName returns the pin called name, or nil.
func (m PinMap) ByName(name string) gpio.PinIO { return m[name] }
