package shuffler

import (
	"testing"

	"github.com/tablectl/tablectl/drivers/device"
)

// FuzzDecoder checks, for any input, that decoding never panics, that an order handed on
// is whole (as many valid cards as the set's count), and that the events do not depend
// on where the input was cut into reads.
func FuzzDecoder(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		whole := decode(t, data)
		at := int(cut) % (len(data) + 1)
		if split := decode(t, data[:at], data[at:]); lines(split) != lines(whole) {
			t.Fatalf("cut at %d:\n%s\nin one piece:\n%s", at, lines(split), lines(whole))
		}
		for _, e := range whole {
			if e.Kind == device.ShuffleComplete && e.Order != nil {
				if len(e.Order) != e.Cards {
					t.Fatalf("order of %d cards handed on for a set of %d", len(e.Order), e.Cards)
				}
				for _, c := range e.Order {
					if !c.Valid() {
						t.Fatalf("invalid card in order: %+v", e)
					}
				}
			}
		}
	})
}
