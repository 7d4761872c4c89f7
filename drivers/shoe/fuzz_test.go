package shoe

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/drivers/device"
)

// fuzzDecoder checks, for any input, that decoding never panics, that every card it
// reports is a real card, with a card number exactly when the format carries one (the
// tablectl protocol), and that the events do not depend on where the input was cut into
// reads.
func fuzzDecoder(f *testing.F, format Format) {
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		whole := decode(t, format, data)
		at := int(cut) % (len(data) + 1)
		if split := decode(t, format, data[:at], data[at:]); split != whole {
			t.Fatalf("cut at %d:\n%s\nin one piece:\n%s", at, split, whole)
		}
		d, _ := format.NewDecoder()
		evs := d.Flush(d.Decode(nil, data))
		if format == BeeTek {
			// Noise never becomes a card: each card is one card frame, whose body begins
			// "Card:" in any case, and read in a mode.
			cards, frames := 0, bytes.Count(bytes.ToUpper(data), []byte("<CARD:"))
			for _, e := range evs {
				if e.Kind == device.CardDrawn {
					cards++
				}
			}
			if cards > frames {
				t.Fatalf("%d cards reported from %d card frames in %q", cards, frames, data)
			}
		}
		for _, e := range evs {
			if e.Kind == device.CardDrawn && !e.Card.Valid() {
				t.Fatalf("invalid card reported: %+v", e)
			}
			if e.Kind == device.CardDrawn && e.HasCardNo != format.Numbered() {
				t.Fatalf("card in the %s format with HasCardNo %t: %+v", format, e.HasCardNo, e)
			}
			if e.Kind == device.Unreadable && e.Reason == "" {
				t.Fatalf("unreadable input with no reason: %+v", e)
			}
		}
	})
}

func FuzzFramed(f *testing.F)  { fuzzDecoder(f, "tablectl") }
func FuzzASCII(f *testing.F)   { fuzzDecoder(f, "ascii") }
func FuzzScanner(f *testing.F) { fuzzDecoder(f, "scanner") }
func FuzzBeeTek(f *testing.F)  { fuzzDecoder(f, BeeTek) }

// TestFramedSeedsExercisePayloads decodes the seed corpus of FuzzFramed and checks that it
// still holds what it is there for: cards with card numbers (the first, one at 65535, one
// at 258), signals with signal numbers, a card code that is no card, a Card drawn frame of the old two-byte payload
// reported unreadable by its length, damage, a frame cut off, and cards resent after a
// Hello with their old numbers, and stamped cards (docs/protocol.md, "Shoe time") across
// the shoe clock's wrap, resent with their stamps. A change of the wire format that leaves the seeds behind
// fails here instead of fuzzing only noise.
func TestFramedSeedsExercisePayloads(t *testing.T) {
	for _, c := range []struct {
		seed string
		want []string
	}{
		{"seed0", []string{`hello version=1 "shoe" seq=0`, "card KS no=1 seq=1", "cut-card no=1 seq=2"}},
		{"seed1", []string{
			"unreadable: 5 bytes at offset 0: noise between frames",
			"card AH flags=0x01 no=65535 seq=5",
			"unreadable: 2 bytes at offset 17: bad frame length 255",
			"unreadable: 1 bytes at offset 19: bad frame length 2",
			"shoe-empty flags=0x02 no=258 seq=6",
		}},
		{"seed2", []string{
			"unreadable seq=9: frame type 0x10 at sequence 9: unreadable card code 0x5E, card number 0",
			"heartbeat seq=10",
		}},
		{"seed3", []string{"unreadable: 3 bytes at offset 0: frame cut off after 3 bytes"}},
		{"seed4", []string{
			"unreadable seq=41: frame type 0x10 at sequence 41: card message of 2 payload bytes, want 4 (card code, flags, card number) or 8 (and shoe time)",
			"card AH no=258 seq=42",
		}},
		{"seed5", []string{ // cards, then the Hello and the same cards resent: no gap
			"card KS no=1 seq=1",
			"card AH no=2 seq=2",
			`hello version=1 "shoe" seq=3`,
			"card KS flags=0x02 no=1 seq=4",
			"card AH flags=0x02 no=2 seq=5",
		}},
		{"seed6", []string{ // stamped cards across the shoe clock's wrap, then resent with their stamps
			"card KS no=1 shoe=4294967290ms seq=0",
			"card AH no=2 shoe=14ms seq=1",
			`hello version=1 "shoe" seq=2`,
			"card KS flags=0x02 no=1 shoe=4294967290ms seq=3",
			"card AH flags=0x02 no=2 shoe=14ms seq=4",
		}},
	} {
		b, err := os.ReadFile("testdata/fuzz/FuzzFramed/" + c.seed)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[1], "[]byte(") || !strings.HasSuffix(lines[1], ")") {
			t.Fatalf("%s: line 2 is not a []byte value: %q", c.seed, lines)
		}
		data, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", c.seed, err)
		}
		if got := decode(t, "tablectl", []byte(data)); got != strings.Join(c.want, "\n") {
			t.Errorf("%s decodes to\n%s\nwant\n%s", c.seed, got, strings.Join(c.want, "\n"))
		}
	}
}
