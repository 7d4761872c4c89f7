package board

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
)

// BenchmarkEventOf measures turning the largest message of a shoe, the roadmap after
// 21 rounds, into an event (topic checks and JSON compaction). One op is one message.
func BenchmarkEventOf(b *testing.B) {
	d := dealShoe(b, "t1")
	var topic string
	var payload []byte
	for _, m := range d.msgs {
		if strings.HasSuffix(m.topic, "/roadmap") {
			topic, payload = m.topic, m.payload
		}
	}
	topics, err := api.NewTopics("t1")
	if err != nil {
		b.Fatal(err)
	}
	board := &Board{topics: topics}
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := board.eventOf(topic, payload, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFanOut measures handing one event to 8 connected browsers and taking it
// out of each one's buffer. One op is one event published.
func BenchmarkFanOut(b *testing.B) {
	h := newHub(DefaultClientBuffer, quietLogger())
	defer h.close()
	clients := make([]*client, 8)
	for i := range clients {
		c, err := h.join(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		clients[i] = c
	}
	ev := event{name: "card", data: []byte(`{"schema":1,"table":"t1","slot":"P1","card":"9S"}`)}
	b.ReportAllocs()
	for b.Loop() {
		h.publish(ev)
		for _, c := range clients {
			<-c.ch
		}
	}
	if n := h.clientCount(); n != len(clients) {
		b.Errorf("%d browsers left of %d", n, len(clients))
	}
}

// BenchmarkPublishToBrowser measures a card message from the table's publish at the
// embedded broker to the event a browser reads from the board, the board subscribed
// over MQTT on loopback (its own paho client) or in process (Options.Source). One op is
// one card, sent once the last one was read. With the card-to-subscriber figure of the
// daemon's benchmark, it gives a card from the serial line to the board's browser.
func BenchmarkPublishToBrowser(b *testing.B) {
	card := []byte(`{"schema":1,"table":"t1","seq":1,"shoe":1,"round":1,"slot":"P1","card":"9S","shoe_seq":1}`)
	for _, inProcess := range []bool{false, true} {
		name := "mqtt"
		if inProcess {
			name = "in-process"
		}
		b.Run(name, func(b *testing.B) {
			br := startBroker(b)
			opts := Options{Table: "t1", Broker: br.URL(), Logger: quietLogger()}
			if inProcess {
				opts.Source = br
			}
			bd, err := New(opts)
			if err != nil {
				b.Fatal(err)
			}
			srv := httptest.NewServer(bd.Handler())
			defer func() {
				bd.Close()
				srv.Close()
			}()
			resp, err := http.Get(srv.URL + "/events")
			if err != nil {
				b.Fatal(err)
			}
			defer resp.Body.Close()
			got := make(chan string, 16)
			go readSSE(resp.Body, func(e sseEvent) {
				if e.name == "card" {
					got <- e.data
				}
			})
			topics, _ := api.NewTopics("t1")
			topic := topics.Of(api.TopicCard)
			// The board subscribes in the background over MQTT: cards go until one comes.
			for ready := false; !ready; {
				if err := br.Publish(topic, card, false); err != nil {
					b.Fatal(err)
				}
				select {
				case <-got:
					ready = true
				case <-time.After(10 * time.Millisecond):
				}
			}
			for range len(got) {
				<-got
			}
			b.ResetTimer()
			for b.Loop() {
				if err := br.Publish(topic, card, false); err != nil {
					b.Fatal(err)
				}
				<-got
			}
		})
	}
}
