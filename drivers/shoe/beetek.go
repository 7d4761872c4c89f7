package shoe

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
)

// BeeTekMaxFrame is the longest Bee-Tek frame the decoder takes, mode and brackets
// included: a longer one is damage.
const BeeTekMaxFrame = 96

// The Bee-Tek shoe's modes, as its frames name them.
const (
	BeeTekGame      = "Game"              // cards read in play
	BeeTekBurn      = "Manual Burn Cards" // cards read in the shoe's burn mode
	BeeTekGameAlarm = "GameAlarm"         // an alarm
)

// BeeTekDecoder decodes the Bee-Tek electronic shoe's ASCII stream (docs/protocol.md,
// "The Bee-Tek stream"). A message is a frame: the shoe's mode in square brackets, then a
// body in angle brackets, "[Game]<Card:4S>"; a warning may come without a mode, "<W0x01>".
// Frames may or may not be followed by CR LF, so the decoder works on a rolling buffer
// and finds each frame by its brackets:
//
//   - "[Game]<Card:4S>": a card read in play; the rank (2-9, T or 10, J, Q, K, A) and the
//     suit (S, H, D, C) in either order, either case ("<Card:h3>", "<Card:10d>");
//   - a mode with "Burn" in it, "[Manual Burn Cards]<Card:KD>": a card read in the shoe's
//     burn mode (Event.Burn);
//   - "[Game]<Game>": a card passed the reader and was not read (Unreadable, Misread);
//   - "<Alarm:TEXT>" in any mode, and "<W0xHH>": the shoe's alarms and warnings (Fault,
//     with the frame, verbatim, as Text, and as Code the alarm's number after E or the
//     warning's hex code).
//
// Anything else is reported Unreadable, never as a card: bytes between frames (but CR, LF,
// space and tab) as noise; a frame cut off, too long, or holding a byte that is not text;
// a card frame with no mode or an unknown one, or a card that cannot be named. Damage in a
// frame that began as a card's (in a card mode, or with a body starting "C") is marked
// Misread: a card may have passed. The zero BeeTekDecoder is ready to use.
type BeeTekDecoder struct {
	state   beetekState
	frame   []byte // the frame being read, as it came
	modeEnd int    // len(frame) when its mode ended; 0 when it has none
	frameAt int64  // stream offset of the frame being read
	off     int64  // stream offset of the next byte

	noise   []byte // noise not yet reported (its first bytes, for the reason)
	noiseN  int
	noiseAt int64
}

type beetekState uint8

const (
	btBetween   beetekState = iota // between frames
	btMode                         // inside [ ]
	btAfterMode                    // after ], waiting for <
	btBody                         // inside < >
)

// Decode implements device.Decoder.
func (d *BeeTekDecoder) Decode(dst []device.Event, p []byte) []device.Event {
	for _, b := range p {
		dst = d.byte(dst, b)
	}
	return dst
}

// space is what may stand between frames, and between a mode and its body.
func space(b byte) bool { return b == '\r' || b == '\n' || b == ' ' || b == '\t' }

func (d *BeeTekDecoder) byte(dst []device.Event, b byte) []device.Event {
	switch d.state {
	case btBetween:
		switch {
		case b == '[' || b == '<':
			dst = d.report(dst)
			d.state, d.frameAt, d.modeEnd = btMode, d.off, 0
			if b == '<' {
				d.state = btBody
			}
			d.frame = append(d.frame[:0], b)
		case space(b):
		default:
			if d.noiseN == 0 {
				d.noiseAt, d.noise = d.off, d.noise[:0]
			}
			if len(d.noise) < 16 {
				d.noise = append(d.noise, b)
			}
			d.noiseN++
		}
		d.off++
		return dst
	case btAfterMode:
		switch {
		case b == '<':
			d.state = btBody
			d.frame = append(d.frame, b)
		case space(b):
		default:
			return d.damaged(dst, b, fmt.Sprintf("%q after the mode, want '<'", b))
		}
		d.off++
		return dst
	}
	// Inside the brackets of a mode or a body.
	switch {
	case d.state == btMode && b == ']':
		d.frame = append(d.frame, b)
		d.state, d.modeEnd = btAfterMode, len(d.frame)
	case d.state == btBody && b == '>':
		d.frame = append(d.frame, b)
		dst = append(dst, d.decodeFrame())
		d.state = btBetween
	case b == '[' || b == '<':
		return d.damaged(dst, b, fmt.Sprintf("cut off by the start of another frame (%q)", b))
	case b == '\r' || b == '\n':
		return d.damaged(dst, b, "cut off by a line end")
	case b < 0x20 || b > 0x7E:
		return d.damaged(dst, b, fmt.Sprintf("byte 0x%02X is not text", b))
	case len(d.frame) >= BeeTekMaxFrame:
		return d.damaged(dst, b, fmt.Sprintf("longer than %d bytes", BeeTekMaxFrame))
	default:
		d.frame = append(d.frame, b)
	}
	d.off++
	return dst
}

