package frame

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
)

func TestCRC16CheckValue(t *testing.T) {
	// The catalogued check value of CRC-16/CCITT-FALSE.
	if got := CRC16([]byte("123456789")); got != 0x29B1 {
		t.Fatalf("CRC16(123456789) = 0x%04X, want 0x29B1", got)
	}
}

func TestAppendBytes(t *testing.T) {
	// The worked example of docs/protocol.md: the king of spades, sequence 41.
	b, err := Append(nil, Frame{Type: 0x10, Seq: 41, Payload: []byte{0x1D, 0x00}})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x02, 0x05, 0x10, 0x00, 0x29, 0x1D, 0x00}
	crc := CRC16(want[1:])
	want = append(want, byte(crc>>8), byte(crc), 0x03)
	if !bytes.Equal(b, want) {
		t.Fatalf("frame % X, want % X", b, want)
	}
	if _, err := Append(nil, Frame{Payload: make([]byte, MaxPayload+1)}); err == nil {
		t.Fatal("an over-long payload was framed")
	}
}

// split runs a Splitter over chunks and prints what it found, one line each.
func split(chunks ...[]byte) []string {
	var s Splitter
	var out []string
	frame := func(f Frame) { out = append(out, fmt.Sprintf("frame %02X seq=%d % X", f.Type, f.Seq, f.Payload)) }
	problem := func(p Problem) {
		out = append(out, fmt.Sprintf("problem %d+%d frame=%t: %s", p.Offset, p.Len, p.Frame, p.Reason))
	}
	for _, c := range chunks {
		s.Feed(c, frame, problem)
	}
	s.End(frame, problem)
	return out
}

