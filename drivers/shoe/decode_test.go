package shoe

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
)

// decode runs a fresh decoder of format over chunks, then flushes it, and prints the
// events one a line.
func decode(t testing.TB, format Format, chunks ...[]byte) string {
	t.Helper()
	d, err := format.NewDecoder()
	if err != nil {
		t.Fatal(err)
	}
	var evs []device.Event
	for _, c := range chunks {
		evs = d.Decode(evs, c)
	}
	evs = d.Flush(evs)
	return lines(evs)
}

func lines(evs []device.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, e.String())
	}
	return strings.Join(s, "\n")
}

func check(t *testing.T, got string, want ...string) {
	t.Helper()
	if w := strings.Join(want, "\n"); got != w {
		t.Fatalf("got\n%s\nwant\n%s", got, w)
	}
}

func TestASCII(t *testing.T) {
	in := "SA\r\nh10\r\nDT\r\ncq\r\n\r\nxA\r\nS1\r\nHK\r\n" +
		strings.Repeat("Z", 40) + "\r\nS\x01\r\nc9\n" + "d5\r" + "\nh"
	check(t, decode(t, "ascii", []byte(in)),
		"card AS",
		"card TH",
		"card TD",
		"card QC",
		`unreadable: line 5: unknown suit "x" in "xA"`,
		`unreadable: line 6: unknown rank "1" in "S1"`,
		"card KH",
		"unreadable: line 8: 40 bytes, longer than 16",
		`unreadable: line 9: "S\x01" is not text`,
		"card 9C",
		"card 5D",
		`unreadable: line 12 cut off before its end: "h"`,
	)
}

func TestScanner(t *testing.T) {
	// x1130 is the king of spades (issue example); 2 hearts, 3 clubs, 4 diamonds.
	in := "x1130" + "y2010\r\n" + "x3070" + "x4120" + "x5130" + "x1140" + "x1131" + "x1010" + "x40"
	check(t, decode(t, "scanner", []byte(in)),
		"card KS",
		"card AH",
		"card 7C",
		"card QD",
		`unreadable: 15 bytes at offset 22: "x5130": suit digit '5' is not 1 to 4`,
		"card AS",
		`unreadable: 3 bytes at offset 42: "x40": code cut off after 3 bytes`,
	)
}

func TestFramed(t *testing.T) {
	var buf bytes.Buffer
	e := NewFramedEncoder(&buf)
	must(t, e.Hello("sim shoe"))
	must(t, e.Card(baccarat.MustParseCard("KS")))
	must(t, e.CutCard())
	must(t, e.Lid(true))
	must(t, e.Lid(false))
	must(t, e.DoubleCard())
	must(t, e.ShoeEmpty())
	must(t, e.Send(TypeCard, 0x5E, 0, 0, 2))      // not a card code, card number 2
	must(t, e.Send(TypeCard, 0x1D, 0, 0))         // short payload
	must(t, e.Send(TypeCutCard, 1))               // payload where none belongs
	e.Flags, e.CardNo = FlagReread, 2             //
	must(t, e.Card(baccarat.MustParseCard("AH"))) // seq 10, card 3
	check(t, decode(t, "tablectl", buf.Bytes()),
		`hello version=1 "sim shoe" seq=0`,
		"card KS no=1 seq=1",
		"cut-card no=1 seq=2",
		"lid-opened no=2 seq=3",
		"lid-closed no=3 seq=4",
		"double-card no=4 seq=5",
		"shoe-empty no=5 seq=6",
		"unreadable seq=7: frame type 0x10 at sequence 7: unreadable card code 0x5E, card number 2",
		"unreadable seq=8: frame type 0x10 at sequence 8: card message of 3 payload bytes, want 4 (card code, flags, card number) or 8 (and shoe time)",
		"unreadable seq=9: frame type 0x11 at sequence 9: cut-card message of 1 payload bytes, want 3 (flags, signal number)",
		"card AH flags=0x01 no=3 seq=10",
	)
}