// Flush implements device.Decoder: noise not yet reported and a frame cut off by the line
// going down are reported.
func (d *BeeTekDecoder) Flush(dst []device.Event) []device.Event {
	if d.state != btBetween {
		dst = append(dst, d.bad("cut off before its end"))
		d.state = btBetween
	}
	return d.report(dst)
}

// damaged reports the frame being read as damaged by byte b, then reads b again between
// frames: a '[' or '<' starts the next frame, a line end is skipped, anything else is
// noise.
func (d *BeeTekDecoder) damaged(dst []device.Event, b byte, why string) []device.Event {
	dst = append(dst, d.bad(why))
	d.state = btBetween
	return d.byte(dst, b)
}

// report appends the noise counted so far as one event.
func (d *BeeTekDecoder) report(dst []device.Event) []device.Event {
	if d.noiseN == 0 {
		return dst
	}
	more := ""
	if d.noiseN > len(d.noise) {
		more = "..."
	}
	dst = append(dst, device.Event{Kind: device.Unreadable,
		Reason: fmt.Sprintf("%d bytes at offset %d: %q%s: noise between frames", d.noiseN, d.noiseAt, d.noise, more)})
	d.noiseN = 0
	return dst
}

// parts splits the frame read into its mode (empty when none) and its body, without
// brackets; body is what was read of it when the frame is not whole. Both share the
// frame's bytes.
func (d *BeeTekDecoder) parts() (mode, body []byte) {
	f := d.frame
	switch {
	case d.modeEnd > 0:
		mode, f = f[1:d.modeEnd-1], f[d.modeEnd:]
	case d.state == btMode:
		return f[1:], nil
	}
	f = bytes.TrimPrefix(f, []byte("<"))
	return mode, bytes.TrimSuffix(f, []byte(">"))
}

// foldPrefix says whether b begins with p (upper case), without regard to case.
func foldPrefix(b []byte, p string) bool {
	return len(b) >= len(p) && bytes.EqualFold(b[:len(p)], []byte(p))
}

// foldContains says whether b holds p (upper case), without regard to case.
func foldContains(b []byte, p string) bool {
	for i := 0; i+len(p) <= len(b); i++ {
		if bytes.EqualFold(b[i:i+len(p)], []byte(p)) {
			return true
		}
	}
	return false
}

// bad is the Unreadable event of the frame being read, damaged for the reason why. It is
// a misread when what was read of the frame can still be a card's: a body that begins
// as "Card:" does, or, in a card mode, one that is empty or begins as "Game" (a failed
// read).
func (d *BeeTekDecoder) bad(why string) device.Event {
	mode, body := d.parts()
	mk := beetekMode(mode)
	// prefix: body begins as p, or p begins with what was read of body.
	prefix := func(p string) bool {
		n := min(len(body), len(p))
		return bytes.EqualFold(body[:n], []byte(p[:n]))
	}
	misread := len(body) > 0 && prefix("CARD:") && mk != modeAlarm ||
		(mk == modeGame || mk == modeBurn) && (len(body) == 0 || prefix("GAME"))
	return device.Event{Kind: device.Unreadable, Misread: misread,
		Reason: fmt.Sprintf("frame at offset %d: %q: %s", d.frameAt, d.frame, why)}
}

type modeKind uint8

const (
	modeNone  modeKind = iota // no mode given
	modeGame                  // in play
	modeBurn                  // the shoe's burn mode
	modeAlarm                 // an alarm
	modeOther                 // a mode not known
)

