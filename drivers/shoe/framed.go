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
	TypeCard = 0x10 // payload: card code, flags, card number (CARDNO, 2 bytes)[, shoe time (SHOETIME, 4 bytes)]

	// The signals: payload flags, signal number (SIGNO, 2 bytes).
	TypeCutCard    = 0x11 // the cut card was reached
	TypeShoeEmpty  = 0x12 // no card left in the shoe
	TypeLidOpened  = 0x13
	TypeLidClosed  = 0x14
	TypeDoubleCard = 0x15 // two cards sensed at once

	// TypeHostAck is the host's message to the shoe acknowledging the cards it has
	// recorded: payload the card number (CARDNO, 2 bytes) of the last of them
	// (docs/protocol.md, "Acknowledgement and resend").
	TypeHostAck = 0x90
	// TypeHostSignalAck acknowledges the signals the host has recorded: payload the
	// signal number (SIGNO, 2 bytes) of the last of them.
	TypeHostSignalAck = 0x91
)

// Flag bits of a Card drawn message and of a signal.
const (
	// FlagReread marks a card the shoe's reader read only at a second attempt.
	FlagReread = 0x01
	// FlagResent marks a card or signal the shoe sends again because the host had not
	// acknowledged it when it said hello: the host may have it already.
	FlagResent = 0x02
)

// CardPayload is the length of a Card drawn message's payload: the card code (1 byte),
// the flags (1) and the card number, big-endian (2).
const CardPayload = 4

// StampedCardPayload is the length of the payload of a Card drawn message that carries
// the shoe's time: CardPayload, then the shoe's clock when it read the card, in
// milliseconds, big-endian (4) (docs/protocol.md, "Shoe time").
const StampedCardPayload = CardPayload + 4

// SignalPayload is the length of a signal's payload: the flags (1 byte) and the signal
// number, big-endian (2).
const SignalPayload = 3

// AckPayload is the length of a Host ack's payload, and of a Host signal ack's: the
// card or signal number, big-endian.
const AckPayload = 2

// ResendWindow is how many unacknowledged cards and signals a shoe keeps to send again:
// past it the oldest is dropped, and the host sees the gap in the card or signal numbers.
const ResendWindow = 64

// FramedDecoder decodes the shoe's messages in the tablectl protocol and writes the
// host's: its Host hello when the port opens, and a Host ack or Host signal ack for each
// card or signal recorded. It is a device.Decoder, a device.Greeter and a device.Acker.
type FramedDecoder struct {
	frame.Decoder
}

var _ device.Acker = (*FramedDecoder)(nil)

// NewFramedDecoder returns a decoder of the shoe's messages in the tablectl protocol.
func NewFramedDecoder() *FramedDecoder {
	return &FramedDecoder{frame.Decoder{Message: shoeMessage}}
}

// Ack implements device.Acker: for a card (ev.HasCardNo) it writes a Host ack of the
// cards up to and with its number, for a signal (ev.HasSignalNo) a Host signal ack of the
// signals up to and with its number; ev is the last the host has recorded.
func (d *FramedDecoder) Ack(w io.Writer, ev device.Event) error {
	switch {
	case ev.HasCardNo:
		return d.WriteHost(w, TypeHostAck, byte(ev.CardNo>>8), byte(ev.CardNo))
	case ev.HasSignalNo:
		return d.WriteHost(w, TypeHostSignalAck, byte(ev.SignalNo>>8), byte(ev.SignalNo))
	}
	return fmt.Errorf("%s has no card or signal number to acknowledge", ev.Kind)
}

