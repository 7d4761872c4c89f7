// Package metrics is tablectl's Prometheus instrumentation: rounds, cards and
// irregularities, device decode errors and link state, journal sync latency, and the
// MQTT client's queue and reconnects, on a registry of its own (docs/deploy.md,
// "Metrics").
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds the table's collectors. The zero of each is registered and reported
// from the start, so a dashboard sees 0 rather than nothing.
type Metrics struct {
	reg *prometheus.Registry

	rounds         *prometheus.CounterVec
	cards          prometheus.Counter
	irregularities *prometheus.CounterVec
	decodeErrors   *prometheus.CounterVec
	link           *prometheus.GaugeVec
	journalSync    prometheus.Histogram
	reconnects     prometheus.Counter
	denied         prometheus.Gauge
	undelivered    prometheus.Counter
	archiveBehind  prometheus.Gauge
}

// New registers the table's collectors, and the Go runtime's and the process's, on a
// new registry. queued, when set, is read at each scrape for the MQTT queue depth.
func New(queued func() int) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		rounds: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tablectl_rounds_total",
			Help: "Rounds ended, by result: settled or void."}, []string{"result"}),
		cards: prometheus.NewCounter(prometheus.CounterOpts{Name: "tablectl_cards_total",
			Help: "Cards placed in a hand or burned."}),
		irregularities: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tablectl_irregularities_total",
			Help: "Irregularities raised, by kind (docs/irregularities.md)."}, []string{"kind"}),
		decodeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tablectl_decode_errors_total",
			Help: "Input from a device that was not a message, by device."}, []string{"device"}),
		link: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "tablectl_device_connected",
			Help: "1 while a device's serial link is up, 0 while it is down."}, []string{"device"}),
		journalSync: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tablectl_journal_record_seconds",
			Help:    "Time to record an event durably in the journal (append and fsync).",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1}}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{Name: "tablectl_mqtt_connects_total",
			Help: "Connections made to the MQTT broker, the first included."}),
		denied: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tablectl_mqtt_publish_denied",
			Help: "1 while the broker takes tablectl's publishes without delivering them (its ACL, say), 0 otherwise."}),
		undelivered: prometheus.NewCounter(prometheus.CounterOpts{Name: "tablectl_mqtt_undelivered_total",
			Help: "Publishes the broker acknowledged that did not come back on tablectl's own subscription."}),
		archiveBehind: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tablectl_archive_behind_records",
			Help: "Journal records the floor's archive does not hold yet, for a table that ships its journal (archive.ship)."}),
	}
	m.reg.MustRegister(m.rounds, m.cards, m.irregularities, m.decodeErrors, m.link, m.journalSync, m.reconnects,
		m.denied, m.undelivered, m.archiveBehind,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if queued != nil {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tablectl_mqtt_queued_messages",
			Help: "Messages published and not yet acknowledged by the broker."}, func() float64 { return float64(queued()) }))
	}
	for _, r := range []string{"settled", "void"} {
		m.rounds.WithLabelValues(r)
	}
	return m
}

// Handler serves the metrics in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is the registry the collectors are on, for tests and other exporters.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Round counts a round ended: settled, or void when void is true.
func (m *Metrics) Round(void bool) {
	if void {
		m.rounds.WithLabelValues("void").Inc()
	} else {
		m.rounds.WithLabelValues("settled").Inc()
	}
}

// Card counts a card placed or burned.
func (m *Metrics) Card() { m.cards.Inc() }

// Irregularity counts an irregularity raised, by its kind.
func (m *Metrics) Irregularity(kind string) { m.irregularities.WithLabelValues(kind).Inc() }

// DecodeError counts input from device that was not a message.
func (m *Metrics) DecodeError(device string) { m.decodeErrors.WithLabelValues(device).Inc() }

// Link sets whether device's link is up.
func (m *Metrics) Link(device string, up bool) {
	v := 0.0
	if up {
		v = 1
	}
	m.link.WithLabelValues(device).Set(v)
}

// Recorded observes the time one event took to be recorded in the journal.
func (m *Metrics) Recorded(took time.Duration) { m.journalSync.Observe(took.Seconds()) }

// PublishDenied sets whether the broker is dropping tablectl's publishes.
func (m *Metrics) PublishDenied(denied bool) {
	v := 0.0
	if denied {
		v = 1
	}
	m.denied.Set(v)
}

// Undelivered counts n publishes that did not come back.
func (m *Metrics) Undelivered(n int) { m.undelivered.Add(float64(n)) }

// Connected counts a connection to the MQTT broker.
func (m *Metrics) Connected() { m.reconnects.Inc() }

// ArchiveBehind sets how many journal records the floor's archive does not hold yet.
func (m *Metrics) ArchiveBehind(n uint64) { m.archiveBehind.Set(float64(n)) }
