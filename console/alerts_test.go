package console

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/alerts"
	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/history"
)

// alertRecords are the alert records the console published, decoded, with their topics.
func alertRecords(t *testing.T, tc *testConsole) (topics []string, recs []api.AlertRecord) {
	t.Helper()
	for _, p := range tc.table.sent() {
		if !strings.HasSuffix(p.topic, "/"+api.ArchiveAlertPart) {
			continue
		}
		var r api.AlertRecord
		if err := json.Unmarshal([]byte(p.payload), &r); err != nil {
			t.Fatal(err)
		}
		if r.Schema != api.Schema { // the archive's service drops any other (archive/service)
			t.Fatalf("an alert record of schema %d, the archive reads %d: %s", r.Schema, api.Schema, p.payload)
		}
		topics, recs = append(topics, p.topic), append(recs, r)
	}
	return topics, recs
}

// heldFor is table id's state, held for irregularity 4 raised at raised.
func heldAt(id string, raised time.Time) string {
	return fmt.Sprintf(`{"schema":2,"table":%q,"shoe":3,"round":81,"seq":500,"at":%q,"phase":"dealing","rules":"rws","decks":8,
"held":{"id":4,"kind":"simultaneous_draw","rule":"RWS Baccarat 5.10","choices":["as-read","swapped"],"decided_by":"supervisor","raised":%q}}`,
		id, raised.Format(time.RFC3339), raised.Format(time.RFC3339))
}

// TestAlertRaisedAndAcknowledged: a table held past the site's limit raises one alert,
// recorded with the archive on the table's alert topic; the floor's stream and GET
// /api/alerts show it; a dealer cannot acknowledge it (403, nothing recorded); a
// supervisor's acknowledgement needs a note, stands once (a second is 409), and is
// recorded with the archive with who, when and the note (docs/pit.md, "Alerts").
func TestAlertRaisedAndAcknowledged(t *testing.T) {
	t.Parallel()
	tc := newTestConsoleWith(t, nil, func(o *Options) { o.Alerts = &alerts.Rules{HeldAfter: 5 * time.Minute} })
	online(tc, "t1", "rws")
	raised := tc.clock.now()
	tc.srv.Ingest("tablectl/v1/t1/state", []byte(heldAt("t1", raised)))
	tc.clock.add(4 * time.Minute)
	tc.srv.checkAlerts()
	if _, recs := alertRecords(t, tc); len(recs) != 0 {
		t.Fatalf("an alert before 5 minutes: %+v", recs)
	}
	tc.clock.add(2 * time.Minute)
	tc.srv.checkAlerts()
	tc.srv.checkAlerts()
	topics, recs := alertRecords(t, tc)
	if len(recs) != 1 || topics[0] != "tablectl/v1/t1/archive/floor/alert" || recs[0].Kind != api.AlertHeld || recs[0].Ack != nil ||
		recs[0].Text != "held 6 minutes for #4 simultaneous draw" || !recs[0].Since.Equal(raised) {
		t.Fatalf("the alert recorded: %v %+v", topics, recs)
	}
	if err := recs[0].Check("t1"); err != nil {
		t.Fatal(err)
	}
	id := recs[0].ID

	dealer, sup := tc.login(t, "D4", "dealer-password-4"), tc.login(t, "S17", "supervisor-pass-17")
	var got struct {
		Alerts      []AlertView `json:"alerts"`
		Acknowledge bool        `json:"acknowledge"`
	}
	code, body := dealer.get(t, "/api/alerts")
	if json.Unmarshal([]byte(body), &got); code != 200 || len(got.Alerts) != 1 || got.Alerts[0].ID != id || got.Acknowledge || !got.Alerts[0].Kept {
		t.Fatalf("the dealer's alerts: %d %s", code, body)
	}
	if code, body := dealer.post(t, "/api/alerts/ack", `{"id":"`+id+`","note":"seen"}`); code != 403 || !strings.Contains(body, "supervisor or above") {
		t.Fatalf("a dealer's acknowledgement: %d %s", code, body)
	}
	if code, body := sup.post(t, "/api/alerts/ack", `{"id":"`+id+`","note":"  "}`); code != 400 || !strings.Contains(body, "note") {
		t.Fatalf("an acknowledgement with no note: %d %s", code, body)
	}
	if _, recs := alertRecords(t, tc); len(recs) != 1 {
		t.Fatalf("refused acknowledgements recorded: %+v", recs)
	}
	tc.clock.add(time.Minute)
	code, body = sup.post(t, "/api/alerts/ack", `{"id":"`+id+`","note":"called the pit manager; decided swapped"}`)
	if code != 200 {
		t.Fatalf("the supervisor's acknowledgement: %d %s", code, body)
	}
	_, recs = alertRecords(t, tc)
	if len(recs) != 2 || recs[1].ID != id || recs[1].Ack == nil || recs[1].Ack.By != "S17" || recs[1].Ack.Role != "supervisor" ||
		recs[1].Ack.Note != "called the pit manager; decided swapped" || !recs[1].Ack.At.Equal(tc.clock.now()) {
		t.Fatalf("the acknowledgement recorded: %+v", recs)
	}
	if code, body := sup.post(t, "/api/alerts/ack", `{"id":"`+id+`","note":"again"}`); code != 409 || !strings.Contains(body, "acknowledged by S17") {
		t.Fatalf("a second acknowledgement: %d %s", code, body)
	}
	code, body = sup.get(t, "/api/alerts")
	if json.Unmarshal([]byte(body), &got); code != 200 || len(got.Alerts) != 1 || got.Alerts[0].Ack == nil || !got.Acknowledge {
		t.Fatalf("after the acknowledgement: %d %s", code, body)
	}
	if !strings.Contains(tc.log.String(), "alert acknowledged") {
		t.Errorf("the audit log has no acknowledgement:\n%s", tc.log.String())
	}
}

