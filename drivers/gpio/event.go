package gpio

import (
	"fmt"
	"strconv"
	"time"
)

// Kind is what an input Event reports.
type Kind uint8

// The kinds of input event: buttons are pressed and released, sensors and dealers'
// badges turn on and off.
const (
	_ Kind = iota
	// Pressed: a button went to its active level and stayed there.
	Pressed
	// Released: a button went back to its inactive level and stayed there.
	Released
	// On: a sensor or a dealer's badge went to its active level and stayed there.
	On
	// Off: a sensor or a dealer's badge went back to its inactive level and stayed there.
	Off
	kindCount
)

var kindNames = [kindCount]string{"?", "pressed", "released", "on", "off"}

// String names the kind: "pressed", "released", "on" or "off".
func (k Kind) String() string {
	if k < kindCount {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// kindOf is the event kind for an input role going active or inactive.
func kindOf(r Role, active bool) Kind {
	switch {
	case r.IsButton() && active:
		return Pressed
	case r.IsButton():
		return Released
	case active:
		return On
	default:
		return Off
	}
}

// Event is a debounced change of an input: Role went to the state Kind names. At is the
// time, by the driver's clock, at which the new level began (its last edge); the event is
// delivered once the level has held for the debounce time. Dealer is, for a dealer's
// badge, the dealer its pin entry names (PinConfig.Dealer); empty for the other roles.
type Event struct {
	Role   Role
	Kind   Kind
	At     time.Time
	Dealer string
}

// Active reports whether the event puts its input in the active state (Pressed or On).
func (e Event) Active() bool { return e.Kind == Pressed || e.Kind == On }

// String prints the event, e.g. "confirm pressed at 12:00:00.020", or for a dealer's
// badge `dealer "D-ANA" on at 12:00:00.020`.
func (e Event) String() string {
	s := e.Role.String()
	if e.Dealer != "" {
		s += " " + strconv.Quote(e.Dealer)
	}
	return s + " " + e.Kind.String() + " at " + e.At.Format("15:04:05.000")
}

// Mode is what an output does.
type Mode uint8

// The output modes.
const (
	// ModeOff holds the output at its inactive level.
	ModeOff Mode = iota
	// ModeOn holds the output at its active level.
	ModeOn
	// ModeBlink alternates: active for Command.On, inactive for Command.Off. A lamp
	// blinks; the buzzer beeps.
	ModeBlink
	modeCount
)

var modeNames = [modeCount]string{"off", "on", "blink"}

// String names the mode: "off", "on" or "blink".
func (m Mode) String() string {
	if m < modeCount {
		return modeNames[m]
	}
	return "mode(" + strconv.Itoa(int(m)) + ")"
}

// Default blink timing, used when a ModeBlink command leaves On or Off zero.
const (
	DefaultBlinkOn  = 500 * time.Millisecond
	DefaultBlinkOff = 500 * time.Millisecond
)

// Command sets an output. On, Off and Cycles apply to ModeBlink only: the output is
// active for On, then inactive for Off (zero means DefaultBlinkOn, DefaultBlinkOff), for
// Cycles cycles after which it stays inactive; Cycles 0 repeats until the next command.
// A buzzer pattern of three short beeps is {Role: Buzzer, Mode: ModeBlink, On:
// 100 * time.Millisecond, Off: 100 * time.Millisecond, Cycles: 3}.
type Command struct {
	Role    Role
	Mode    Mode
	On, Off time.Duration
	Cycles  int
}

// String prints the command, e.g. "light_amber blink 500ms/500ms x3".
func (c Command) String() string {
	s := c.Role.String() + " " + c.Mode.String()
	if c.Mode == ModeBlink {
		on, off := c.timing()
		s += " " + on.String() + "/" + off.String()
		if c.Cycles > 0 {
			s += " x" + strconv.Itoa(c.Cycles)
		}
	}
	return s
}

// timing is the blink's on and off times with the defaults filled in.
func (c Command) timing() (on, off time.Duration) {
	on, off = c.On, c.Off
	if on == 0 {
		on = DefaultBlinkOn
	}
	if off == 0 {
		off = DefaultBlinkOff
	}
	return on, off
}

// validate checks the command on its own, without regard to what is configured.
func (c Command) validate() error {
	switch {
	case !c.Role.IsOutput():
		return fmt.Errorf("gpio: command %s: %s is not an output", c, c.Role)
	case c.Mode >= modeCount:
		return fmt.Errorf("gpio: command %s: unknown mode", c)
	case c.On < 0 || c.Off < 0:
		return fmt.Errorf("gpio: command %s: negative blink time", c)
	case c.Cycles < 0:
		return fmt.Errorf("gpio: command %s: negative cycle count %d", c, c.Cycles)
	}
	return nil
}
