package shoe

import (
	"fmt"
	"io"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
)

// CodeLen is the length of one scanner code.
const CodeLen = 5

// scannerSuits maps the scanner's suit digit to a suit: 1 spades, 2 hearts, 3 clubs,
// 4 diamonds.
var scannerSuits = [5]baccarat.Suit{0, baccarat.Spades, baccarat.Hearts, baccarat.Clubs, baccarat.Diamonds}

// ScannerDecoder decodes the scanner code format: five characters a card, the first of
// which is dropped, then the suit digit (1 spades, 2 hearts, 3 clubs, 4 diamonds), the
// rank as two digits 01 to 13, then '0'; "x1130" is the king of spades. CR and LF
// between codes are skipped. After damage the decoder slides forward a byte at a time
// to the next good code and reports the bytes skipped as one Unreadable event. The zero
// ScannerDecoder is ready to use.
type ScannerDecoder struct {
	buf     []byte
	off     int64 // stream offset of buf[0]
	bad     int   // damaged bytes not yet reported
	badOff  int64
	badWhy  string
	badCode []byte
}

// Decode implements device.Decoder.
func (d *ScannerDecoder) Decode(dst []device.Event, p []byte) []device.Event {
	d.buf = append(d.buf, p...)
	i := 0
	for len(d.buf)-i >= CodeLen {
		c, ok := scannerCard(d.buf[i : i+CodeLen])
		switch {
		case ok:
			dst = d.report(dst)
			dst = append(dst, device.Event{Kind: device.CardDrawn, Card: c})
			i += CodeLen
		case d.buf[i] == '\r' || d.buf[i] == '\n':
			i++
		default:
			d.damage(i, nil)
			i++
		}
	}
	d.off += int64(i)
	d.buf = append(d.buf[:0], d.buf[i:]...)
	return dst
}

// Flush implements device.Decoder: damage not yet reported and a code cut off by the line
// going down are reported.
func (d *ScannerDecoder) Flush(dst []device.Event) []device.Event {
	for i, b := range d.buf {
		if b != '\r' && b != '\n' {
			d.damage(i, fmt.Errorf("code cut off after %d bytes", len(d.buf)-i))
			d.bad += len(d.buf) - i - 1
			break
		}
	}
	d.off += int64(len(d.buf))
	d.buf = d.buf[:0]
	return d.report(dst)
}

// damage counts byte i of the buffer as unreadable; why nil means the code there is bad.
func (d *ScannerDecoder) damage(i int, why error) {
	if d.bad == 0 {
		if why == nil {
			_, why = ParseScanner(d.buf[i : i+CodeLen])
		}
		d.badOff, d.badWhy = d.off+int64(i), why.Error()
		d.badCode = append(d.badCode[:0], d.buf[i:min(i+CodeLen, len(d.buf))]...)
	}
	d.bad++
}

// report appends the damage counted so far as one event.
func (d *ScannerDecoder) report(dst []device.Event) []device.Event {
	if d.bad == 0 {
		return dst
	}
	dst = append(dst, device.Event{Kind: device.Unreadable,
		Reason: fmt.Sprintf("%d bytes at offset %d: %q: %s", d.bad, d.badOff, d.badCode, d.badWhy)})
	d.bad = 0
	return dst
}

// scannerCard is ParseScanner without the error, for speed over noise.
func scannerCard(code []byte) (baccarat.Card, bool) {
	s, hi, lo := code[1], code[2], code[3]
	if s < '1' || s > '4' || hi < '0' || hi > '1' || lo < '0' || lo > '9' || code[4] != '0' {
		return baccarat.Card{}, false
	}
	r := baccarat.Rank((hi-'0')*10 + lo - '0')
	return baccarat.NewCard(r, scannerSuits[s-'0']), r.Valid()
}

// ParseScanner reads one five-byte scanner code.
func ParseScanner(code []byte) (baccarat.Card, error) {
	if len(code) != CodeLen {
		return baccarat.Card{}, fmt.Errorf("code of %d bytes, want %d", len(code), CodeLen)
	}
	s := code[1]
	if s < '1' || s > '4' {
		return baccarat.Card{}, fmt.Errorf("suit digit %q is not 1 to 4", s)
	}
	hi, lo := code[2], code[3]
	if hi < '0' || hi > '1' || lo < '0' || lo > '9' {
		return baccarat.Card{}, fmt.Errorf("rank %q is not 01 to 13", code[2:4])
	}
	r := baccarat.Rank((hi-'0')*10 + lo - '0')
	if !r.Valid() {
		return baccarat.Card{}, fmt.Errorf("rank %q is not 01 to 13", code[2:4])
	}
	if code[4] != '0' {
		return baccarat.Card{}, fmt.Errorf("last byte %q is not '0'", code[4])
	}
	return baccarat.NewCard(r, scannerSuits[s-'0']), nil
}

// ScannerEncoder writes cards in the scanner code format, with Prefix as the dropped
// first character ('x' when zero). The format says nothing but cards.
type ScannerEncoder struct {
	W      io.Writer
	Prefix byte
	cardsOnly
}

// AppendScanner appends the code of c, with prefix as its first character, to dst.
func AppendScanner(dst []byte, prefix byte, c baccarat.Card) []byte {
	digit := byte('0')
	for i, s := range scannerSuits {
		if s == c.Suit && i > 0 {
			digit += byte(i)
		}
	}
	return append(dst, prefix, digit, '0'+byte(c.Rank)/10, '0'+byte(c.Rank)%10, '0')
}

// Card writes one code.
func (e *ScannerEncoder) Card(c baccarat.Card) error {
	if !c.Valid() {
		return fmt.Errorf("scanner: %d/%d is not a card", c.Rank, c.Suit)
	}
	p := e.Prefix
	if p == 0 {
		p = 'x'
	}
	var b [CodeLen]byte
	if _, err := e.W.Write(AppendScanner(b[:0], p, c)); err != nil {
		return fmt.Errorf("scanner: write %s: %w", c, err)
	}
	return nil
}