// ParseHostAck reads a Host ack or Host signal ack frame: the shoe's side of Ack. signal
// says which it is, no the card or signal number it acknowledges. It is an error when f
// is neither, or not of the right length.
func ParseHostAck(f frame.Frame) (no uint16, signal bool, err error) {
	if f.Type != TypeHostAck && f.Type != TypeHostSignalAck {
		return 0, false, fmt.Errorf("frame type 0x%02X at sequence %d: not a host ack (0x%02X or 0x%02X)",
			f.Type, f.Seq, TypeHostAck, TypeHostSignalAck)
	}
	signal = f.Type == TypeHostSignalAck
	if len(f.Payload) != AckPayload {
		what := "card number"
		if signal {
			what = "signal number"
		}
		return 0, false, fmt.Errorf("host ack at sequence %d: %d payload bytes, want %d (%s)", f.Seq, len(f.Payload), AckPayload, what)
	}
	return binary.BigEndian.Uint16(f.Payload), signal, nil
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
		if len(p) != CardPayload && len(p) != StampedCardPayload {
			return append(dst, frame.Bad(f, "card message of %d payload bytes, want %d (card code, flags, card number) or %d (and shoe time)",
				len(p), CardPayload, StampedCardPayload)), true
		}
		no := binary.BigEndian.Uint16(p[2:4])
		var ms uint32
		stamped := len(p) == StampedCardPayload
		if stamped {
			ms = binary.BigEndian.Uint32(p[4:])
		}
		c, ok := frame.CardOf(p[0])
		if !ok {
			// A card left the shoe and was counted, but is not known: the event keeps its
			// number, so the host can tell an unreadable card from a lost one.
			e := frame.Bad(f, "unreadable card code 0x%02X, card number %d", p[0], no)
			e.CardNo, e.HasCardNo, e.Flags, e.Resent = no, true, p[1], p[1]&FlagResent != 0
			return append(dst, e), true
		}
		return append(dst, device.Event{Kind: device.CardDrawn, Card: c, Flags: p[1], Resent: p[1]&FlagResent != 0,
			CardNo: no, HasCardNo: true, ShoeTime: ms, HasShoeTime: stamped}), true
	}
	k, ok := signals[f.Type]
	if !ok {
		return dst, false
	}
	p := f.Payload
	if len(p) != SignalPayload {
		return append(dst, frame.Bad(f, "%s message of %d payload bytes, want %d (flags, signal number)",
			k, len(p), SignalPayload)), true
	}
	return append(dst, device.Event{Kind: k, Flags: p[0], Resent: p[0]&FlagResent != 0,
		SignalNo: binary.BigEndian.Uint16(p[1:]), HasSignalNo: true}), true
}

// FramedEncoder writes the shoe's side of the tablectl protocol. One FramedEncoder is one
// shoe from its power-up: it numbers its frames (Seq) and, apart from them, its cards
// (CardNo) and its signals (SignalNo), and no count starts again when it says Hello. It
// keeps the last ResendWindow cards and signals the host has not acknowledged (Ack,
// AckSignal) to send them again (Resend).
type FramedEncoder struct {
	frame.Encoder
	// Flags are sent with each card.
	Flags byte
	// CardNo is the number of the last card sent, 0 before the first: the next card is
	// numbered CardNo+1, wrapping from 65535 to 0.
	CardNo uint16
	// SignalNo is the number of the last signal sent (cut card, shoe empty, lid, double
	// card), counted like CardNo.
	SignalNo uint16
	// Clock, when set, is the shoe's clock in milliseconds: each card is stamped with it
	// as it is read, and a card sent again keeps its stamp (docs/protocol.md, "Shoe
	// time"). Nil sends cards without a time, as a shoe of protocol version 1 does.
	Clock func() uint32

	unacked []sent // oldest first
}

// sent is a Card drawn message or a signal, kept until the host acknowledges it.
type sent struct {
	typ, code, flags byte // code only for a card
	no               uint16
	ms               uint32 // the shoe's time, for a card when stamped
	stamped          bool
}

func (m sent) card() bool { return m.typ == TypeCard }

// NewFramedEncoder returns an encoder writing to w, starting at sequence number 0, card
// number 1 and signal number 1.
func NewFramedEncoder(w io.Writer) *FramedEncoder {
	return &FramedEncoder{Encoder: frame.Encoder{W: w}}
}

// Card sends a card drawn with the next card number. The card is counted, and kept to
// send again, even when the write fails, as a shoe counts every card that leaves it
// whether or not the host reads the message.
func (e *FramedEncoder) Card(c baccarat.Card) error {
	e.CardNo++
	m := sent{typ: TypeCard, code: frame.CardCode(c), flags: e.Flags, no: e.CardNo}
	if e.Clock != nil {
		m.ms, m.stamped = e.Clock(), true
	}
	return e.keep(m)
}

