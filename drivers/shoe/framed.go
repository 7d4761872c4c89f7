package shoe

import (
	"io"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/frame"
)

// The shoe's message types in the tablectl protocol (docs/protocol.md, "Shoe messages").
const (
	TypeCard       = 0x10 // payload: card code, flags
	TypeCutCard    = 0x11 // the cut card was reached
	TypeShoeEmpty  = 0x12 // no card left in the shoe
	TypeLidOpened  = 0x13
	TypeLidClosed  = 0x14
	TypeDoubleCard = 0x15 // two cards sensed at once
)

// FlagReread marks a card the shoe's reader read only at a second attempt.
const FlagReread = 0x01

// NewFramedDecoder returns a decoder of the shoe's messages in the tablectl protocol.
func NewFramedDecoder() *frame.Decoder {
	return &frame.Decoder{Message: shoeMessage}
}

var signals = map[byte]device.Kind{
	TypeCutCard:    device.CutCard,
	TypeShoeEmpty:  device.ShoeEmpty,
	TypeLidOpened:  device.LidOpened,
	TypeLidClosed:  device.LidClosed,
	TypeDoubleCard: device.DoubleCard,
}

// shoeMessage decodes the shoe's own message types.
func shoeMessage(dst []device.Event, f frame.Frame) ([]device.Event, bool) {
	if f.Type == TypeCard {
		if len(f.Payload) != 2 {
			return append(dst, frame.Bad(f, "card message of %d payload bytes, want 2", len(f.Payload))), true
		}
		c, ok := frame.CardOf(f.Payload[0])
		if !ok {
			return append(dst, frame.Bad(f, "unreadable card code 0x%02X", f.Payload[0])), true
		}
		return append(dst, device.Event{Kind: device.CardDrawn, Card: c, Flags: f.Payload[1]}), true
	}
	k, ok := signals[f.Type]
	if !ok {
		return dst, false
	}
	if len(f.Payload) != 0 {
		return append(dst, frame.Bad(f, "%s message with %d payload bytes, want none", k, len(f.Payload))), true
	}
	return append(dst, device.Event{Kind: k}), true
}

// FramedEncoder writes the shoe's side of the tablectl protocol.
type FramedEncoder struct {
	frame.Encoder
	// Flags are sent with each card.
	Flags byte
}

// NewFramedEncoder returns an encoder writing to w, starting at sequence number 0.
func NewFramedEncoder(w io.Writer) *FramedEncoder {
	return &FramedEncoder{Encoder: frame.Encoder{W: w}}
}

// Card sends a card drawn.
func (e *FramedEncoder) Card(c baccarat.Card) error {
	return e.Send(TypeCard, frame.CardCode(c), e.Flags)
}

// CutCard sends the cut card reached.
func (e *FramedEncoder) CutCard() error { return e.Send(TypeCutCard) }

// ShoeEmpty sends the shoe empty.
func (e *FramedEncoder) ShoeEmpty() error { return e.Send(TypeShoeEmpty) }

// Lid sends the lid opened or closed.
func (e *FramedEncoder) Lid(open bool) error {
	if open {
		return e.Send(TypeLidOpened)
	}
	return e.Send(TypeLidClosed)
}

// DoubleCard sends a double card sensed.
func (e *FramedEncoder) DoubleCard() error { return e.Send(TypeDoubleCard) }

// Hello sends the shoe's hello.
func (e *FramedEncoder) Hello(ident string) error { return e.Encoder.Hello('S', ident) }
