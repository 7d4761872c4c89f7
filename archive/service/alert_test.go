package service

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// consolePassword is the console's, on the broker of the alerts' tests.
const consolePassword = "console-pw"

// startAlertBroker is startBroker's broker, with the ACL of the central layout too, and
// the console and the dealer among its users.
func startAlertBroker(t *testing.T) *mosquittotest.Broker {
	acl, err := api.MosquittoACL(api.ACLOptions{Archives: []string{"floor", "standby"}, Central: true})
	if err != nil {
		t.Fatal(err)
	}
	return mosquittotest.Start(t, mosquittotest.Config{
		Users: map[string]string{"archive-floor": archivePassword, "archive-standby": archivePassword,
			fixtureTable: tablePassword, "console": consolePassword, "dealer": consolePassword},
		ACL:         string(acl),
		Persistence: true,
	})
}

// alertAt is an alert of table raised at minute min of an afternoon.
func alertAt(table, kind string, min int) api.AlertRecord {
	at := func(m int) time.Time { return time.Date(2026, 3, 2, 14, m, 0, 0, time.UTC) }
	return api.AlertRecord{Schema: api.Schema, Table: table, ID: kind + "/" + table + "/" + at(min-5).Format(time.RFC3339),
		Kind: kind, Pit: "pit3", Since: at(min - 5), Raised: at(min), Text: "seen at the table"}
}

// acked is r acknowledged by S-1 at its raising's minute and one more.
func acked(r api.AlertRecord) api.AlertRecord {
	r.Ack = &api.AlertAck{By: "S-1", Role: "supervisor", At: r.Raised.Add(time.Minute), Note: "called the pit manager"}
	return r
}