// TestFramedCardNumbers checks the card number of the Card drawn message
// (docs/protocol.md, "Card numbers"): the shoe's first card is 1; only cards are
// counted, not signals or heartbeats; a Hello does not start the count again; the number
// is big-endian and wraps from 65535 to 0; the decoder hands each number on as it came.
func TestFramedCardNumbers(t *testing.T) {
	var buf bytes.Buffer
	e := NewFramedEncoder(&buf)
	must(t, e.Hello("shoe"))
	must(t, e.Card(baccarat.MustParseCard("2C")))
	must(t, e.Heartbeat())
	must(t, e.CutCard())
	must(t, e.Card(baccarat.MustParseCard("3C")))
	must(t, e.Hello("shoe")) // in answer to a host hello: the counts go on
	must(t, e.Card(baccarat.MustParseCard("4C")))
	e.CardNo = 0x0101
	must(t, e.Card(baccarat.MustParseCard("5C"))) // 0x0102: the high byte first
	e.CardNo = 65534
	must(t, e.Card(baccarat.MustParseCard("6C")))
	must(t, e.Card(baccarat.MustParseCard("7C")))
	must(t, e.Card(baccarat.MustParseCard("8C")))
	if i := bytes.Index(buf.Bytes(), []byte{0x45, 0x00, 0x01, 0x02}); i < 0 {
		t.Fatalf("no 5C with card number 01 02 in % X", buf.Bytes())
	}
	check(t, decode(t, "tablectl", buf.Bytes()),
		`hello version=1 "shoe" seq=0`,
		"card 2C no=1 seq=1",
		"heartbeat seq=2",
		"cut-card no=1 seq=3",
		"card 3C no=2 seq=4",
		`hello version=1 "shoe" seq=5`,
		"card 4C no=3 seq=6",
		"card 5C no=258 seq=7",
		"card 6C no=65535 seq=8",
		"card 7C no=0 seq=9",
		"card 8C no=1 seq=10",
	)
	d := NewFramedDecoder()
	for _, ev := range d.Decode(nil, buf.Bytes()) {
		if ev.Kind == device.CardDrawn && !ev.HasCardNo {
			t.Fatalf("%v has no card number", ev)
		}
		if ev.Kind != device.CardDrawn && ev.HasCardNo {
			t.Fatalf("%v has a card number", ev)
		}
	}
}

// TestFramedCardOfWrongLength checks that a Card drawn frame whose payload is not four
// bytes, such as the two bytes (card code, flags) of a shoe that sends no card number, is
// reported unreadable with its length and never as a card, and is no sequence gap.
func TestFramedCardOfWrongLength(t *testing.T) {
	// The king of spades, sequence 41, in two bytes of payload: a good frame, old length.
	old := unhex(t, "02 05 10 00 29 1D 00 24 33 03")
	var buf bytes.Buffer
	buf.Write(old)
	e := NewFramedEncoder(&buf)
	e.Seq = 42
	must(t, e.Send(TypeCard, 0x1D, 0, 0, 7, 0)) // five bytes
	must(t, e.Send(TypeCard))                   // none
	must(t, e.Card(baccarat.MustParseCard("KS")))
	check(t, decode(t, "tablectl", buf.Bytes()),
		"unreadable seq=41: frame type 0x10 at sequence 41: card message of 2 payload bytes, want 4 (card code, flags, card number) or 8 (and shoe time)",
		"unreadable seq=42: frame type 0x10 at sequence 42: card message of 5 payload bytes, want 4 (card code, flags, card number) or 8 (and shoe time)",
		"unreadable seq=43: frame type 0x10 at sequence 43: card message of 0 payload bytes, want 4 (card code, flags, card number) or 8 (and shoe time)",
		"card KS no=1 seq=44",
	)
}