func mustFrame(t testing.TB, typ byte, seq uint16, payload ...byte) []byte {
	b, err := Append(nil, Frame{Type: typ, Seq: seq, Payload: payload})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSplitterFindsFramesAmongDamage(t *testing.T) {
	good1 := mustFrame(t, 0x10, 1, 0x1D, 0)
	good2 := mustFrame(t, 0x11, 2)
	corrupt := mustFrame(t, 0x10, 3, 0x21, 0)
	corrupt[5] ^= 0xFF // the card byte: checksum no longer matches
	var stream []byte
	stream = append(stream, 'n', 'o', 'i', 's', 'e')
	stream = append(stream, good1...)
	stream = append(stream, corrupt...)
	stream = append(stream, good2...)
	stream = append(stream, STX, 0x09, 0x10) // cut off by the end of input
	got := split(stream)
	want := []string{
		"problem 0+5 frame=false: noise between frames",
		"frame 10 seq=1 1D 00",
		fmt.Sprintf("problem 15+10 frame=true: bad checksum 0x%04X, want 0x%04X",
			uint16(corrupt[7])<<8|uint16(corrupt[8]), CRC16(corrupt[1:7])),
		"frame 11 seq=2 ",
		"problem 33+3 frame=true: frame cut off after 3 bytes",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSplitterFindsFrameInsideFalseStart(t *testing.T) {
	// A noise STX with a long length swallows a real frame; the real frame is still found.
	good := mustFrame(t, 0x10, 7, 0x1D, 0)
	stream := append([]byte{STX, 200}, good...)
	got := split(stream)
	want := []string{
		"problem 0+2 frame=true: frame cut off after 12 bytes",
		"frame 10 seq=7 1D 00",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSplitterIgnoresHowStreamIsCut(t *testing.T) {
	var stream []byte
	stream = append(stream, mustFrame(t, 0x10, 1, 0x1D, 0)...)
	stream = append(stream, 0xFF, STX, STX, 0x01)
	stream = append(stream, mustFrame(t, 0x12, 2)...)
	whole := split(stream)
	var bytewise [][]byte
	for i := range stream {
		bytewise = append(bytewise, stream[i:i+1])
	}
	if got := split(bytewise...); strings.Join(got, "\n") != strings.Join(whole, "\n") {
		t.Fatalf("byte by byte\n%s\nin one piece\n%s", strings.Join(got, "\n"), strings.Join(whole, "\n"))
	}
}

func TestSequence(t *testing.T) {
	var s Sequence
	if _, gap := s.Check(65534); gap {
		t.Fatal("first number seen is a gap")
	}
	if _, gap := s.Check(65535); gap {
		t.Fatal("65534 then 65535 is a gap")
	}
	if _, gap := s.Check(0); gap {
		t.Fatal("wrap to 0 is a gap")
	}
	if exp, gap := s.Check(3); !gap || exp != 1 {
		t.Fatalf("0 then 3: expected %d gap %t, want 1 true", exp, gap)
	}
	s.Damaged()
	if _, gap := s.Check(5); gap {
		t.Fatal("one damaged frame between 3 and 5 is reported again as a gap")
	}
	s.Damaged()
	if exp, gap := s.Check(8); !gap || exp != 6 {
		t.Fatalf("one damaged frame between 5 and 8: expected %d gap %t, want 6 true", exp, gap)
	}
}

func TestCardCodes(t *testing.T) {
	if got := CardCode(baccarat.MustParseCard("KS")); got != 0x1D {
		t.Fatalf("KS code 0x%02X, want 0x1D", got)
	}
	n := 0
	for b := 0; b < 256; b++ {
		c, ok := CardOf(byte(b))
		if !ok {
			continue
		}
		n++
		if CardCode(c) != byte(b) {
			t.Fatalf("code 0x%02X reads as %s which codes as 0x%02X", b, c, CardCode(c))
		}
	}
	if n != 52 {
		t.Fatalf("%d codes are cards, want 52", n)
	}
}

func TestDecoderCommonMessages(t *testing.T) {
	var buf bytes.Buffer
	e := Encoder{W: &buf, Seq: 10}
	if err := e.Hello('S', "shoe 1.0"); err != nil {
		t.Fatal(err)
	}
	_ = e.Heartbeat()
	_ = e.Fault(7, "reader dirty")
	_ = e.Send(0x77)          // unknown type
	e.Seq++                   // one frame lost
	_ = e.Send(TypeHeartbeat) // seq 15
	d := &Decoder{}
	got := d.Decode(nil, buf.Bytes())
	want := []string{
		`hello version=1 "shoe 1.0" seq=10`,
		`heartbeat seq=11`,
		`fault code=7 "reader dirty" seq=12`,
		`unreadable seq=13: frame type 0x77 at sequence 13: unknown message type 0x77`,
		`seq-gap expected=14 seq=15: 1 frames lost`,
		`heartbeat seq=15`,
	}
	if s := eventLines(got); s != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", s, strings.Join(want, "\n"))
	}
	var greet bytes.Buffer
	if err := d.Greet(&greet); err != nil {
		t.Fatal(err)
	}
	var s Splitter
	var hello Frame
	s.Feed(greet.Bytes(), func(f Frame) { hello = f; hello.Payload = bytes.Clone(f.Payload) }, func(p Problem) { t.Fatal(p) })
	if hello.Type != TypeHostHello || string(hello.Payload) != "\x01tablectl" {
		t.Fatalf("host hello %+v", hello)
	}
}

func eventLines(evs []device.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, e.String())
	}
	return strings.Join(s, "\n")
}

// TestHostFramesNumbered checks the host's frame numbers (docs/protocol.md, "Sequence
// numbers"): the Host hello is frame 0 at each opening of the port, and the host's
// frames after it go on from 1.
func TestHostFramesNumbered(t *testing.T) {
	var buf bytes.Buffer
	d := &Decoder{}
	for range 2 { // two openings of the port
		if err := d.Greet(&buf); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := d.WriteHost(&buf, 0x90, 0, 7); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := split(buf.Bytes())
	want := []string{
		"frame 81 seq=0 01 74 61 62 6C 65 63 74 6C", "frame 90 seq=1 00 07", "frame 90 seq=2 00 07",
		"frame 81 seq=0 01 74 61 62 6C 65 63 74 6C", "frame 90 seq=1 00 07", "frame 90 seq=2 00 07",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
