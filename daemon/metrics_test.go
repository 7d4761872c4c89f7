package daemon

import (
	"io"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/metrics"
)

// scrape reads the metrics as Prometheus would.
func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rr := httptest.NewRecorder()
	m.Handler().ServeHTTP(rr, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rr.Result().Body)
	return string(b)
}

// TestMetricsFollowTheTable deals two rounds with a line of garbage and a disconnection
// of the shoe, and reads the counters back through the exposition format.
func TestMetricsFollowTheTable(t *testing.T) {
	t.Parallel()
	m := metrics.New(nil)
	cfg := testConfig(t, t.TempDir())
	cfg.Metrics = m
	r := startWith(t, cfg, nil)
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.f.shoe <- device.Event{Kind: device.Hello}
	r.settle(t)
	r.f.cards(t, "9H 5C KS KD") // Player natural 9
	r.f.shoe <- device.Event{Kind: device.Unreadable, Reason: "garbage"}
	r.f.cards(t, "2H 3D 4C 5D") // Banker 8 natural
	r.settle(t)
	r.f.shoe <- device.Event{Kind: device.Disconnected, Reason: "unplugged"}
	r.settle(t)
	got := scrape(t, m)
	r.close(t)

	for _, want := range []string{
		`tablectl_rounds_total{result="settled"} 2`,
		`tablectl_rounds_total{result="void"} 0`,
		`tablectl_cards_total 8`,
		`tablectl_decode_errors_total{device="shoe"} 1`,
		`tablectl_device_connected{device="shoe"} 0`,
		`tablectl_device_connected{device="shuffler"} 1`,
		`tablectl_mqtt_connects_total 1`,
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
	// Every event recorded was timed: at least the shuffle and the eight cards.
	n := regexp.MustCompile(`(?m)^tablectl_journal_record_seconds_count (\d+)$`).FindStringSubmatch(got)
	if len(n) < 2 {
		t.Error("no journal record timings")
	} else if c, _ := strconv.Atoi(n[1]); c < 9 {
		t.Errorf("%d journal records timed, want at least 9", c)
	}
	if t.Failed() {
		t.Logf("scraped:\n%s", got)
	}
}