// alertHistory is an archive's reader with the alerts it keeps (AlertHistory).
type alertHistory struct {
	historyDouble
	kept []history.Alert
}

func (h *alertHistory) Alerts(context.Context, history.AlertSearch) ([]history.Alert, error) {
	return h.kept, nil
}

// TestAlertsReadBackAtStart: a console started after alerts were raised shows those the
// archive keeps, open or acknowledged, and raises none of them again.
func TestAlertsReadBackAtStart(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	id := "held/t1/" + start.Add(-10*time.Minute).Format("2006-01-02T15:04:05Z") + "/4"
	h := &alertHistory{kept: []history.Alert{
		{ID: id, Table: "t1", Kind: api.AlertHeld, Since: start.Add(-10 * time.Minute), Raised: start.Add(-5 * time.Minute), Text: "held 5 minutes for #4 simultaneous draw"},
		{ID: "pace/t1/x", Table: "t1", Kind: api.AlertPace, Since: start.Add(-2 * time.Hour), Raised: start.Add(-time.Hour), Text: "12 rounds",
			AckBy: "S17", AckRole: "supervisor", AckAt: start.Add(-30 * time.Minute), AckNote: "table closed for a break"}}}
	tc := newTestConsoleWith(t, nil, func(o *Options) {
		o.Alerts, o.History = &alerts.Rules{HeldAfter: 5 * time.Minute}, h
	})
	online(tc, "t1", "rws")
	tc.srv.Ingest("tablectl/v1/t1/state", []byte(heldAt("t1", start.Add(-10*time.Minute))))
	sup := tc.login(t, "S17", "supervisor-pass-17")
	// The sweep reads them as it starts; reading them again here is the same, and
	// needs no wait on it.
	tc.srv.loadAlerts(context.Background())
	var got struct{ Alerts []AlertView }
	_, body := sup.get(t, "/api/alerts")
	json.Unmarshal([]byte(body), &got)
	if got.Alerts[0].ID != id || got.Alerts[0].Ack != nil || got.Alerts[1].Ack == nil || got.Alerts[1].Ack.Note != "table closed for a break" {
		t.Fatalf("read back: %+v", got.Alerts)
	}
	tc.srv.checkAlerts()
	if _, recs := alertRecords(t, tc); len(recs) != 0 {
		t.Fatalf("an alert the archive keeps raised again: %+v", recs)
	}
}

// TestDeviceAlert: the failures of a table's devices, from its messages (a raised
// irregularity naming its device; a device going from connected to disconnected in the
// status), count on its tile for the last hour; the fifth failure of one device within
// the hour raises one device alert, recorded with the archive. A message sent again
// counts once; an irregularity with no device counts none.
func TestDeviceAlert(t *testing.T) {
	t.Parallel()
	tc := newTestConsoleWith(t, nil, func(o *Options) { o.Alerts = &alerts.Rules{DeviceFailures: 5} })
	online(tc, "t1", "rws")
	at := tc.clock.now()
	irreg := func(seq int, device string) {
		tc.srv.Ingest("tablectl/v1/t1/irregularity", []byte(fmt.Sprintf(`{"schema":2,"table":"t1","shoe":1,"round":3,"seq":%d,"at":%q,
"event":"raised","id":%d,"kind":"incorrect_cards","device":%q}`, seq, at.Add(time.Duration(seq)*time.Second).Format(time.RFC3339), seq, device)))
	}
	irreg(1, "shoe")
	irreg(1, "shoe") // sent again after a reconnect
	irreg(2, "")     // a card out of the shuffler's order: no device's failure
	irreg(3, "shoe")
	irreg(4, "shuffler")
	tc.srv.Ingest("tablectl/v1/t1/status", []byte(fmt.Sprintf(`{"schema":2,"table":"t1","state":"online","rules":"rws","at":%q,
"devices":{"shoe":"disconnected","shuffler":"connected"}}`, at.Add(5*time.Second).Format(time.RFC3339))))
	sum, _ := tc.srv.floor.summary("t1")
	if fmt.Sprint(sum.Failures) != "map[shoe:3 shuffler:1]" {
		t.Fatalf("the tile's failures %v, want the shoe's 3 and the shuffler's 1", sum.Failures)
	}
	tc.srv.checkAlerts()
	if _, recs := alertRecords(t, tc); len(recs) != 0 {
		t.Fatalf("an alert at 3 failures: %+v", recs)
	}
	irreg(6, "shoe")
	irreg(7, "shoe")
	tc.srv.checkAlerts()
	tc.srv.checkAlerts()
	_, recs := alertRecords(t, tc)
	if len(recs) != 1 || recs[0].Kind != api.AlertDevice || recs[0].Table != "t1" || !strings.HasPrefix(recs[0].Text, "shoe failed 5 times") ||
		!recs[0].Since.Equal(at.Add(time.Second)) {
		t.Fatalf("the device alert recorded: %+v", recs)
	}
	if err := recs[0].Check("t1"); err != nil {
		t.Fatal(err)
	}
	tc.clock.add(2 * time.Hour)
	if sum, _ := tc.srv.floor.summary("t1"); sum.Failures != nil {
		t.Errorf("the tile's failures two hours on: %v, want none", sum.Failures)
	}
}
