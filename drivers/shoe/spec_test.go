package shoe

import (
	"bytes"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
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
// encoders and the decoder, and that each is in the document, so the specification and
// the code cannot drift apart.
func TestProtocolDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	inDoc := func(example string) {
		t.Helper()
		if !bytes.Contains(doc, []byte("    "+example+"\n")) {
			t.Errorf("docs/protocol.md has no example line %q", example)
		}
	}
	for _, c := range []struct {
		name  string
		seq   uint16
		no    uint16 // the number of the card (for a signal: the signal) sent before
		flags byte
		send  func(e *FramedEncoder) error
		want  string
		event string // what the decoder reports for it
	}{
		{"hello", 0, 0, 0, func(e *FramedEncoder) error { return e.Hello("ACME-7") },
			"02 0B 01 00 00 01 53 41 43 4D 45 2D 37 70 02 03", `hello version=1 "ACME-7" seq=0`},
		{"king of spades, card 30", 41, 29, 0, func(e *FramedEncoder) error { return e.Card(baccarat.MustParseCard("KS")) },
			"02 07 10 00 29 1D 00 00 1E B0 4B 03", "card KS no=30 seq=41"},
		{"cut card, signal 3", 42, 2, 0, (*FramedEncoder).CutCard, "02 06 11 00 2A 00 00 03 60 49 03", "cut-card no=3 seq=42"},
		{"heartbeat", 43, 0, 0, func(e *FramedEncoder) error { return e.Heartbeat() },
			"02 03 02 00 2B E4 75 03", "heartbeat seq=43"},
		{"shoe empty, signal 4", 44, 3, 0, (*FramedEncoder).ShoeEmpty, "02 06 12 00 2C 00 00 04 F9 D7 03", "shoe-empty no=4 seq=44"},
		{"fault", 45, 0, 0, func(e *FramedEncoder) error { return e.Fault(7, "jam") },
			"02 07 03 00 2D 07 6A 61 6D 8F FD 03", `fault code=7 "jam" seq=45`},
		{"ace of hearts reread, card 258", 46, 257, FlagReread, func(e *FramedEncoder) error { return e.Card(baccarat.MustParseCard("AH")) },
			"02 07 10 00 2E 21 01 01 02 63 F8 03", "card AH flags=0x01 no=258 seq=46"},
		{"king of spades stamped 1234567 ms, card 31", 47, 30, 0, func(e *FramedEncoder) error {
			e.Clock = func() uint32 { return 1234567 }
			return e.Card(baccarat.MustParseCard("KS"))
		}, "02 0B 10 00 2F 1D 00 00 1F 00 12 D6 87 89 C5 03", "card KS no=31 shoe=1234567ms seq=47"},
	} {
		var buf bytes.Buffer
		e := NewFramedEncoder(&buf)
		e.Seq, e.CardNo, e.SignalNo, e.Flags = c.seq, c.no, c.no, c.flags
		if err := c.send(e); err != nil {
			t.Fatal(err)
		}
		if want := unhex(t, c.want); !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: encoded % X, the spec says % X", c.name, buf.Bytes(), want)
		}
		if got := decode(t, "tablectl", unhex(t, c.want)); got != c.event {
			t.Errorf("%s: decoded %q, want %q", c.name, got, c.event)
		}
		inDoc(c.want)
	}
	var greet bytes.Buffer
	if err := NewFramedDecoder().Greet(&greet); err != nil {
		t.Fatal(err)
	}
	const hostHello = "02 0C 81 00 00 01 74 61 62 6C 65 63 74 6C D8 A2 03"
	if want := unhex(t, hostHello); !bytes.Equal(greet.Bytes(), want) {
		t.Errorf("host hello % X, the spec says % X", greet.Bytes(), want)
	}
	inDoc(hostHello)

	// Acknowledgement and resend: the Host ack of card 30, the host's frame 1 after its
	// hello; the king of spades, card 31, sent at sequence 59 and sent again at 61, after
	// the shoe's Hello at 60.
	const hostAck = "02 05 90 00 01 00 1E AF 54 03"
	d, greet := NewFramedDecoder(), bytes.Buffer{}
	must(t, d.Greet(&greet))
	greet.Reset()
	must(t, d.Ack(&greet, device.Event{Kind: device.CardDrawn, CardNo: 30, HasCardNo: true}))
	if want := unhex(t, hostAck); !bytes.Equal(greet.Bytes(), want) {
		t.Errorf("host ack % X, the spec says % X", greet.Bytes(), want)
	}
	inDoc(hostAck)
	// The Host signal ack of signal 3, the host's frame 2.
	const hostSignalAck = "02 05 91 00 02 00 03 9F C9 03"
	greet.Reset()
	must(t, d.Ack(&greet, device.Event{Kind: device.CutCard, SignalNo: 3, HasSignalNo: true}))
	if want := unhex(t, hostSignalAck); !bytes.Equal(greet.Bytes(), want) {
		t.Errorf("host signal ack % X, the spec says % X", greet.Bytes(), want)
	}
	inDoc(hostSignalAck)
	const resent = "02 07 10 00 3D 1D 02 00 1F 43 56 03"
	var shoeSide bytes.Buffer
	e := NewFramedEncoder(&shoeSide)
	e.Seq, e.CardNo = 59, 30
	must(t, e.Card(baccarat.MustParseCard("KS")))
	must(t, e.Hello("ACME-7"))
	n := shoeSide.Len()
	must(t, e.Resend())
	if want := unhex(t, resent); !bytes.Equal(shoeSide.Bytes()[n:], want) {
		t.Errorf("resent card % X, the spec says % X", shoeSide.Bytes()[n:], want)
	}
	if got := decode(t, "tablectl", unhex(t, resent)); got != "card KS flags=0x02 no=31 seq=61" {
		t.Errorf("resent card decoded %q", got)
	}
	inDoc(resent)
	check(t, decode(t, "ascii", unhex(t, "53 41 0D 0A 68 31 30 0D 0A")), "card AS", "card TH")
	check(t, decode(t, "scanner", unhex(t, "78 31 31 33 30 78 34 31 30 30")), "card KS", "card TD")
}

// TestStampedCardResent checks that a card sent again keeps the time the shoe stamped on
// it when it read it, not the time of the resend (docs/protocol.md, "Shoe time"), so the
// host judges by when the card was drawn.
func TestStampedCardResent(t *testing.T) {
	var buf bytes.Buffer
	e := NewFramedEncoder(&buf)
	e.Seq, e.CardNo = 59, 30
	now := uint32(1234567)
	e.Clock = func() uint32 { return now }
	if err := e.Card(baccarat.MustParseCard("KS")); err != nil {
		t.Fatal(err)
	}
	now += 60000 // a minute later the host says hello again
	buf.Reset()
	if err := e.Hello("ACME-7"); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := e.Resend(); err != nil {
		t.Fatal(err)
	}
	const want = "02 0B 10 00 3D 1D 02 00 1F 00 12 D6 87 7C BF 03"
	if w := unhex(t, want); !bytes.Equal(buf.Bytes(), w) {
		t.Errorf("resent % X, want % X", buf.Bytes(), w)
	}
	if got := decode(t, "tablectl", unhex(t, want)); got != "card KS flags=0x02 no=31 shoe=1234567ms seq=61" {
		t.Errorf("decoded %q", got)
	}
}
