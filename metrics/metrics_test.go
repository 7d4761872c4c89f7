package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rr := httptest.NewRecorder()
	m.Handler().ServeHTTP(rr, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rr.Result().Body)
	return string(b)
}

// TestExposition checks each collector's name, labels and value as scraped, the
// queue depth read at scrape time, and the runtime and process collectors.
func TestExposition(t *testing.T) {
	queued := 7
	m := New(func() int { return queued })
	m.Round(false)
	m.Round(true)
	m.Round(false)
	m.Irregularity("excess_card")
	m.Irregularity("excess_card")
	m.Irregularity("foreign_card")
	m.Link("shuffler", true)
	m.Recorded(300 * time.Microsecond)
	m.Recorded(3 * time.Millisecond)
	m.Undelivered(3)
	m.Undelivered(2)
	m.PublishDenied(true)
	queued = 12
	got := scrape(t, m)
	for _, want := range []string{
		`tablectl_rounds_total{result="settled"} 2`,
		`tablectl_rounds_total{result="void"} 1`,
		`tablectl_irregularities_total{kind="excess_card"} 2`,
		`tablectl_irregularities_total{kind="foreign_card"} 1`,
		`tablectl_device_connected{device="shuffler"} 1`,
		`tablectl_journal_record_seconds_bucket{le="0.0005"} 1`,
		`tablectl_journal_record_seconds_bucket{le="0.005"} 2`,
		`tablectl_journal_record_seconds_count 2`,
		`tablectl_mqtt_queued_messages 12`,
		`tablectl_mqtt_undelivered_total 5`,
		`tablectl_mqtt_publish_denied 1`,
		`tablectl_cards_total 0`,
		`go_goroutines `,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}
