package floorcmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/internal/artifacts"
	"github.com/tablectl/tablectl/pitreport"
)

// TestShiftReportAndAlerts: on a SQLite archive holding a table's morning (devices in
// trouble, a dealer on) and two alerts the console recorded, one acknowledged with a
// note: tablectl-floor alerts lists both, --open the one left; the shift report of the
// pit (HTML for A4, CSV by parts, JSON) holds the pace, the rotation, the devices and the
// alerts with who acknowledged each, when and the note; another pit's holds no alert.
func TestShiftReportAndAlerts(t *testing.T) {
	t.Parallel()
	const id = "pit4-bac02"
	ctx := context.Background()
	dsn, a := devicesArchive(t, id)
	if err := a.SetPit(ctx, id, "pit4"); err != nil {
		t.Fatal(err)
	}
	at := func(h, m int) time.Time { return time.Date(2026, 3, 2, h, m, 0, 0, time.UTC) }
	held := api.AlertRecord{Schema: 1, Table: id, ID: "held/" + id + "/2026-03-02T09:20:00Z/1", Kind: api.AlertHeld, Pit: "pit4",
		Since: at(9, 20), Raised: at(9, 25), Text: "held 5 minutes for #1 technical interruption"}
	late := api.AlertRecord{Schema: 1, Table: id, ID: "archive-late/" + id + "/2026-03-02T10:00:00Z", Kind: api.AlertArchiveLate, Pit: "pit4",
		Since: at(10, 0), Raised: at(10, 11), Text: "not archived for 11 minutes"}
	acked := held
	acked.Ack = &api.AlertAck{By: "S17", Role: "supervisor", At: at(9, 31), Note: "shoe cable reseated; the shoe came back"}
	for _, r := range []api.AlertRecord{held, late, acked} {
		if err := a.RecordAlert(ctx, r); err != nil {
			t.Fatal(err)
		}
	}

	span := []string{"--db", dsn, "--from", "2026-03-02T06:00:00Z", "--to", "2026-03-02T14:00:00Z", "--tz", "UTC"}
	out, errs, err := runCmd(t, "", append([]string{"alerts", "--format", "json"}, span...)...)
	if err != nil {
		t.Fatalf("alerts: %v\n%s", err, errs)
	}
	var as []history.Alert
	if err := json.Unmarshal([]byte(out), &as); err != nil || len(as) != 2 || as[0].AckBy != "S17" || as[0].AckNote != acked.Ack.Note || as[1].AckBy != "" {
		t.Fatalf("alerts: %v\n%s", err, out)
	}
	out, _, err = runCmd(t, "", append([]string{"alerts", "--open", "--format", "json"}, span...)...)
	if err := json.Unmarshal([]byte(out), &as); err != nil || len(as) != 1 || as[0].Kind != api.AlertArchiveLate {
		t.Fatalf("alerts --open: %v\n%s", err, out)
	}

	page, errs, err := runCmd(t, "", append([]string{"report", "--pit", "pit4", "--format", "html"}, span...)...)
	if err != nil {
		t.Fatalf("report --pit: %v\n%s", err, errs)
	}
	for _, want := range []string{"<h1>Shift report: pit4</h1>", "<h2>Pace by table</h2>", "<h2>Pace by dealer</h2>", "<h2>Rotation</h2>",
		"<h2>Irregularities and decisions</h2>", "<h2>Alerts</h2>", "<h2>Devices</h2>", "D-ANA", "supervisor S17",
		"shoe cable reseated; the shoe came back", "not archived for 11 minutes", "@page { size: A4 landscape"} {
		if !strings.Contains(page, want) {
			t.Errorf("the shift report's page has no %q", want)
		}
	}
	csv, _, err := runCmd(t, "", append([]string{"report", "--pit", "pit4"}, span...)...)
	if err != nil || !strings.HasPrefix(csv, "Pace by table\ntable,from,to,rounds,") || !strings.Contains(csv, "\nAlerts\ntable,kind,alert,since,raised,acknowledged by,at,note\n") ||
		!strings.Contains(csv, "supervisor S17,2026-03-02 09:31:00,shoe cable reseated; the shoe came back") {
		t.Errorf("the shift report as CSV: %v\n%s", err, csv)
	}
	js, _, err := runCmd(t, "", append([]string{"report", "--pit", "pit4", "--format", "json"}, span...)...)
	var sheets []pitreport.Sheet
	if err != nil || json.Unmarshal([]byte(js), &sheets) != nil || len(sheets) != 6 || sheets[4].Title != "Alerts" || len(sheets[4].Rows) != 2 {
		t.Errorf("the shift report as JSON: %v\n%s", err, js)
	}
	other, _, err := runCmd(t, "", append([]string{"report", "--pit", "pit9"}, span...)...)
	if err != nil || strings.Contains(other, "shoe cable") || strings.Contains(other, id) {
		t.Errorf("another pit's shift report: %v\n%s", err, other)
	}
	artifacts.Write(t, "shift-report.html", []byte(page))
}
