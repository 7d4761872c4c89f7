package shoe

import (
	"encoding/binary"
	"io"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/frame"
)

// The shoe's message types in the tablectl protocol (docs/protocol.md, "Shoe messages").
const (
	TypeCard       = 0x10 // payload: card code, flags, card number (CARDNO, 2 bytes)
	TypeCutCard    = 0x11 // the cut card was reached
	TypeShoeEmpty  = 0x12 // no card left in the shoe
	TypeLidOpened  = 0x13
	TypeLidClosed  = 0x14
	TypeDoubleCard = 0x15 // two cards sensed at once
)

// FlagReread marks a card the shoe's reader read only at a second attempt.
const FlagReread = 0x01

// CardPayload is the length of a Card drawn message's payload: the card code (1 byte),
// the flags (1) and the card number, big-endian (2).
const CardPayload = 4

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
		p := f.Payload
		if len(p) != CardPayload {
			return append(dst, frame.Bad(f, "card message of %d payload bytes, want %d (card code, flags, card number)",
				len(p), CardPayload)), true
		}
		no := binary.BigEndian.Uint16(p[2:])
		c, ok := frame.CardOf(p[0])
		if !ok {
			// A card left the shoe and was counted, but is not known: the event keeps its
			// number, so the host can tell an unreadable card from a lost one.
			e := frame.Bad(f, "unreadable card code 0x%02X, card number %d", p[0], no)
			e.CardNo, e.HasCardNo = no, true
			return append(dst, e), true
		}
		return append(dst, device.Event{Kind: device.CardDrawn, Card: c, Flags: p[1], CardNo: no, HasCardNo: true}), true
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

// FramedEncoder writes the shoe's side of the tablectl protocol. One FramedEncoder is one
// shoe from its power-up: it numbers its frames (Seq) and, apart from them, its cards
// (CardNo), and neither count starts again when it says Hello.
type FramedEncoder struct {
	frame.Encoder
	// Flags are sent with each card.
	Flags byte
	// CardNo is the number of the last card sent, 0 before the first: the next card is
	// numbered CardNo+1, wrapping from 65535 to 0.
	CardNo uint16
}

// NewFramedEncoder returns an encoder writing to w, starting at sequence number 0 and
// card number 1.
func NewFramedEncoder(w io.Writer) *FramedEncoder {
	return &FramedEncoder{Encoder: frame.Encoder{W: w}}
}

// Card sends a card drawn with the next card number. The card is counted even when the
// write fails, as a shoe counts every card that leaves it whether or not the host reads
// the message.
func (e *FramedEncoder) Card(c baccarat.Card) error {
	e.CardNo++
	return e.Send(TypeCard, frame.CardCode(c), e.Flags, byte(e.CardNo>>8), byte(e.CardNo))
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
