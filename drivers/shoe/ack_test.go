package shoe

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
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

// TestHostAckRoundTrip writes Host acks and Host signal acks with the host's decoder and
// reads them on the shoe's side (docs/protocol.md, "Acknowledgement and resend"): each
// carries the card or signal number it was given, big-endian, across the wrap from 65535
// to 0; an event with neither number is not acknowledged.
func TestHostAckRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	d := NewFramedDecoder()
	must(t, d.Greet(&buf))
	card := func(no uint16) device.Event { return device.Event{Kind: device.CardDrawn, CardNo: no, HasCardNo: true} }
	signal := func(no uint16) device.Event {
		return device.Event{Kind: device.CutCard, SignalNo: no, HasSignalNo: true}
	}
	evs := []device.Event{card(1), signal(1), card(30), card(258), signal(65535), card(65535), signal(0), card(0)}
	for _, ev := range evs {
		must(t, d.Ack(&buf, ev))
	}
	if err := d.Ack(&buf, device.Event{Kind: device.Heartbeat}); err == nil || !strings.Contains(err.Error(), "no card or signal number") {
		t.Fatalf("Ack of a heartbeat: %v, want an error", err)
	}
	fs := hostFrames(t, buf.Bytes())
	if len(fs) != len(evs)+1 || fs[0].Type != frame.TypeHostHello {
		t.Fatalf("host wrote %+v, want a hello and %d acks", fs, len(evs))
	}
	for i, ev := range evs {
		f := fs[i+1]
		got, sig, err := ParseHostAck(f)
		want := ev.CardNo
		if ev.HasSignalNo {
			want = ev.SignalNo
		}
		if err != nil || got != want || sig != ev.HasSignalNo || f.Seq != uint16(i+1) {
			t.Fatalf("ack %d: number %d signal %v seq %d err %v, want %s seq %d", i, got, sig, f.Seq, err, ev, i+1)
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
		{frame.Frame{Type: TypeHostAck, Seq: 5, Payload: []byte{0, 1, 2}}, "host ack at sequence 5: 3 payload bytes, want 2 (card number)"},
		{frame.Frame{Type: TypeHostSignalAck, Seq: 6, Payload: nil}, "host ack at sequence 6: 0 payload bytes, want 2 (signal number)"},
		{frame.Frame{Type: frame.TypeHostHello, Seq: 0, Payload: []byte{0, 1}}, "frame type 0x81 at sequence 0: not a host ack"},
	} {
		if _, _, err := ParseHostAck(c.f); err == nil || !strings.HasPrefix(err.Error(), c.want) {
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
	if got := strings.Join(e.Unacked(), ","); got != "card 0,card 1,card 2" {
		t.Fatalf("after ack of 65535: %v, want cards 0, 1, 2", got)
	}
}

// checkNos checks that the cards not acknowledged are first, first+1, ..., last (none
// when last < first).
func checkNos(t *testing.T, got []string, first, last int) {
	t.Helper()
	var want []string
	for no := first; no <= last; no++ {
		want = append(want, fmt.Sprintf("card %d", no))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("unacknowledged %v, want %v", got, want)
	}
}

// TestEncoderKeepsUnacknowledgedSignals checks that signals are kept with the cards, in
// the order sent, each counted apart: a Host signal ack drops that signal and the
// signals before it, never a card, and a Host ack drops cards, never a signal.
func TestEncoderKeepsUnacknowledgedSignals(t *testing.T) {
	e := NewFramedEncoder(&bytes.Buffer{})
	must(t, e.Card(baccarat.MustParseCard("9H"))) // card 1
	must(t, e.CutCard())                          // signal 1
	must(t, e.Card(baccarat.MustParseCard("9H"))) // card 2
	must(t, e.Lid(true))                          // signal 2
	must(t, e.Lid(false))                         // signal 3
	must(t, e.Card(baccarat.MustParseCard("9H"))) // card 3
	must(t, e.ShoeEmpty())                        // signal 4
	must(t, e.DoubleCard())                       // signal 5
	check := func(want string) {
		t.Helper()
		if got := strings.Join(e.Unacked(), ","); got != want {
			t.Fatalf("unacknowledged %s, want %s", got, want)
		}
	}
	check("card 1,signal 1,card 2,signal 2,signal 3,card 3,signal 4,signal 5")
	e.AckSignal(2)
	check("card 1,card 2,signal 3,card 3,signal 4,signal 5")
	e.Ack(2)
	check("signal 3,card 3,signal 4,signal 5")
	e.AckSignal(9) // never sent
	e.Ack(1)       // acknowledged already
	check("signal 3,card 3,signal 4,signal 5")
	e.AckSignal(5)
	check("card 3")
}

// TestResendAfterHello plays a shoe whose host went away: the cards and signals it did
// not acknowledge come again after the Hello, in order, with their numbers, card codes
// and flags, FlagResent set and new sequence numbers; the decoder reports them with no
// sequence gap and nothing unreadable, and the counts go on after them. What the host
// acknowledged is not sent again, at this hello or the next.
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
	must(t, e.ShoeEmpty())                        // signal 2
	e.Ack(3)
	e.AckSignal(1)
	must(t, e.Hello("shoe")) // the host connects again: card 4 and signal 2 are not acknowledged
	must(t, e.Resend())
	check(t, decode(t, "tablectl", buf.Bytes()),
		`hello version=1 "shoe" seq=5`,
		"card 3C flags=0x03 no=2 seq=6",
		"cut-card flags=0x02 no=1 seq=7",
		"card 4C flags=0x02 no=3 seq=8",
		"card 5C no=4 seq=9",
		"shoe-empty no=2 seq=10",
		`hello version=1 "shoe" seq=11`,
		"card 5C flags=0x02 no=4 seq=12",
		"shoe-empty flags=0x02 no=2 seq=13",
	)
}

// TestFramedMisread: a card the tablectl shoe could not read is a Card drawn with the
// code UnreadCode and the next card number (docs/protocol.md, "Card codes"). The host
// reads it as unreadable with that number, kept for its acknowledgement like a card, and
// the next card takes the number after it.
func TestFramedMisread(t *testing.T) {
	var buf bytes.Buffer
	e := NewFramedEncoder(&buf)
	must(t, e.Card(baccarat.MustParseCard("9H")))
	must(t, e.Misread())
	must(t, e.Card(baccarat.MustParseCard("KS")))
	checkNos(t, e.Unacked(), 1, 3)
	check(t, decode(t, "tablectl", buf.Bytes()),
		"card 9H no=1 seq=0",
		"unreadable seq=1: frame type 0x10 at sequence 1: unreadable card code 0x00, card number 2",
		"card KS no=3 seq=2")
	d, _ := Format("tablectl").NewDecoder()
	evs := d.Decode(nil, buf.Bytes())
	if len(evs) != 3 || !evs[1].HasCardNo || evs[1].CardNo != 2 {
		t.Fatalf("the unread card: %+v, want it unreadable with card number 2", evs)
	}
}
