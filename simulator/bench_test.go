package simulator

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/shoe"
)

// BenchmarkPtyCardLatency measures, for each card, the time from the last byte of its
// frame written to the pseudo-terminal's master to the card event delivered by the real
// shoe driver reading the slave through go.bug.st/serial. One op is one card; it reports
// the p50 and p99 latency in microseconds. Run it with -benchtime=10000x for the figures
// over 10,000 cards.
func BenchmarkPtyCardLatency(b *testing.B) {
	for _, format := range shoe.Formats {
		b.Run(format, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			sim, err := New(Config{Dir: b.TempDir(), Protocol: format, Logger: quiet})
			if err != nil {
				b.Fatal(err)
			}
			defer sim.Close()
			drv, err := shoe.Start(shoe.Config{Format: format, Port: device.Config{Path: sim.Shoe.Link}}, device.Options{Logger: quiet})
			if err != nil {
				b.Fatal(err)
			}
			defer drv.Close()
			if format == "tablectl" {
				// The shoe takes cards as dealt once it has answered the driver's hello.
				if err := sim.shoeEnc.waitAnswer(ctx, 0); err != nil {
					b.Fatal(err)
				}
			}
			card := baccarat.MustParseCard("KS")
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				if err := sim.shoeEnc.Card(card); err != nil {
					b.Fatal(err)
				}
				written := time.Now()
				for e := range drv.Events() {
					if e.Kind == device.CardDrawn {
						break
					}
					if e.Kind == device.Unreadable || e.Kind == device.Disconnected {
						b.Fatal(e)
					}
				}
				lat = append(lat, time.Since(written))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
