package shoe

import (
	"testing"

	"github.com/tablectl/tablectl/drivers/device"
)

// fuzzDecoder checks, for any input, that decoding never panics, that every card it
// reports is a real card, and that the events do not depend on where the input was cut
// into reads.
func fuzzDecoder(f *testing.F, format string) {
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		whole := decode(t, format, data)
		at := int(cut) % (len(data) + 1)
		if split := decode(t, format, data[:at], data[at:]); split != whole {
			t.Fatalf("cut at %d:\n%s\nin one piece:\n%s", at, split, whole)
		}
		d, _ := NewDecoder(format)
		for _, e := range d.Flush(d.Decode(nil, data)) {
			if e.Kind == device.CardDrawn && !e.Card.Valid() {
				t.Fatalf("invalid card reported: %+v", e)
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