// waitAlertRecords waits until the service has stored n alert records.
func waitAlertRecords(t *testing.T, r *running, n int64, log *logBuffer) {
	t.Helper()
	guard := time.Now().Add(30 * time.Second) // a guard against a hang, not a measure
	for r.svc.Stats().AlertRecords < n {
		if time.Now().After(guard) {
			t.Fatalf("stats %+v: want %d alert records stored\n%s", r.svc.Stats(), n, log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readAlerts reads every alert the archive dsn keeps, as a reader does.
func readAlerts(t *testing.T, dsn string) []history.Alert {
	t.Helper()
	rd, err := archive.OpenReader(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	got, err := rd.Alerts(context.Background(), history.AlertSearch{})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestAlertsFromTheConsole: through Mosquitto and the shipped ACL, the console's
// raising and acknowledgement of an alert are stored, and one on a central broker's
// topic (of a table the keys file does not name) is too. The table's own publish on the
// alert topic, and the dealer's, are refused by the broker and never stored. A malformed
// record (bad JSON, another table's, an unknown field, no note to its acknowledgement)
// is logged and dropped, and the next one is stored.
func TestAlertsFromTheConsole(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		b := startAlertBroker(t)
		var log logBuffer
		r := startArchive(t, b, dsn, keysOf(f), &log, nil, func(o *Options) { o.Central = true })
		console := client(t, b, "console", "console", consolePassword)
		topics, _ := api.NewTopics(fixtureTable)
		topic := topics.ArchiveAlert("floor")

		held := alertAt(fixtureTable, api.AlertHeld, 10)
		publishJSON(t, console, topic, false, held)
		forged := alertAt(fixtureTable, api.AlertPace, 11)
		publishJSON(t, client(t, b, "table-forger", fixtureTable, tablePassword), topic, false, forged)
		forged.ID += "/dealer"
		publishJSON(t, client(t, b, "dealer-forger", "dealer", consolePassword), topic, false, forged)
		if tok := console.Publish(topic, 1, false, []byte(`{"schema":2,"table":`)); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
		publishJSON(t, console, topic, false, alertAt("pit3-bac08", api.AlertHeld, 12)) // another table's, on this one's topic
		if tok := console.Publish(topic, 1, false, []byte(`{"schema":2,"table":"pit3-bac07","id":"x","extra":1}`)); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
		noNote := acked(held)
		noNote.Ack.Note = " "
		publishJSON(t, console, topic, false, noNote)
		publishJSON(t, console, topic, false, acked(held))
		central := alertAt("pit3-bac09", api.AlertNoDealer, 20)
		publishJSON(t, console, "casino/macau/pit3/tablectl/v1/pit3-bac09/archive/floor/alert", false, central)
		waitAlertRecords(t, r, 3, &log)
		if st := r.svc.Stats(); st.Malformed != 4 || st.AlertRecords != 3 {
			t.Fatalf("stats %+v: want 4 malformed, 3 alert records", st)
		}
		for _, want := range []string{`msg="a malformed alert record: dropped"`, "unexpected EOF", `on the topic of table \"pit3-bac07\"`,
			`unknown field \"extra\"`, "an acknowledgement's note"} {
			if !strings.Contains(log.String(), want) {
				t.Errorf("the log does not say %q:\n%s", want, log.String())
			}
		}
		r.stop()
		a := acked(held)
		want := []history.Alert{
			{ID: a.ID, Table: a.Table, Pit: a.Pit, Kind: a.Kind, Since: a.Since, Raised: a.Raised, Text: a.Text,
				AckBy: a.Ack.By, AckRole: a.Ack.Role, AckAt: a.Ack.At, AckNote: a.Ack.Note},
			{ID: central.ID, Table: central.Table, Pit: central.Pit, Kind: central.Kind, Since: central.Since, Raised: central.Raised, Text: central.Text},
		}
		if got := readAlerts(t, dsn); !reflect.DeepEqual(got, want) {
			t.Fatalf("the archive keeps\n%+v\nwant\n%+v", got, want)
		}
	})
}

// alertGate fails RecordAlert the first fail times, as a database that is away does,
// then holds each until release is closed or its context ends.
type alertGate struct {
	Store
	mu      sync.Mutex
	fail    int
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (s *alertGate) RecordAlert(ctx context.Context, r api.AlertRecord) error {
	s.mu.Lock()
	fail := s.fail > 0
	s.fail--
	s.mu.Unlock()
	if fail {
		return context.DeadlineExceeded // any error of the database's
	}
	s.once.Do(func() { close(s.entered) })
	select {
	case <-s.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Store.RecordAlert(ctx, r)
}

// TestAlertAcknowledgedOnceStored: an alert record the database fails is tried again;
// while it waits, the table's batches are stored all the same. An archive stopped
// before it stored the record has not acknowledged it: the broker delivers it again at
// the next start, and it is stored then.
func TestAlertAcknowledgedOnceStored(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	b := startAlertBroker(t)
	dsn := filepath.Join(t.TempDir(), "archive.db")
	var log logBuffer
	gate := &alertGate{fail: 2, entered: make(chan struct{}), release: make(chan struct{})}
	r := startArchive(t, b, dsn, keysOf(f), &log, func(s Store) Store { gate.Store = s; return gate })
	console := client(t, b, "console", "console", consolePassword)
	topics, _ := api.NewTopics(fixtureTable)
	held := acked(alertAt(fixtureTable, api.AlertHeld, 10))
	publishJSON(t, console, topics.ArchiveAlert("floor"), false, held)
	select {
	case <-gate.entered:
	case <-time.After(30 * time.Second): // a guard against a hang, not a measure
		t.Fatalf("the alert record was not tried again:\n%s", log.String())
	}
	ft := newFakeTable(t, b, f)
	ft.send(1, f.last(), 64)
	ft.waitHeld("at the last record, an alert waiting", heldAt(f.last()))
	if st := r.svc.Stats(); st.Retries != 2 || st.AlertRecords != 0 {
		t.Fatalf("stats %+v: want 2 retries, no alert record stored", st)
	}
	if !strings.Contains(log.String(), "the database failed an alert record: not acknowledged, trying again") {
		t.Fatalf("the log does not say the database failed:\n%s", log.String())
	}
	r.stop()
	if got := readAlerts(t, dsn); len(got) != 0 {
		t.Fatalf("the archive keeps %+v before the record was stored", got)
	}

	var log2 logBuffer
	r = startArchive(t, b, dsn, keysOf(f), &log2, nil)
	waitAlertRecords(t, r, 1, &log2)
	r.stop()
	if got := readAlerts(t, dsn); len(got) != 1 || got[0].ID != held.ID || got[0].AckBy != "S-1" {
		t.Fatalf("the archive keeps %+v, want the alert acknowledged by S-1", got)
	}
}
