package web

import (
	"context"
	"strings"
	"testing"

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
		if _, err := board.eventOf(topic, payload); err != nil {
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