// TestFramedUnreadableCardKeepsItsNumber checks that a Card drawn frame whose card code is
// not a card gives an Unreadable event with the card's number, so the host can count it
// as a card that left the shoe.
func TestFramedUnreadableCardKeepsItsNumber(t *testing.T) {
	var buf bytes.Buffer
	e := NewFramedEncoder(&buf)
	must(t, e.Send(TypeCard, 0x5E, 0, 0x12, 0x34))
	evs := NewFramedDecoder().Decode(nil, buf.Bytes())
	if len(evs) != 1 || evs[0].Kind != device.Unreadable || !evs[0].HasCardNo || evs[0].CardNo != 0x1234 {
		t.Fatalf("got %+v, want one unreadable event with card number %d", evs, 0x1234)
	}
	if !strings.Contains(evs[0].Reason, "0x5E") || !strings.Contains(evs[0].Reason, "card number 4660") {
		t.Fatalf("reason %q names neither the code nor the card number", evs[0].Reason)
	}
}

func TestFramedCorruptCardIsUnreadableNotGap(t *testing.T) {
	var buf bytes.Buffer
	e := NewFramedEncoder(&buf)
	must(t, e.Card(baccarat.MustParseCard("2D")))
	n := buf.Len()
	must(t, e.Card(baccarat.MustParseCard("3D")))
	buf.Bytes()[n+5] ^= 0x40 // flip a bit of the card code: bad checksum
	must(t, e.Card(baccarat.MustParseCard("4D")))
	e.Seq++    // a frame lost outright,
	e.CardNo++ // and it was a card
	must(t, e.Card(baccarat.MustParseCard("5D")))
	got := decode(t, "tablectl", buf.Bytes())
	want := []string{
		"card 2D no=1 seq=0",
		"unreadable: 12 bytes at offset 12: bad checksum",
		"card 4D no=3 seq=2",
		"seq-gap expected=3 seq=4: 1 frames lost",
		"card 5D no=5 seq=4",
	}
	gl := strings.Split(got, "\n")
	if len(gl) != len(want) {
		t.Fatalf("got\n%s", got)
	}
	for i := range want {
		if !strings.HasPrefix(gl[i], want[i]) {
			t.Fatalf("event %d: got %q, want it to start %q\nall:\n%s", i, gl[i], want[i], got)
		}
	}
}

func TestEncodersRoundTrip(t *testing.T) {
	var cards []baccarat.Card
	for s := baccarat.Spades; s <= baccarat.Clubs; s++ {
		for r := baccarat.Ace; r <= baccarat.King; r++ {
			cards = append(cards, baccarat.NewCard(r, s))
		}
	}
	for _, format := range Formats {
		t.Run(string(format), func(t *testing.T) {
			var buf bytes.Buffer
			e, err := format.NewEncoder(&buf)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for i, c := range cards {
				must(t, e.Card(c))
				w := "card " + c.String()
				if format.Numbered() {
					w += " no=" + strconv.Itoa(i+1) + " seq=" + strconv.Itoa(i)
				}
				want = append(want, w)
			}
			err = e.CutCard()
			if format.Numbered() {
				must(t, err)
				want = append(want, "cut-card no=1 seq=52")
			} else if !errors.Is(err, errors.ErrUnsupported) {
				t.Fatalf("cut card in %s: %v, want ErrUnsupported", format, err)
			}
			check(t, decode(t, format, buf.Bytes()), want...)
		})
	}
}

func TestUnknownFormat(t *testing.T) {
	if _, err := Format("morse").NewDecoder(); err == nil || !strings.Contains(err.Error(), `"morse"`) ||
		!strings.Contains(err.Error(), "beetek") {
		t.Fatalf("Format(morse).NewDecoder() error %v, want one naming the format and the formats known", err)
	}
	if _, err := ParseFormat("Tablectl"); err == nil {
		t.Fatal("ParseFormat(Tablectl) succeeded: format names are lower case")
	}
	if _, err := Start(Config{Format: "ascii"}, device.Options{}); err == nil {
		t.Fatal("Start with no port named succeeded")
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
