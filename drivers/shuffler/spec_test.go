package shuffler

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

// TestProtocolDocExamples checks the shuffler's byte examples of docs/protocol.md.
func TestProtocolDocExamples(t *testing.T) {
	order := make([]baccarat.Card, 416)
	for _, c := range []struct {
		name string
		seq  uint16
		send func(e *Encoder) error
		want string
	}{
		{"shuffle complete", 3, func(e *Encoder) error { return e.Shuffled(1001, 8, 416, nil) }, "02 0B 41 00 03 00 00 03 E9 08 01 A0 00 D9 0B 03"},
		{"count error", 7, func(e *Encoder) error { return e.CountError(1001, 416, 415) }, "02 0B 43 00 07 00 00 03 E9 01 A0 01 9F C0 95 03"},
		{"jam", 8, func(e *Encoder) error { return e.Jam(1001) }, "02 07 42 00 08 00 00 03 E9 70 50 03"},
		{"not shuffled", 9, func(e *Encoder) error { return e.NotShuffled(1001) }, "02 07 44 00 09 00 00 03 E9 7B 24 03"},
		{"order", 1, func(e *Encoder) error { return e.Shuffled(1001, 8, 416, order) }, "02 FD 40 00 01 00 00 03 E9 00 00 1D 21 3A"},
	} {
		var buf bytes.Buffer
		e := NewEncoder(&buf)
		e.Seq = c.seq
		order[0], order[1], order[2] = baccarat.MustParseCard("KS"), baccarat.MustParseCard("AH"), baccarat.MustParseCard("TD")
		if err := c.send(e); err != nil {
			t.Fatal(err)
		}
		want, err := hex.DecodeString(strings.ReplaceAll(c.want, " ", ""))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(buf.Bytes(), want) {
			t.Errorf("%s: encoded % X, the spec says % X", c.name, buf.Bytes()[:min(len(buf.Bytes()), len(want)+4)], want)
		}
	}
}
