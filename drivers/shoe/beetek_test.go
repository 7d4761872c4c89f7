package shoe

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

// TestBeeTekFrames decodes the Bee-Tek stream's frames as integrators describe them
// (docs/protocol.md, "The Bee-Tek stream"): cards in either order and case, the ten as T
// or 10, with and without line ends, burn-mode cards, failed reads, alarms and warnings.
func TestBeeTekFrames(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"rank then suit", "[Game]<Card:4S>", []string{"card 4S"}},
		{"suit then rank", "[Game]<Card:H3>", []string{"card 3H"}},
		{"lower case", "[game]<card:td>[Game]<Card:c10>", []string{"card TD", "card TC"}},
		{"ten as 10", "[Game]<Card:10H>", []string{"card TH"}},
		{"picture cards and ace", "[Game]<Card:JS>[Game]<Card:QH>[Game]<Card:KD>[Game]<Card:AC>",
			[]string{"card JS", "card QH", "card KD", "card AC"}},
		{"CR LF, LF, none", "[Game]<Card:4S>\r\n[Game]<Card:5H>\n[Game]<Card:6D>[Game]<Card:7C>",
			[]string{"card 4S", "card 5H", "card 6D", "card 7C"}},
		{"line end between mode and body", "[Game]\r\n<Card:4S>", []string{"card 4S"}},
		{"burn mode", "[Manual Burn Cards]<Card:KD>\r\n[Game]<Card:2S>", []string{"card KD burn", "card 2S"}},
		{"failed read", "[Game]<Game>", []string{`unreadable misread: frame at offset 0: "[Game]<Game>": the shoe failed to read a card`}},
		{"alarm in play", "[Game]<Alarm:E3 Card Not Read>", []string{`fault code=3 "[Game]<Alarm:E3 Card Not Read>"`}},
		{"alarm mode", "[GameAlarm]<Alarm:E12 Shoe Door Open>", []string{`fault code=12 "[GameAlarm]<Alarm:E12 Shoe Door Open>"`}},
		{"alarm with no number", "[GameAlarm]<Alarm:Low Battery>", []string{`fault code=0 "[GameAlarm]<Alarm:Low Battery>"`}},
		{"warning", "<W0x01>\r\n<w0x1F>", []string{`fault code=1 "<W0x01>"`, `fault code=31 "<w0x1F>"`}},
	} {
		t.Run(c.name, func(t *testing.T) { check(t, decode(t, BeeTek, []byte(c.in)), c.want...) })
	}
}

// TestBeeTekNoiseNeverACard feeds noise, damaged frames and frames that name no card: each
// is reported unreadable, none is a card, and the decoder finds the next good frame.
// Damage that began as a card's frame is marked misread (a card may have passed); noise
// between frames and whole frames of another kind are not.
func TestBeeTekNoiseNeverACard(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"noise between frames", "4S\r\nxx~[Game]<Card:5S>", []string{
			`unreadable: 5 bytes at offset 0: "4Sxx~": noise between frames`, "card 5S"}},
		{"card cut off by the next frame", "[Game]<Card:4[Game]<Card:5S>", []string{
			`unreadable misread: frame at offset 0: "[Game]<Card:4": cut off by the start of another frame ('[')`, "card 5S"}},
		{"card cut off by a line end", "[Game]<Card:4\r\n[Game]<Card:5S>", []string{
			`unreadable misread: frame at offset 0: "[Game]<Card:4": cut off by a line end`, "card 5S"}},
		{"no such card", "[Game]<Card:ZZ>[Game]<Card:1S>[Game]<Card:4SS>", []string{
			`unreadable misread: frame at offset 0: "[Game]<Card:ZZ>": card "ZZ": want a rank (2-9, T or 10, J, Q, K, A) and a suit (S, H, D, C)`,
			`unreadable misread: frame at offset 15: "[Game]<Card:1S>": card "1S": want a rank (2-9, T or 10, J, Q, K, A) and a suit (S, H, D, C)`,
			`unreadable misread: frame at offset 30: "[Game]<Card:4SS>": card "4SS": want a rank (2-9, T or 10, J, Q, K, A) and a suit (S, H, D, C)`}},
		{"card with no mode", "<Card:4S>", []string{
			`unreadable misread: frame at offset 0: "<Card:4S>": card 4S with no mode: in play or burned is not known`}},
		{"card in an unknown mode", "[Gxme]<Card:4S>", []string{
			`unreadable misread: frame at offset 0: "[Gxme]<Card:4S>": card 4S in unknown mode "Gxme"`}},
		{"byte not text", "[Game]<Card:4\x00S>[Game]<Card:5S>", []string{
			`unreadable misread: frame at offset 0: "[Game]<Card:4": byte 0x00 is not text`,
			`unreadable: 3 bytes at offset 13: "\x00S>": noise between frames`, "card 5S"}},
		{"frame of another kind", "[Game]<Shoe Ready>[Game]<Card:5S>", []string{
			`unreadable: frame at offset 0: "[Game]<Shoe Ready>": not a card, a failed read, an alarm or a warning`, "card 5S"}},
		{"no body after the mode", "[Game]x<Card:5S>", []string{
			`unreadable misread: frame at offset 0: "[Game]": 'x' after the mode, want '<'`,
			`unreadable: 1 bytes at offset 6: "x": noise between frames`,
			`unreadable misread: frame at offset 7: "<Card:5S>": card 5S with no mode: in play or burned is not known`}},
		{"bad warning", "<W0xZZ>", []string{
			`unreadable: frame at offset 0: "<W0xZZ>": warning code "ZZ" is not one or two hex digits`}},
		{"too long", "[Game]<" + strings.Repeat("A", 100) + ">[Game]<Card:5S>", []string{
			`unreadable: frame at offset 0: "[Game]<` + strings.Repeat("A", 89) + `": longer than 96 bytes`,
			`unreadable: 12 bytes at offset 96: "AAAAAAAAAAA>": noise between frames`, "card 5S"}},
		{"cut off when the line goes down", "[Game]<Card:5S>[Game]<Ca", []string{
			"card 5S", `unreadable misread: frame at offset 15: "[Game]<Ca": cut off before its end`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := decode(t, BeeTek, []byte(c.in))
			check(t, got, c.want...)
			// The same events whatever the reads the stream came in.
			for cut := 1; cut < len(c.in); cut++ {
				if split := decode(t, BeeTek, []byte(c.in[:cut]), []byte(c.in[cut:])); split != got {
					t.Fatalf("cut at %d:\n%s\nin one piece:\n%s", cut, split, got)
				}
			}
		})
	}
}

