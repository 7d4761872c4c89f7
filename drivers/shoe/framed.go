package shoe

import (
	"encoding/binary"
	"fmt"
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

	// TypeHostAck is the host's message to the shoe acknowledging the cards it has
	// recorded: payload the card number (CARDNO, 2 bytes) of the last of them
	// (docs/protocol.md, "Acknowledgement and resend").
	TypeHostAck = 0x90
)

// Flag bits of a Card drawn message.
const (
	// FlagReread marks a card the shoe's reader read only at a second attempt.
	FlagReread = 0x01
	// FlagResent marks a card the shoe sends again because the host had not acknowledged
	// it when it said hello: the host may have it already.
	FlagResent = 0x02
)

// CardPayload is the length of a Card drawn message's payload: the card code (1 byte),
// the flags (1) and the card number, big-endian (2).
const CardPayload = 4

// AckPayload is the length of a Host ack's payload: the card number, big-endian.
const AckPayload = 2

// ResendWindow is how many unacknowledged cards a shoe keeps to send again: past it the
// oldest is dropped, and the host sees the gap in the card numbers.
const ResendWindow = 64

// FramedDecoder decodes the shoe's messages in the tablectl protocol and writes the
// host's: its Host hello when the port opens, and a Host ack for each card recorded. It is
// a device.Decoder, a device.Greeter and a device.Acker.
type FramedDecoder struct {
	frame.Decoder
}

var _ device.Acker = (*FramedDecoder)(nil)

// NewFramedDecoder returns a decoder of the shoe's messages in the tablectl protocol.
func NewFramedDecoder() *FramedDecoder {
	return &FramedDecoder{frame.Decoder{Message: shoeMessage}}
}

// Ack implements device.Acker: it writes a Host ack of the cards up to and with number
// cardNo, the last the host has recorded.
func (d *FramedDecoder) Ack(w io.Writer, cardNo uint16) error {
	return d.WriteHost(w, TypeHostAck, byte(cardNo>>8), byte(cardNo))
}

// ParseHostAck reads the card number a Host ack frame acknowledges: the shoe's side of
// Ack. It is an error when f is not a Host ack of the right length.
func ParseHostAck(f frame.Frame) (uint16, error) {
	if f.Type != TypeHostAck {
		return 0, fmt.Errorf("frame type 0x%02X at sequence %d: not a host ack (0x%02X)", f.Type, f.Seq, TypeHostAck)
	}
	if len(f.Payload) != AckPayload {
		return 0, fmt.Errorf("host ack at sequence %d: %d payload bytes, want %d (card number)", f.Seq, len(f.Payload), AckPayload)
	}
	return binary.BigEndian.Uint16(f.Payload), nil
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
// (CardNo), and neither count starts again when it says Hello. It keeps the last
// ResendWindow cards the host has not acknowledged (Ack) to send them again (Resend).
type FramedEncoder struct {
	frame.Encoder
	// Flags are sent with each card.
	Flags byte
	// CardNo is the number of the last card sent, 0 before the first: the next card is
	// numbered CardNo+1, wrapping from 65535 to 0.
	CardNo uint16

	unacked []sentCard // oldest first
}

// sentCard is a Card drawn message kept until the host acknowledges it.
type sentCard struct {
	code, flags byte
	no          uint16
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
	sent := sentCard{code: frame.CardCode(c), flags: e.Flags, no: e.CardNo}
	if len(e.unacked) == ResendWindow {
		e.unacked = append(e.unacked[:0], e.unacked[1:]...)
	}
	e.unacked = append(e.unacked, sent)
	return e.send(sent)
}

func (e *FramedEncoder) send(c sentCard) error {
	return e.Send(TypeCard, c.code, c.flags, byte(c.no>>8), byte(c.no))
}

// Ack takes the host's acknowledgement of the cards up to and with number cardNo: they
// are not sent again. An acknowledgement of a card the shoe does not hold (one already
// acknowledged, or dropped past ResendWindow) changes nothing.
func (e *FramedEncoder) Ack(cardNo uint16) {
	for i, c := range e.unacked {
		if c.no == cardNo {
			e.unacked = append(e.unacked[:0], e.unacked[i+1:]...)
			return
		}
	}
}

// Unacked returns the numbers of the cards the host has not acknowledged, oldest first.
func (e *FramedEncoder) Unacked() []uint16 {
	nos := make([]uint16, len(e.unacked))
	for i, c := range e.unacked {
		nos[i] = c.no
	}
	return nos
}

// Resend sends again, in order, every card the host has not acknowledged, with its card
// number and flags and FlagResent, each in a new frame with the next sequence number: a
// shoe does so after the Hello it answers a Host hello with.
func (e *FramedEncoder) Resend() error {
	for _, c := range e.unacked {
		c.flags |= FlagResent
		if err := e.send(c); err != nil {
			return fmt.Errorf("resend card %d: %w", c.no, err)
		}
	}
	return nil
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
