package shoe

import (
	"fmt"
	"io"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
)

// MaxLine is the longest line the ASCII decoder accepts, without its line end.
const MaxLine = 16

// ASCIIDecoder decodes the ASCII line format of common smart shoes (9600 baud): one card
// a line, the suit letter (c, d, h, s, either case) then the rank (A, 2-10 or T, J, Q, K,
// either case), the line ending in CR LF, for example "SA\r\n", "h10\r\n", "DT\r\n". A CR
// or an LF alone also ends a line; empty lines are skipped. The zero ASCIIDecoder is
// ready to use.
type ASCIIDecoder struct {
	line   []byte
	n      int  // lines read, for naming where a bad one is
	tooNew bool // the line being read is already too long
	over   int  // bytes of the too-long line
}

// Decode implements device.Decoder.
func (d *ASCIIDecoder) Decode(dst []device.Event, p []byte) []device.Event {
	for _, b := range p {
		if b == '\r' || b == '\n' {
			dst = d.end(dst)
			continue
		}
		if d.tooNew {
			d.over++
			continue
		}
		if len(d.line) == MaxLine {
			d.tooNew, d.over = true, len(d.line)+1
			continue
		}
		d.line = append(d.line, b)
	}
	return dst
}

// Flush implements device.Decoder: a line cut off by the line going down is reported.
func (d *ASCIIDecoder) Flush(dst []device.Event) []device.Event {
	if len(d.line) == 0 && !d.tooNew {
		return dst
	}
	d.n++
	dst = append(dst, device.Event{Kind: device.Unreadable,
		Reason: fmt.Sprintf("line %d cut off before its end: %q", d.n, d.line)})
	d.line, d.tooNew = d.line[:0], false
	return dst
}

// end handles a line end.
func (d *ASCIIDecoder) end(dst []device.Event) []device.Event {
	if len(d.line) == 0 && !d.tooNew {
		return dst // empty line, or the LF of CR LF
	}
	d.n++
	defer func() { d.line, d.tooNew = d.line[:0], false }()
	if d.tooNew {
		return append(dst, device.Event{Kind: device.Unreadable,
			Reason: fmt.Sprintf("line %d: %d bytes, longer than %d", d.n, d.over, MaxLine)})
	}
	c, err := ParseASCII(d.line)
	if err != nil {
		return append(dst, device.Event{Kind: device.Unreadable, Reason: fmt.Sprintf("line %d: %v", d.n, err)})
	}
	return append(dst, device.Event{Kind: device.CardDrawn, Card: c})
}

// ParseASCII reads one line of the ASCII format, without its line end.
func ParseASCII(line []byte) (baccarat.Card, error) {
	for _, b := range line {
		if b < 0x20 || b > 0x7E {
			return baccarat.Card{}, fmt.Errorf("%q is not text", line)
		}
	}
	if len(line) < 2 {
		return baccarat.Card{}, fmt.Errorf("%q is not a suit letter then a rank", line)
	}
	s, ok := baccarat.ParseSuit(string(line[:1]))
	if !ok {
		return baccarat.Card{}, fmt.Errorf("unknown suit %q in %q", line[:1], line)
	}
	r, ok := baccarat.ParseRank(string(line[1:]))
	if !ok {
		return baccarat.Card{}, fmt.Errorf("unknown rank %q in %q", line[1:], line)
	}
	return baccarat.NewCard(r, s), nil
}

// ASCIIEncoder writes cards in the ASCII line format: upper-case suit letter, rank (T for
// ten), CR LF. The format says nothing but cards.
type ASCIIEncoder struct {
	W io.Writer
	cardsOnly
}

// AppendASCII appends the line of c, with its CR LF, to dst.
func AppendASCII(dst []byte, c baccarat.Card) []byte {
	return append(dst, c.Suit.String()[0], c.Rank.String()[0], '\r', '\n')
}

// Card writes one card line.
func (e *ASCIIEncoder) Card(c baccarat.Card) error {
	if !c.Valid() {
		return fmt.Errorf("ascii: %d/%d is not a card", c.Rank, c.Suit)
	}
	var b [4]byte
	if _, err := e.W.Write(AppendASCII(b[:0], c)); err != nil {
		return fmt.Errorf("ascii: write %s: %w", c, err)
	}
	return nil
}