// beetekMode classifies a frame's mode, without regard to case.
func beetekMode(mode []byte) modeKind {
	switch {
	case len(mode) == 0:
		return modeNone
	case bytes.EqualFold(mode, []byte(BeeTekGame)):
		return modeGame
	case foldContains(mode, "ALARM"):
		return modeAlarm
	case foldContains(mode, "BURN"):
		return modeBurn
	}
	return modeOther
}

// decodeFrame decodes the whole frame just read.
func (d *BeeTekDecoder) decodeFrame() device.Event {
	mode, body := d.parts()
	mk := beetekMode(mode)
	where := d.bad
	switch {
	case foldPrefix(body, "CARD:"):
		text := body[len("Card:"):]
		c, ok := beetekCard(text)
		switch {
		case !ok:
			_, err := ParseBeeTekCard(string(text))
			e := where(err.Error())
			e.Misread = mk != modeAlarm
			return e
		case mk == modeNone:
			return where(fmt.Sprintf("card %s with no mode: in play or burned is not known", c))
		case mk == modeOther || mk == modeAlarm:
			return where(fmt.Sprintf("card %s in unknown mode %q", c, mode))
		}
		return device.Event{Kind: device.CardDrawn, Card: c, Burn: mk == modeBurn}
	case bytes.EqualFold(body, []byte("GAME")) && (mk == modeGame || mk == modeBurn):
		e := where("the shoe failed to read a card")
		e.Misread, e.Burn = true, mk == modeBurn
		return e
	case foldPrefix(body, "ALARM:"):
		return device.Event{Kind: device.Fault, Code: alarmCode(string(body[len("Alarm:"):])), Text: string(d.frame)}
	case mk != modeAlarm && foldPrefix(body, "W0X"):
		code, err := strconv.ParseUint(string(body[3:]), 16, 8)
		if err != nil {
			return where(fmt.Sprintf("warning code %q is not one or two hex digits", body[3:]))
		}
		return device.Event{Kind: device.Fault, Code: uint8(code), Text: string(d.frame)}
	}
	e := where("not a card, a failed read, an alarm or a warning")
	e.Misread = false // a whole frame of another kind: it says nothing of a card
	return e
}

// beetekCard is ParseBeeTekCard on bytes, without the error: the decoder's hot path.
func beetekCard(text []byte) (baccarat.Card, bool) {
	if len(text) < 2 || len(text) > 3 {
		return baccarat.Card{}, false
	}
	last := len(text) - 1
	if s, ok := baccarat.ParseSuit(string(text[last:])); ok {
		if r, ok := baccarat.ParseRank(string(text[:last])); ok {
			return baccarat.NewCard(r, s), true
		}
	}
	if s, ok := baccarat.ParseSuit(string(text[:1])); ok {
		if r, ok := baccarat.ParseRank(string(text[1:])); ok {
			return baccarat.NewCard(r, s), true
		}
	}
	return baccarat.Card{}, false
}

// alarmCode is the number of an alarm's text "E3 Card Not Read": 3; 0 when it has none.
func alarmCode(text string) uint8 {
	text = strings.TrimSpace(text)
	if len(text) < 2 || (text[0] != 'E' && text[0] != 'e') {
		return 0
	}
	end := 1
	for end < len(text) && text[end] >= '0' && text[end] <= '9' {
		end++
	}
	n, err := strconv.ParseUint(text[1:end], 10, 8)
	if err != nil {
		return 0
	}
	return uint8(n)
}

// ParseBeeTekCard reads the card of a Bee-Tek card frame, the text after "Card:": the
// rank then the suit, or the suit then the rank, either case, the ten as T or 10: "4S",
// "H3", "td", "10C", "c10".
func ParseBeeTekCard(text string) (baccarat.Card, error) {
	if c, ok := beetekCard([]byte(text)); ok {
		return c, nil
	}
	if len(text) < 2 || len(text) > 3 {
		return baccarat.Card{}, fmt.Errorf("card %q: want a rank and a suit, such as 4S or H3", text)
	}
	return baccarat.Card{}, fmt.Errorf("card %q: want a rank (2-9, T or 10, J, Q, K, A) and a suit (S, H, D, C)", text)
}

