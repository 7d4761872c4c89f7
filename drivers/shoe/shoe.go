// Package shoe is the driver of the dealer's electronic card shoe: it reads the shoe's
// serial line in one of its wire formats (Format: the tablectl framed protocol, the ASCII
// line format, the scanner code format, the Bee-Tek stream; see docs/protocol.md) and
// reports each card drawn, each shoe signal and each fault as a device.Event. Beside each decoder is the encoder of the same
// format, which the simulator and the tests use. It knows no baccarat rules.
package shoe

import (
	"errors"
	"fmt"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
)

// Encoder writes what a shoe says, in one wire format: the device side, used by the
// simulator and the tests. A format that has no way to say a thing returns an error
// that wraps errors.ErrUnsupported, and writes nothing.
type Encoder interface {
	Card(c baccarat.Card) error
	CutCard() error
	ShoeEmpty() error
	Lid(open bool) error
	DoubleCard() error
	Heartbeat() error
	Fault(code byte, text string) error
	Hello(ident string) error
}

// BurnModeEncoder is an Encoder of a format whose shoe marks the cards it reads in its
// burn mode (Format.BurnMode).
type BurnModeEncoder interface {
	Encoder
	// BurnCard writes a card read in the shoe's burn mode.
	BurnCard(c baccarat.Card) error
}

// MisreadEncoder is an Encoder of a format whose shoe says when a card passed its reader
// and was not read.
type MisreadEncoder interface {
	Encoder
	// Misread writes that a card passed the reader and was not read.
	Misread() error
}

// cardsOnly is the part of Encoder that the formats able to say only cards share.
type cardsOnly struct{ format string }

func (c cardsOnly) unsupported(what string) error {
	return fmt.Errorf("%s format cannot say %s: %w", c.format, what, errors.ErrUnsupported)
}

// CutCard is not in the format.
func (c cardsOnly) CutCard() error { return c.unsupported("cut card") }

// ShoeEmpty is not in the format.
func (c cardsOnly) ShoeEmpty() error { return c.unsupported("shoe empty") }

// Lid is not in the format.
func (c cardsOnly) Lid(bool) error { return c.unsupported("lid") }

// DoubleCard is not in the format.
func (c cardsOnly) DoubleCard() error { return c.unsupported("double card") }

// Heartbeat is not in the format.
func (c cardsOnly) Heartbeat() error { return c.unsupported("heartbeat") }

// Fault is not in the format.
func (c cardsOnly) Fault(byte, string) error { return c.unsupported("fault") }

// Hello is not in the format.
func (c cardsOnly) Hello(string) error { return c.unsupported("hello") }

// Config is the shoe's configuration: its wire format and its port.
type Config struct {
	Format Format
	Port   device.Config
}

// Start checks cfg and starts the shoe driver on a real serial port (or a
// pseudo-terminal). The driver keeps trying to open the port until Close.
func Start(cfg Config, o device.Options) (*device.Driver, error) {
	dec, err := cfg.Format.NewDecoder()
	if err != nil {
		return nil, err
	}
	if err := cfg.Port.Validate(); err != nil {
		return nil, fmt.Errorf("shoe port: %w", err)
	}
	if o.Name == "" {
		o.Name = "shoe"
	}
	return device.Start(device.SerialOpener{Config: cfg.Port}, dec, o), nil
}
