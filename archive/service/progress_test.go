package service

import (
	"bytes"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// notifyLog is a log that says when it is written to.
type notifyLog struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed by the next write
}

func newNotifyLog() *notifyLog { return &notifyLog{written: make(chan struct{})} }

func (l *notifyLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.written)
	l.written = make(chan struct{})
	return l.b.Write(p)
}

// text returns what was logged, and a channel closed by the next write.
func (l *notifyLog) text() (string, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String(), l.written
}

var progressField = regexp.MustCompile(`(\w+)=(\d+)`)

// lines returns the fields of each line of text with msg.
func lines(text, msg string) []map[string]int {
	var out []map[string]int
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, `msg="`+msg+`"`) {
			continue
		}
		f := map[string]int{}
		for _, m := range progressField.FindAllStringSubmatch(line, -1) {
			f[m[1]], _ = strconv.Atoi(m[2])
		}
		out = append(out, f)
	}
	return out
}

// TestProgressAndStopLogged: the archive logs what it took every ProgressEvery, a line
// for an interval that took anything, whose records add up to the journal stored; its
// stop logs what the run stored: the records, the batches, the one table, no alarm.
func TestProgressAndStopLogged(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	dsn := t.TempDir() + "/archive.db"
	b := startBroker(t)
	log := newNotifyLog()
	var buf logBuffer // startArchive's log, unused: the service logs to log
	r := startArchive(t, b, dsn, keysOf(f), &buf, nil, func(o *Options) {
		o.ProgressEvery = 20 * time.Millisecond
		o.Logger = slog.New(slog.NewTextHandler(log, nil))
	})
	ft := newFakeTable(t, b, f)
	const per = 17
	ft.send(1, f.last(), per)
	ft.waitHeld("at the last record", heldAt(f.last()))
	batches := (len(f.records) + per - 1) / per
	guard := time.NewTimer(time.Minute) // a guard against a hang, not a measure
	defer guard.Stop()
	for {
		text, written := log.text()
		stored, taken := 0, 0
		for _, l := range lines(text, "archive progress") {
			if l["batches"]+l["malformed"]+l["unknown_batches"]+l["dropped"] == 0 || l["tables"] != 1 || l["alarms"] != 0 {
				t.Fatalf("a progress line of nothing, or not of the one table:\n%s", text)
			}
			stored += l["records_stored"]
			taken += l["batches"]
		}
		if stored == len(f.records) && taken == batches {
			break
		}
		if stored > len(f.records) {
			t.Fatalf("the progress lines count %d records, %d stored:\n%s", stored, len(f.records), text)
		}
		select {
		case <-written:
		case <-guard.C:
			t.Fatalf("the progress lines count %d records and %d batches, want %d and %d:\n%s", stored, taken, len(f.records), batches, text)
		}
	}
	if st := r.svc.Stats(); st.Tables != 1 || st.Batches != int64(batches) {
		t.Errorf("stats %+v, want %d batches of 1 table", st, batches)
	}
	r.stop()
	text, _ := log.text()
	stops := lines(text, "archive stopped")
	if len(stops) != 1 || stops[0]["records_stored"] != len(f.records) || stops[0]["batches"] != batches || stops[0]["tables"] != 1 ||
		stops[0]["alarms"] != 0 || !strings.Contains(text, "ran=") {
		t.Fatalf("the stop line %v:\n%s", stops, text)
	}
}

// TestProgressLine: a progress line counts what was taken since the line before, of the
// tables that sent in the interval; an interval that took nothing logs no line.
func TestProgressLine(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	b := startBroker(t)
	log := newNotifyLog()
	var buf logBuffer
	r := startArchive(t, b, t.TempDir()+"/archive.db", keysOf(f), &buf, nil, func(o *Options) {
		o.ProgressEvery = time.Hour // no line of the service's own in the test
		o.Logger = slog.New(slog.NewTextHandler(log, nil))
	})
	m := r.svc.mark()
	if m = r.svc.logProgress(m); len(lines(textOf(log), "archive progress")) != 0 {
		t.Fatalf("a line of nothing taken:\n%s", textOf(log))
	}
	ft := newFakeTable(t, b, f)
	ft.send(1, 100, 10)
	ft.waitHeld("at record 100", heldAt(100))
	m = r.svc.logProgress(m)
	ft.send(101, 150, 25)
	ft.waitHeld("at record 150", heldAt(150))
	m = r.svc.logProgress(m)
	r.svc.logProgress(m)
	got := lines(textOf(log), "archive progress")
	if len(got) != 2 || got[0]["records_stored"] != 100 || got[0]["batches"] != 10 || got[0]["tables"] != 1 ||
		got[1]["records_stored"] != 50 || got[1]["batches"] != 2 || got[1]["tables"] != 1 || got[1]["alarms"] != 0 {
		t.Fatalf("progress lines %v, want 100 records in 10 batches, then 50 in 2, then none:\n%s", got, textOf(log))
	}
}

func textOf(l *notifyLog) string {
	s, _ := l.text()
	return s
}