// UnreadCode is the card code the tablectl format's shoe sends for a card that passed
// its reader and could not be read: no card has it (docs/protocol.md, "Card codes").
const UnreadCode byte = 0x00

// Misread sends a card that passed the reader and could not be read: a Card drawn with
// the next card number and the code UnreadCode. It is counted and kept like any card.
func (e *FramedEncoder) Misread() error {
	e.CardNo++
	m := sent{typ: TypeCard, code: UnreadCode, flags: e.Flags, no: e.CardNo}
	if e.Clock != nil {
		m.ms, m.stamped = e.Clock(), true
	}
	return e.keep(m)
}

// signal sends a signal of type typ with the next signal number, kept like a card.
func (e *FramedEncoder) signal(typ byte) error {
	e.SignalNo++
	return e.keep(sent{typ: typ, no: e.SignalNo})
}

func (e *FramedEncoder) keep(m sent) error {
	if len(e.unacked) == ResendWindow {
		e.unacked = append(e.unacked[:0], e.unacked[1:]...)
	}
	e.unacked = append(e.unacked, m)
	return e.send(m)
}

func (e *FramedEncoder) send(m sent) error {
	if m.card() && m.stamped {
		return e.Send(TypeCard, m.code, m.flags, byte(m.no>>8), byte(m.no),
			byte(m.ms>>24), byte(m.ms>>16), byte(m.ms>>8), byte(m.ms))
	}
	if m.card() {
		return e.Send(TypeCard, m.code, m.flags, byte(m.no>>8), byte(m.no))
	}
	return e.Send(m.typ, m.flags, byte(m.no>>8), byte(m.no))
}

// Ack takes the host's acknowledgement of the cards up to and with number cardNo: they
// are not sent again. An acknowledgement of a card the shoe does not hold (one already
// acknowledged, or dropped past ResendWindow) changes nothing.
func (e *FramedEncoder) Ack(cardNo uint16) { e.ack(true, cardNo) }

// AckSignal takes the host's acknowledgement of the signals up to and with number
// signalNo, as Ack does for cards.
func (e *FramedEncoder) AckSignal(signalNo uint16) { e.ack(false, signalNo) }

func (e *FramedEncoder) ack(card bool, no uint16) {
	last := -1
	for i, m := range e.unacked {
		if m.card() == card && m.no == no {
			last = i
			break
		}
	}
	kept := e.unacked[:0]
	for i, m := range e.unacked {
		if i > last || m.card() != card {
			kept = append(kept, m)
		}
	}
	e.unacked = kept
}

// Unacked lists what the host has not acknowledged, oldest first: "card 31", "signal 4".
func (e *FramedEncoder) Unacked() []string {
	out := make([]string, len(e.unacked))
	for i, m := range e.unacked {
		what := "signal"
		if m.card() {
			what = "card"
		}
		out[i] = fmt.Sprintf("%s %d", what, m.no)
	}
	return out
}

// Resend sends again, in order, every card and signal the host has not acknowledged,
// with its number and flags and FlagResent, each in a new frame with the next sequence
// number: a shoe does so after the Hello it answers a Host hello with.
func (e *FramedEncoder) Resend() error {
	for _, m := range e.unacked {
		m.flags |= FlagResent
		if err := e.send(m); err != nil {
			what := "signal"
			if m.card() {
				what = "card"
			}
			return fmt.Errorf("resend %s %d: %w", what, m.no, err)
		}
	}
	return nil
}

// CutCard sends the cut card reached.
func (e *FramedEncoder) CutCard() error { return e.signal(TypeCutCard) }

// ShoeEmpty sends the shoe empty.
func (e *FramedEncoder) ShoeEmpty() error { return e.signal(TypeShoeEmpty) }

// Lid sends the lid opened or closed.
func (e *FramedEncoder) Lid(open bool) error {
	if open {
		return e.signal(TypeLidOpened)
	}
	return e.signal(TypeLidClosed)
}

// DoubleCard sends a double card sensed.
func (e *FramedEncoder) DoubleCard() error { return e.signal(TypeDoubleCard) }

// Hello sends the shoe's hello.
func (e *FramedEncoder) Hello(ident string) error { return e.Encoder.Hello('S', ident) }
