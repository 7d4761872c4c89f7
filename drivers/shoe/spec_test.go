package shoe

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

// unhex reads bytes written as in docs/protocol.md, "02 05 10 ...".
func unhex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestProtocolDocExamples checks the byte examples of docs/protocol.md against the
// encoders, so the specification and the code cannot drift apart.
func TestProtocolDocExamples(t *testing.T) {
	for _, c := range []struct {
		name string
		seq  uint16
		send func(e *FramedEncoder) error
		want string
	}{
		{"hello", 0, func(e *FramedEncoder) error { return e.Hello("ACME-7") }, "02 0B 01 00 00 01 53 41 43 4D 45 2D 37 70 02 03"},
		{"king of spades", 41, func(e *FramedEncoder) error { return e.Card(baccarat.MustParseCard("KS")) }, "02 05 10 00 29 1D 00 24 33 03"},
		{"cut card", 42, (*FramedEncoder).CutCard, "02 03 11 00 2A EE 67 03"},
		{"heartbeat", 43, func(e *FramedEncoder) error { return e.Heartbeat() }, "02 03 02 00 2B E4 75 03"},
		{"shoe empty", 44, (*FramedEncoder).ShoeEmpty, "02 03 12 00 2C D7 F1 03"},
		{"fault", 45, func(e *FramedEncoder) error { return e.Fault(7, "jam") }, "02 07 03 00 2D 07 6A 61 6D 8F FD 03"},
	} {
		var buf bytes.Buffer
		e := NewFramedEncoder(&buf)
		e.Seq = c.seq
		if err := c.send(e); err != nil {
			t.Fatal(err)
		}
		if want := unhex(t, c.want); !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: encoded % X, the spec says % X", c.name, buf.Bytes(), want)
		}
	}
	var greet bytes.Buffer
	if err := NewFramedDecoder().Greet(&greet); err != nil {
		t.Fatal(err)
	}
	if want := unhex(t, "02 0C 81 00 00 01 74 61 62 6C 65 63 74 6C D8 A2 03"); !bytes.Equal(greet.Bytes(), want) {
		t.Errorf("host hello % X, the spec says % X", greet.Bytes(), want)
	}
	check(t, decode(t, "ascii", unhex(t, "53 41 0D 0A 68 31 30 0D 0A")), "card AS", "card TH")
	check(t, decode(t, "scanner", unhex(t, "78 31 31 33 30 78 34 31 30 30")), "card KS", "card TD")
}
