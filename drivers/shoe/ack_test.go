package shoe

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/frame"
)

// hostFrames cuts what the host wrote into frames, with their payloads copied.
func hostFrames(t *testing.T, b []byte) []frame.Frame {
	t.Helper()
	var s frame.Splitter
	var out []frame.Frame
	s.Feed(b, func(f frame.Frame) {
		f.Payload = bytes.Clone(f.Payload)
		out = append(out, f)
	}, func(p frame.Problem) { t.Fatalf("bad frame from the host: %+v", p) })
	s.End(func(frame.Frame) {}, func(p frame.Problem) { t.Fatalf("bad frame from the host: %+v", p) })
	return out
}

// TestHostAckRoundTrip writes Host acks with the host's decoder and reads them on the
// shoe's side (docs/protocol.md, "Acknowledgement and resend"): each carries the card
// number it was given, big-endian, across the wrap from 65535 to 0.
func TestHostAckRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	d := NewFramedDecoder()
	must(t, d.Greet(&buf))
	nos := []uint16{1, 30, 258, 65535, 0}
	for _, no := range nos {
		must(t, d.Ack(&buf, no))
	}
	fs := hostFrames(t, buf.Bytes())
	if len(fs) != len(nos)+1 || fs[0].Type != frame.TypeHostHello {
		t.Fatalf("host wrote %+v, want a hello and %d acks", fs, len(nos))
	}
	for i, no := range nos {
		f := fs[i+1]
		got, err := ParseHostAck(f)
		if err != nil || got != no || f.Seq != uint16(i+1) {
			t.Fatalf("ack %d: card %d seq %d err %v, want card %d seq %d", i, got, f.Seq, err, no, i+1)
		}
	}
}

// TestParseHostAckRejects checks that a frame that is not a Host ack of two bytes is an
// error naming what it is and where, never a card number.
func TestParseHostAckRejects(t *testing.T) {
	for _, c := range []struct {
		f    frame.Frame
		want string
	}{
		{frame.Frame{Type: TypeHostAck, Seq: 4, Payload: []byte{0}}, "host ack at sequence 4: 1 payload bytes, want 2"},
		{frame.Frame{Type: TypeHostAck, Seq: 5, Payload: []byte{0, 1, 2}}, "host ack at sequence 5: 3 payload bytes, want 2"},
		{frame.Frame{Type: frame.TypeHostHello, Seq: 0, Payload: []byte{0, 1}}, "frame type 0x81 at sequence 0: not a host ack"},
	} {
		if _, err := ParseHostAck(c.f); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ParseHostAck(%+v) = %v, want an error starting %q", c.f, err, c.want)
		}
	}
}

// TestEncoderKeepsUnacknowledgedCards checks the shoe's side of the acknowledgement
// (docs/protocol.md, "Acknowledgement and resend"): it keeps the cards not acknowledged;
// an ack drops that card and those before it, and an ack of a card it does not keep
// changes nothing; past 64 the oldest is dropped; the count wraps from 65535 to 0.
func TestEncoderKeepsUnacknowledgedCards(t *testing.T) {
	e := NewFramedEncoder(&bytes.Buffer{})
	for range 5 {
		must(t, e.Card(baccarat.MustParseCard("9H")))
	}
	checkNos(t, e.Unacked(), 1, 5)
	e.Ack(2)
	checkNos(t, e.Unacked(), 3, 5)
	e.Ack(2) // again: nothing left to drop
	e.Ack(9) // never sent
	checkNos(t, e.Unacked(), 3, 5)
	e.Ack(5)
	checkNos(t, e.Unacked(), 0, -1)

	for range 70 { // cards 6 to 75: the window holds the last 64
		must(t, e.Card(baccarat.MustParseCard("9H")))
	}
	checkNos(t, e.Unacked(), 12, 75)

	e = NewFramedEncoder(&bytes.Buffer{})
	e.CardNo = 65533
	for range 5 { // 65534, 65535, 0, 1, 2
		must(t, e.Card(baccarat.MustParseCard("9H")))
	}
	e.Ack(65535)
	if got := e.Unacked(); len(got) != 3 || got[0] != 0 || got[2] != 2 {
		t.Fatalf("after ack of 65535: %v, want [0 1 2]", got)
	}
}

// checkNos checks that nos is first, first+1, ..., last (empty when last < first).
func checkNos(t *testing.T, nos []uint16, first, last int) {
	t.Helper()
	if len(nos) != max(last-first+1, 0) {
		t.Fatalf("unacknowledged %v, want %d to %d", nos, first, last)
	}
	for i, no := range nos {
		if int(no) != first+i {
			t.Fatalf("unacknowledged %v, want %d to %d", nos, first, last)
		}
	}
}

// TestResendAfterHello plays a shoe whose host went away: the cards it did not
// acknowledge come again after the Hello, in order, with their numbers, card codes and
// flags, FlagResent set and new sequence numbers; the decoder reports them as cards with
// no sequence gap and nothing unreadable, and the count goes on after them. A card the
// host acknowledged is not sent again, at this hello or the next.
func TestResendAfterHello(t *testing.T) {
	var buf bytes.Buffer
	e := NewFramedEncoder(&buf)
	must(t, e.Hello("shoe"))
	must(t, e.Card(baccarat.MustParseCard("2C"))) // 1
	e.Flags = FlagReread
	must(t, e.Card(baccarat.MustParseCard("3C"))) // 2
	e.Flags = 0
	e.Ack(1)
	must(t, e.CutCard())
	must(t, e.Card(baccarat.MustParseCard("4C"))) // 3
	buf.Reset()                                   // the host was away: all of that is lost
	must(t, e.Hello("shoe"))
	must(t, e.Resend())
	must(t, e.Card(baccarat.MustParseCard("5C"))) // 4
	e.Ack(3)
	must(t, e.Hello("shoe")) // the host connects again: only card 4 is not acknowledged
	must(t, e.Resend())
	check(t, decode(t, "tablectl", buf.Bytes()),
		`hello version=1 "shoe" seq=5`,
		"card 3C flags=0x03 no=2 seq=6",
		"card 4C flags=0x02 no=3 seq=7",
		"card 5C no=4 seq=8",
		`hello version=1 "shoe" seq=9`,
		"card 5C flags=0x02 no=4 seq=10",
	)
}