// TestBeeTekEncoderWays writes a shoe's messages in each way units are known to write
// them, and reads them back.
func TestBeeTekEncoderWays(t *testing.T) {
	cards := []baccarat.Card{baccarat.MustParseCard("TH"), baccarat.MustParseCard("3S")}
	for _, e := range []BeeTekEncoder{{}, {SuitFirst: true}, {Lower: true, Ten10: true}, {CRLF: true, SuitFirst: true, Lower: true, Ten10: true}} {
		var buf bytes.Buffer
		e.W = &buf
		must(t, e.Card(cards[0]))
		must(t, e.BurnCard(cards[1]))
		must(t, e.Misread())
		must(t, e.Fault(3, "Card Not Read"))
		must(t, e.Fault(1, ""))
		if err := e.CutCard(); !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("cut card: %v, want ErrUnsupported", err)
		}
		if err := e.Fault(3, "a <bracket>"); err == nil {
			t.Fatal("an alarm text with brackets was written")
		}
		got := decode(t, BeeTek, buf.Bytes())
		misreadAt := strings.Index(buf.String(), "[Game]<Game>")
		check(t, got, "card TH", "card 3S burn",
			`unreadable misread: frame at offset `+strconv.Itoa(misreadAt)+`: "[Game]<Game>": the shoe failed to read a card`,
			`fault code=3 "[GameAlarm]<Alarm:E3 Card Not Read>"`, `fault code=1 "<W0x01>"`)
	}
	var buf bytes.Buffer
	e := BeeTekEncoder{W: &buf, SuitFirst: true, Lower: true, Ten10: true, CRLF: true}
	must(t, e.Card(cards[0]))
	if buf.String() != "[Game]<Card:h10>\r\n" {
		t.Fatalf("wrote %q", buf.String())
	}
}

// TestFormatDamageBreaksTheCard checks the line fault the simulator uses: a card message
// of each format, damaged, is never read as a card.
func TestFormatDamageBreaksTheCard(t *testing.T) {
	for _, f := range Formats {
		var buf bytes.Buffer
		e, err := f.NewEncoder(&buf)
		must(t, err)
		must(t, e.Card(baccarat.MustParseCard("KH")))
		got := decode(t, f, f.Damage(buf.Bytes()))
		if strings.HasPrefix(got, "card ") || strings.Contains(got, "\ncard ") || !strings.Contains(got, "unreadable") {
			t.Errorf("%s: damaged card decodes to %q", f, got)
		}
	}
}

// TestBeeTekDocExamples checks each byte example of docs/protocol.md's Bee-Tek section:
// it is in the document, and decodes to the event the document says.
func TestBeeTekDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ hex, event string }{
		{"5B 47 61 6D 65 5D 3C 43 61 72 64 3A 34 53 3E 0D 0A", "card 4S"},
		{"5B 47 61 6D 65 5D 3C 43 61 72 64 3A 48 33 3E", "card 3H"},
		{"5B 67 61 6D 65 5D 3C 63 61 72 64 3A 31 30 64 3E", "card TD"},
		{"5B 4D 61 6E 75 61 6C 20 42 75 72 6E 20 43 61 72 64 73 5D 3C 43 61 72 64 3A 4B 44 3E 0D 0A", "card KD burn"},
		{"5B 47 61 6D 65 5D 3C 47 61 6D 65 3E 0D 0A", `unreadable misread: frame at offset 0: "[Game]<Game>": the shoe failed to read a card`},
		{"5B 47 61 6D 65 5D 3C 41 6C 61 72 6D 3A 45 33 20 43 61 72 64 20 4E 6F 74 20 52 65 61 64 3E 0D 0A", `fault code=3 "[Game]<Alarm:E3 Card Not Read>"`},
		{"3C 57 30 78 30 31 3E", `fault code=1 "<W0x01>"`},
	} {
		if !bytes.Contains(doc, []byte("    "+c.hex+"    ")) {
			t.Errorf("docs/protocol.md has no example line %q", c.hex)
		}
		check(t, decode(t, BeeTek, unhex(t, c.hex)), c.event)
	}
}
