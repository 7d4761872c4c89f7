package frame

import (
	"fmt"
	"io"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
)

// Version is the protocol version this package speaks (docs/protocol.md).
const Version = 1

// Message types common to every tablectl device (docs/protocol.md, "Common messages").
const (
	TypeHello     = 0x01 // device → host: version, device kind, identity text
	TypeHeartbeat = 0x02 // device → host: alive, sent at least once a second when idle
	TypeFault     = 0x03 // device → host: fault code, text
	TypeHostHello = 0x81 // host → device: version, host identity text; asks for a Hello
)

// CardCode is the one-byte code of a card: the suit in the high nibble (1 spades,
// 2 hearts, 3 diamonds, 4 clubs) and the rank in the low nibble (1 ace to 13 king); the
// king of spades is 0x1D.
func CardCode(c baccarat.Card) byte { return byte(c.Suit)<<4 | byte(c.Rank) }

// CardOf reads a card code; ok is false when b is not a card.
func CardOf(b byte) (c baccarat.Card, ok bool) {
	c = baccarat.NewCard(baccarat.Rank(b&0x0F), baccarat.Suit(b>>4))
	return c, c.Valid()
}

// Sequence follows a device's frame sequence numbers, which go up by one a frame and
// wrap from 65535 to 0. The zero Sequence knows no number yet and takes the first it is
// shown.
type Sequence struct {
	next    uint16
	known   bool
	damaged int
}

// Damaged notes that a damaged frame was reported since the last good one, so a gap it
// accounts for is not reported a second time.
func (s *Sequence) Damaged() { s.damaged++ }

// Sync takes seq as the device's current number with no check, as after a Hello.
func (s *Sequence) Sync(seq uint16) {
	s.next, s.known, s.damaged = seq+1, true, 0
}

// Check takes seq as the next frame's number and reports whether frames were lost in
// between (more than the damaged frames reported can account for), and the number due.
func (s *Sequence) Check(seq uint16) (expected uint16, gap bool) {
	if !s.known {
		s.Sync(seq)
		return seq, false
	}
	expected = s.next
	missing := int(seq - expected) // frames skipped, modulo 65536
	gap = seq != expected && (s.damaged == 0 || missing > s.damaged)
	s.Sync(seq)
	return expected, gap
}

// Decoder decodes the tablectl protocol into device events: it cuts frames, follows the
// sequence numbers, handles the common messages, and hands every other good frame to
// Message. It is a device.Decoder and a device.Greeter, and writes the host's frames:
// Greet the Host hello, numbered 0, and WriteHost the host's later frames on that
// connection, numbered 1, 2 and on. Decode and Flush share nothing with Greet and
// WriteHost, so the host may write from another goroutine than the one decoding, one
// write at a time.
type Decoder struct {
	// Message decodes a frame of a device-specific type, appending its events to dst. It
	// returns ok false for a type it does not know. The frame's payload is valid only
	// during the call.
	Message func(dst []device.Event, f Frame) (out []device.Event, ok bool)
	// Host names the host in its hello; empty means "tablectl".
	Host string

	split   Splitter
	seq     Sequence
	out     []device.Event
	hostSeq uint16 // the number of the host's next frame
}

// Decode implements device.Decoder.
func (d *Decoder) Decode(dst []device.Event, p []byte) []device.Event {
	d.out = dst
	d.split.Feed(p, d.frame, d.problem)
	return d.out
}

// Flush implements device.Decoder: a frame cut off by the line going down is reported.
func (d *Decoder) Flush(dst []device.Event) []device.Event {
	d.out = dst
	d.split.End(d.frame, d.problem)
	return d.out
}

// Greet implements device.Greeter: the host's hello, sent each time the port opens. It is
// the host's frame 0 on the connection.
func (d *Decoder) Greet(w io.Writer) error {
	host := d.Host
	if host == "" {
		host = "tablectl"
	}
	d.hostSeq = 1
	return Write(w, Frame{Type: TypeHostHello, Payload: append([]byte{Version}, host...)})
}

