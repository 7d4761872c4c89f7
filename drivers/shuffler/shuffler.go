// Package shuffler is the driver of the automatic card shuffler: it reads the shuffler's
// serial line in the tablectl protocol (docs/protocol.md, "Shuffler messages") and
// reports each shuffle completed (card-set identity, decks, card count and, when the
// shuffler sends it, the full order) and each fault (jam, count error, not shuffled) as a
// device.Event. Beside the decoder is the encoder of the shuffler's side, which the
// simulator and the tests use. It knows no baccarat rules.
package shuffler

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/frame"
)

// The shuffler's message types in the tablectl protocol.
const (
	TypeOrder       = 0x40 // set id (4), offset (2), card codes: part of a shuffled order
	TypeShuffled    = 0x41 // set id (4), decks (1), cards (2), flags (1): shuffle complete
	TypeJam         = 0x42 // set id (4)
	TypeCountError  = 0x43 // set id (4), cards expected (2), cards counted (2)
	TypeNotShuffled = 0x44 // set id (4)
)

// FlagOrderSent in a Shuffled message says the set's order was sent before it.
const FlagOrderSent = 0x01

// OrderChunk is the most cards one Order message carries.
const OrderChunk = frame.MaxPayload - 6

// Decoder decodes the shuffler's side of the tablectl protocol. It gathers the Order
// messages of a set and hands the order on with the set's ShuffleComplete event. It is a
// device.Decoder and a device.Greeter.
type Decoder struct {
	frame.Decoder
	set    uint32
	order  []baccarat.Card
	broken string // why the order being gathered cannot be used, or ""
}

// NewDecoder returns a shuffler decoder.
func NewDecoder() *Decoder {
	d := &Decoder{}
	d.Message = d.message
	return d
}

// payloadLen is the payload length of each message type (the least, for Order).
var payloadLen = map[byte]int{TypeOrder: 6, TypeShuffled: 8, TypeJam: 4, TypeCountError: 8, TypeNotShuffled: 4}

func (d *Decoder) message(dst []device.Event, f frame.Frame) ([]device.Event, bool) {
	p := f.Payload
	n, ok := payloadLen[f.Type]
	if !ok {
		return dst, false
	}
	if len(p) < n || (f.Type != TypeOrder && len(p) != n) {
		return append(dst, frame.Bad(f, "%d payload bytes, want %d", len(p), n)), true
	}
	set := binary.BigEndian.Uint32(p)
	switch f.Type {
	case TypeOrder:
		return d.orderPart(dst, f, set, int(binary.BigEndian.Uint16(p[4:])), p[6:]), true
	case TypeShuffled:
		e := device.Event{Kind: device.ShuffleComplete, SetID: set, Decks: int(p[4]), Cards: int(binary.BigEndian.Uint16(p[5:]))}
		if p[7]&FlagOrderSent != 0 {
			switch {
			case d.broken != "" && d.set == set:
				dst = append(dst, frame.Bad(f, "order of set %d unusable: %s", set, d.broken))
			case d.set != set || len(d.order) != e.Cards:
				have := len(d.order)
				if d.set != set {
					have = 0
				}
				dst = append(dst, frame.Bad(f, "order of set %d incomplete: %d of %d cards", set, have, e.Cards))
			default:
				e.Order = d.order
			}
		}
		d.order, d.broken, d.set = nil, "", 0
		return append(dst, e), true
	case TypeJam:
		return append(dst, device.Event{Kind: device.ShufflerJam, SetID: set}), true
	case TypeCountError:
		return append(dst, device.Event{Kind: device.CountError, SetID: set,
			Expected: int(binary.BigEndian.Uint16(p[4:])), Cards: int(binary.BigEndian.Uint16(p[6:]))}), true
	case TypeNotShuffled:
		return append(dst, device.Event{Kind: device.NotShuffled, SetID: set}), true
	}
	return dst, false
}

// orderPart adds one Order message to the order being gathered.
func (d *Decoder) orderPart(dst []device.Event, f frame.Frame, set uint32, offset int, codes []byte) []device.Event {
	if offset == 0 {
		d.set, d.order, d.broken = set, nil, ""
	}
	if d.broken != "" {
		return dst
	}
	if set != d.set || offset != len(d.order) {
		d.broken = fmt.Sprintf("part at card %d of set %d does not follow card %d of set %d", offset, set, len(d.order), d.set)
		return append(dst, frame.Bad(f, "%s", d.broken))
	}
	for i, b := range codes {
		c, ok := frame.CardOf(b)
		if !ok {
			d.broken = fmt.Sprintf("card %d is code 0x%02X, not a card", offset+i, b)
			return append(dst, frame.Bad(f, "order of set %d: %s", set, d.broken))
		}
		d.order = append(d.order, c)
	}
	return dst
}

// Encoder writes the shuffler's side of the tablectl protocol.
type Encoder struct{ frame.Encoder }

// NewEncoder returns an encoder writing to w, starting at sequence number 0.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{frame.Encoder{W: w}} }

// Hello sends the shuffler's hello.
func (e *Encoder) Hello(ident string) error { return e.Encoder.Hello('F', ident) }

// Shuffled reports a shuffle complete: set id, decks and the number of cards the shuffler
// counted; when order is not nil it is sent first, in parts of at most OrderChunk cards.
func (e *Encoder) Shuffled(set uint32, decks, cards int, order []baccarat.Card) error {
	var flags byte
	if order != nil {
		flags = FlagOrderSent
		for off := 0; off < len(order); off += OrderChunk {
			part := order[off:min(off+OrderChunk, len(order))]
			p := binary.BigEndian.AppendUint32(make([]byte, 0, 6+len(part)), set)
			p = binary.BigEndian.AppendUint16(p, uint16(off))
			for _, c := range part {
				p = append(p, frame.CardCode(c))
			}
			if err := e.Send(TypeOrder, p...); err != nil {
				return err
			}
		}
	}
	p := binary.BigEndian.AppendUint32(nil, set)
	p = append(p, byte(decks))
	p = binary.BigEndian.AppendUint16(p, uint16(cards))
	return e.Send(TypeShuffled, append(p, flags)...)
}

// Jam reports a jam.
func (e *Encoder) Jam(set uint32) error {
	return e.Send(TypeJam, binary.BigEndian.AppendUint32(nil, set)...)
}

// CountError reports a set whose card count is wrong.
func (e *Encoder) CountError(set uint32, expected, counted int) error {
	p := binary.BigEndian.AppendUint32(nil, set)
	p = binary.BigEndian.AppendUint16(p, uint16(expected))
	return e.Send(TypeCountError, binary.BigEndian.AppendUint16(p, uint16(counted))...)
}

// NotShuffled reports a set that left the shuffler unshuffled.
func (e *Encoder) NotShuffled(set uint32) error {
	return e.Send(TypeNotShuffled, binary.BigEndian.AppendUint32(nil, set)...)
}

// Start checks port and starts the shuffler driver on a real serial port (or a
// pseudo-terminal). The driver keeps trying to open the port until Close.
func Start(port device.Config, o device.Options) (*device.Driver, error) {
	if err := port.Validate(); err != nil {
		return nil, fmt.Errorf("shuffler port: %w", err)
	}
	if o.Name == "" {
		o.Name = "shuffler"
	}
	return device.Start(device.SerialOpener{Config: port}, NewDecoder(), o), nil
}