// BeeTekEncoder writes what a Bee-Tek shoe says: cards in play and in its burn mode,
// failed reads, alarms and warnings. The options choose among the ways units are known to
// write: the suit first, lower case, the ten as "10", CR LF after each frame. The format
// has no cut card, shoe empty, lid, double card, heartbeat or hello.
type BeeTekEncoder struct {
	W         io.Writer
	SuitFirst bool // "<Card:H3>" instead of "<Card:3H>"
	Lower     bool // "<Card:3h>"
	Ten10     bool // "10" for the ten instead of "T"
	CRLF      bool // CR LF after each frame
}

// AppendBeeTekCard appends the frame of c, read in mode, to dst.
func (e *BeeTekEncoder) AppendBeeTekCard(dst []byte, mode string, c baccarat.Card) []byte {
	rank, suit := c.Rank.String(), c.Suit.String()
	if e.Ten10 && c.Rank == baccarat.Ten {
		rank = "10"
	}
	card := rank + suit
	if e.SuitFirst {
		card = suit + rank
	}
	if e.Lower {
		card = strings.ToLower(card)
	}
	dst = append(dst, '[')
	dst = append(dst, mode...)
	dst = append(dst, "]<Card:"...)
	dst = append(dst, card...)
	dst = append(dst, '>')
	return e.end(dst)
}

func (e *BeeTekEncoder) end(dst []byte) []byte {
	if e.CRLF {
		dst = append(dst, '\r', '\n')
	}
	return dst
}

func (e *BeeTekEncoder) write(what string, b []byte) error {
	if _, err := e.W.Write(b); err != nil {
		return fmt.Errorf("beetek: write %s: %w", what, err)
	}
	return nil
}

// Card writes a card read in play.
func (e *BeeTekEncoder) Card(c baccarat.Card) error {
	if !c.Valid() {
		return fmt.Errorf("beetek: %d/%d is not a card", c.Rank, c.Suit)
	}
	return e.write(c.String(), e.AppendBeeTekCard(nil, BeeTekGame, c))
}

// BurnCard writes a card read in the shoe's burn mode.
func (e *BeeTekEncoder) BurnCard(c baccarat.Card) error {
	if !c.Valid() {
		return fmt.Errorf("beetek: %d/%d is not a card", c.Rank, c.Suit)
	}
	return e.write("burn card "+c.String(), e.AppendBeeTekCard(nil, BeeTekBurn, c))
}

// Misread writes a failed read: a card passed the reader and was not read.
func (e *BeeTekEncoder) Misread() error {
	return e.write("failed read", e.end([]byte("[Game]<Game>")))
}

// Fault writes an alarm, "[GameAlarm]<Alarm:E3 Card Not Read>" for code 3 and text
// "Card Not Read"; with no text, a warning, "<W0x03>".
func (e *BeeTekEncoder) Fault(code byte, text string) error {
	if text == "" {
		return e.write("warning", e.end(fmt.Appendf(nil, "<W0x%02X>", code)))
	}
	if strings.ContainsAny(text, "[]<>\r\n") {
		return fmt.Errorf("beetek: alarm text %q holds a bracket or a line end", text)
	}
	return e.write("alarm", e.end(fmt.Appendf(nil, "[%s]<Alarm:E%d %s>", BeeTekGameAlarm, code, text)))
}

func (e *BeeTekEncoder) unsupported(what string) error {
	return fmt.Errorf("beetek format cannot say %s: %w", what, errors.ErrUnsupported)
}

// CutCard is not in the format.
func (e *BeeTekEncoder) CutCard() error { return e.unsupported("cut card") }

// ShoeEmpty is not in the format.
func (e *BeeTekEncoder) ShoeEmpty() error { return e.unsupported("shoe empty") }

// Lid is not in the format.
func (e *BeeTekEncoder) Lid(bool) error { return e.unsupported("lid") }

// DoubleCard is not in the format.
func (e *BeeTekEncoder) DoubleCard() error { return e.unsupported("double card") }

// Heartbeat is not in the format.
func (e *BeeTekEncoder) Heartbeat() error { return e.unsupported("heartbeat") }

// Hello is not in the format.
func (e *BeeTekEncoder) Hello(string) error { return e.unsupported("hello") }