// WriteHost writes a host message of type typ to the device, numbered after the Host
// hello and the host's frames since (docs/protocol.md, "Sequence numbers").
func (d *Decoder) WriteHost(w io.Writer, typ byte, payload ...byte) error {
	f := Frame{Type: typ, Seq: d.hostSeq, Payload: payload}
	d.hostSeq++
	return Write(w, f)
}

func (d *Decoder) problem(p Problem) {
	if p.Frame {
		d.seq.Damaged()
	}
	d.out = append(d.out, device.Event{
		Kind:   device.Unreadable,
		Reason: fmt.Sprintf("%d bytes at offset %d: %s", p.Len, p.Offset, p.Reason),
	})
}

func (d *Decoder) frame(f Frame) {
	if f.Type == TypeHello {
		d.seq.Sync(f.Seq)
	} else if expected, gap := d.seq.Check(f.Seq); gap {
		d.out = append(d.out, device.Event{
			Kind: device.SeqGap, Seq: f.Seq, HasSeq: true, Expected: int(expected),
			Reason: fmt.Sprintf("%d frames lost", f.Seq-expected),
		})
	}
	start := len(d.out)
	switch f.Type {
	case TypeHello:
		if len(f.Payload) < 2 {
			d.out = append(d.out, Bad(f, "hello of %d bytes, want at least 2", len(f.Payload)))
			return
		}
		d.out = append(d.out, device.Event{Kind: device.Hello, Version: f.Payload[0], Text: printable(f.Payload[2:])})
	case TypeHeartbeat:
		d.out = append(d.out, device.Event{Kind: device.Heartbeat})
	case TypeFault:
		if len(f.Payload) < 1 {
			d.out = append(d.out, Bad(f, "fault with no code"))
			return
		}
		d.out = append(d.out, device.Event{Kind: device.Fault, Code: f.Payload[0], Text: printable(f.Payload[1:])})
	default:
		var ok bool
		if d.Message != nil {
			d.out, ok = d.Message(d.out, f)
		}
		if !ok {
			d.out = append(d.out[:start], Bad(f, "unknown message type 0x%02X", f.Type))
			return
		}
	}
	for i := start; i < len(d.out); i++ {
		d.out[i].Seq, d.out[i].HasSeq = f.Seq, true
	}
}

// Bad is the Unreadable event for a good frame whose content makes no sense, for
// example "frame type 0x10 at sequence 41: unreadable card code 0x5E".
func Bad(f Frame, format string, args ...any) device.Event {
	return device.Event{Kind: device.Unreadable, Seq: f.Seq, HasSeq: true,
		Reason: fmt.Sprintf("frame type 0x%02X at sequence %d: ", f.Type, f.Seq) + fmt.Sprintf(format, args...)}
}

// printable keeps the text of a payload readable in logs.
func printable(p []byte) string {
	b := make([]byte, 0, len(p))
	for _, c := range p {
		if c < 0x20 || c > 0x7E {
			c = '?'
		}
		b = append(b, c)
	}
	return string(b)
}

// Encoder writes tablectl frames with consecutive sequence numbers: the device side of
// the protocol, used by the simulator and the tests.
type Encoder struct {
	W   io.Writer
	Seq uint16 // the number the next frame gets
}

// Send writes one frame of type typ and advances the sequence number.
func (e *Encoder) Send(typ byte, payload ...byte) error {
	f := Frame{Type: typ, Seq: e.Seq, Payload: payload}
	e.Seq++
	return Write(e.W, f)
}

// Hello sends the device's hello: kind is 'S' for a shoe, 'F' for a shuffler.
func (e *Encoder) Hello(kind byte, ident string) error {
	return e.Send(TypeHello, append([]byte{Version, kind}, ident...)...)
}

// Heartbeat sends a heartbeat.
func (e *Encoder) Heartbeat() error { return e.Send(TypeHeartbeat) }

// Fault sends a device fault.
func (e *Encoder) Fault(code byte, text string) error {
	return e.Send(TypeFault, append([]byte{code}, text...)...)
}
