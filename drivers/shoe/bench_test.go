package shoe

import (
	"bytes"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
)

// BenchmarkDecode measures decode throughput per wire format over a stream of 416 cards
// (eight decks), read in 64-byte pieces as from a serial port; it reports MB/s and
// cards/s.
func BenchmarkDecode(b *testing.B) {
	var cards []baccarat.Card
	for range 8 {
		for s := baccarat.Spades; s <= baccarat.Clubs; s++ {
			for r := baccarat.Ace; r <= baccarat.King; r++ {
				cards = append(cards, baccarat.NewCard(r, s))
			}
		}
	}
	for _, format := range Formats {
		b.Run(string(format), func(b *testing.B) {
			var stream bytes.Buffer
			e, err := format.NewEncoder(&stream)
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range cards {
				if err := e.Card(c); err != nil {
					b.Fatal(err)
				}
			}
			data := stream.Bytes()
			b.SetBytes(int64(len(data)))
			evs := make([]device.Event, 0, 64)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				d, _ := format.NewDecoder()
				n := 0
				for off := 0; off < len(data); off += 64 {
					evs = d.Decode(evs[:0], data[off:min(off+64, len(data))])
					n += len(evs)
				}
				if n != len(cards) {
					b.Fatalf("%d events, want %d", n, len(cards))
				}
			}
			b.ReportMetric(float64(len(cards))*float64(b.N)/b.Elapsed().Seconds(), "cards/s")
		})
	}
}
