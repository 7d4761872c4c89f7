package journal_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
)

// The benchmarks write to a temporary directory under $TABLECTL_BENCH_DIR when it is set
// (to measure the disk that will hold the journal, e.g. the SD card), else under the
// system's temporary directory. Check that the latter is not a tmpfs before trusting its
// fsync figures.
//
// Metrics: fsyncs/op, journal-B/op (bytes the journal wrote: framing and segment headers
// included) and, on Linux, disk-B/op: the bytes the process sent to the storage layer
// (write_bytes of /proc/self/io), which counts whole pages and shows the real wear.

func benchJournal(b *testing.B) *journal.Journal {
	b.Helper()
	dir := b.TempDir()
	if root := os.Getenv("TABLECTL_BENCH_DIR"); root != "" {
		var err error
		if dir, err = os.MkdirTemp(root, "journal-bench-"); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
	}
	j, _, err := journal.Open(dir, journal.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { j.Close() })
	return j
}

// diskWriteBytes returns the bytes this process has sent to the storage layer, and false
// where the system does not say.
func diskWriteBytes() (int64, bool) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("write_bytes: ")); ok {
			n, err := strconv.ParseInt(string(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// meter reports the journal's writes per unit of work between its start and report.
type meter struct {
	j     *journal.Journal
	stats journal.Stats
	disk  int64
	ok    bool
}

func startMeter(j *journal.Journal) meter {
	disk, ok := diskWriteBytes()
	return meter{j: j, stats: j.Stats(), disk: disk, ok: ok}
}

func (m meter) report(b *testing.B, unit string) {
	s := m.j.Stats()
	n := float64(b.N)
	b.ReportMetric(float64(s.Syncs-m.stats.Syncs)/n, "fsyncs/"+unit)
	b.ReportMetric(float64(s.Bytes-m.stats.Bytes)/n, "journal-B/"+unit)
	if disk, ok := diskWriteBytes(); ok && m.ok {
		b.ReportMetric(float64(disk-m.disk)/n, "disk-B/"+unit)
	}
}

var t0 = time.Date(2026, 3, 1, 20, 15, 0, 0, time.UTC)

func encode(b *testing.B, ev round.Event) []byte {
	rec, err := json.Marshal(ev)
	if err != nil {
		b.Fatal(err)
	}
	return rec
}

// BenchmarkAppend is one durable append of a card event: a write and an fsync.
func BenchmarkAppend(b *testing.B) {
	j := benchJournal(b)
	rec := encode(b, round.Event{Kind: round.CardDrawn, At: t0, Card: baccarat.MustParseCard("TH"), Seq: 17})
	m := startMeter(j)
	for b.Loop() {
		if _, err := j.Append(rec); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b, "op")
}

// BenchmarkAppendNoSync is the same append without the fsync: the cost of the write
// alone, for comparison.
func BenchmarkAppendNoSync(b *testing.B) {
	j := benchJournal(b)
	rec := encode(b, round.Event{Kind: round.CardDrawn, At: t0, Card: baccarat.MustParseCard("TH"), Seq: 17})
	m := startMeter(j)
	for b.Loop() {
		if _, err := j.AppendNoSync(rec); err != nil {
			b.Fatal(err)
		}
	}
	if err := j.Sync(); err != nil {
		b.Fatal(err)
	}
	m.report(b, "op")
}

// BenchmarkRound journals the events of a typical round as the table does, each
// JSON-encoded and appended durably: bets closed, five cards, the dealer's confirmation.
// journal-B/round is the bytes written per round, framing included.
func BenchmarkRound(b *testing.B) {
	j := benchJournal(b)
	cards, err := baccarat.ParseCards("TH 4S 9D KC 5H")
	if err != nil {
		b.Fatal(err)
	}
	at, seq := t0, uint64(0)
	next := func() time.Time {
		at = at.Add(1733 * time.Millisecond)
		return at
	}
	m := startMeter(j)
	for b.Loop() {
		events := make([]round.Event, 0, 7)
		events = append(events, round.Event{Kind: round.BetsClosed, At: next()})
		for _, c := range cards {
			seq++
			events = append(events, round.Event{Kind: round.CardDrawn, At: next(), Card: c, Seq: seq})
		}
		events = append(events, round.Event{Kind: round.ConfirmResult, At: next(), Actor: "dealer-12"})
		for _, ev := range events {
			if _, err := j.Append(encode(b, ev)); err != nil {
				b.Fatal(err)
			}
		}
	}
	m.report(b, "round")
}
