package display_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// BenchmarkPublishToSubscriber measures the latency from Publish (QoS 1) to the
// message's arrival at a subscriber on loopback, one message at a time as cards are
// dealt, through the embedded broker and through Mosquitto. Each op is one message of
// about 300 bytes; besides ns/op it reports the p50, p99 and maximum latency in
// microseconds. Run it with -benchtime=10000x for the figures over 10,000 messages.
func BenchmarkPublishToSubscriber(b *testing.B) {
	b.Run("embedded", func(b *testing.B) { benchLatency(b, embedded(b).url) })
	b.Run("mosquitto", func(b *testing.B) {
		benchLatency(b, mosquittotest.Start(b, mosquittotest.Config{}).URL())
	})
}

func benchLatency(b *testing.B, url string) {
	c, _ := dial(b, display.Options{Broker: url})
	topic := c.Topics().Card()
	arrived := make(chan int, 1)
	s := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(url).SetClientID("bench-board"))
	if tok := s.Connect(); !tok.WaitTimeout(guard) || tok.Error() != nil {
		b.Fatal(tok.Error())
	}
	defer s.Disconnect(1000)
	tok := s.Subscribe(topic, 1, func(_ mqtt.Client, m mqtt.Message) {
		p := m.Payload()
		seq := -1 // reported as a wrong sequence number by the loop
		if len(p) >= 10 {
			if n, err := strconv.Atoi(string(p[len(p)-10:])); err == nil {
				seq = n
			}
		}
		arrived <- seq
	})
	if !tok.WaitTimeout(guard) || tok.Error() != nil {
		b.Fatal(tok.Error())
	}

	pad := fmt.Sprintf(`{"schema":1,"table":"t1","shoe":1,"round":1,"at":"2026-01-01T00:00:00.000000000Z","slot":"P1","card":"TH","pad":"%0190d","seq":`, 0)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		payload := fmt.Appendf(nil, "%s%010d", pad, i)
		t0 := time.Now()
		c.Publish(topic, payload, false)
		select {
		case seq := <-arrived:
			if seq != i {
				b.Fatalf("subscriber got seq %d, want %d", seq, i)
			}
		case <-time.After(guard):
			b.Fatalf("message %d never arrived", i)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(us(lat[len(lat)/2]), "p50-µs")
	b.ReportMetric(us(lat[(len(lat)*99)/100]), "p99-µs")
	b.ReportMetric(us(lat[len(lat)-1]), "max-µs")
	b.ReportMetric(float64(len(pad)+10), "bytes/msg")
}
