package console

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
)

// heldAlarm is the archive's retained archive/held message of table id: count alarms,
// the latest a rollback at record 120.
func heldAlarm(id string, count int) string {
	return fmt.Sprintf(`{"schema":1,"table":%q,"seq":119,"hash":"%s","written":300,"at":"2026-11-23T07:58:00Z","alarms":%d,
"alarm":{"at":"2026-11-23T07:59:00Z","item":"record","seq":120,"kind":"rollback","reason":"the archive holds record 120 with hash 1f2e, this one has 9a0b"}}`,
		id, strings.Repeat("ab", 32), count)
}

// shipping is table id's status: online, the archive behind by behind records since
// since (zero: none behind).
func shipping(id string, behind int, since time.Time) string {
	s := ""
	if !since.IsZero() {
		s = `,"since":"` + since.UTC().Format(time.RFC3339Nano) + `"`
	}
	return fmt.Sprintf(`{"schema":1,"table":%q,"state":"online","archive":{"held":100,"behind":%d%s}}`, id, behind, s)
}

func floorOf(t *testing.T, a *agent) []Summary {
	t.Helper()
	code, body := a.get(t, "/api/tables")
	var out []Summary
	if err := json.Unmarshal([]byte(body), &out); code != 200 || err != nil {
		t.Fatalf("%d %s", code, body)
	}
	return out
}

func summaryOf(t *testing.T, all []Summary, id string) Summary {
	t.Helper()
	for _, s := range all {
		if s.Table == id {
			return s
		}
	}
	t.Fatalf("no table %s on the floor", id)
	return Summary{}
}

// TestArchiveAlarmOnTheFloor: the archive's alarm of a table (its retained archive/held,
// on a table's broker and on a central one) shows in the table's summary with the place
// and the reason, puts the table ahead of the quiet ones, and stays until the archive's
// message says no item is kept apart; a table the archive speaks of alone is listed.
func TestArchiveAlarmOnTheFloor(t *testing.T) {
	tc := newTestConsole(t)
	a := tc.login(t, "S17", "supervisor-pass-17")
	for _, id := range []string{"t1", "t2", "t3"} {
		tc.srv.Ingest("casino/lv1/pit3/tablectl/v1/"+id+"/status", []byte(shipping(id, 0, time.Time{})))
	}
	tc.srv.Ingest("casino/lv1/pit3/tablectl/v1/t3/"+api.ArchiveHeldTopic, []byte(heldAlarm("t3", 2)))
	tc.srv.Ingest("tablectl/v1/t7/"+api.ArchiveHeldTopic, []byte(heldAlarm("t7", 1)))
	all := floorOf(t, a)
	if all[0].Table != "t3" {
		t.Errorf("the floor starts with %s, want t3, of the alarm", all[0].Table)
	}
	s := summaryOf(t, all, "t3")
	if s.Archive == nil || s.Archive.Alarms != 2 || s.Archive.Alarm == nil || s.Archive.Alarm.Item != "record" || s.Archive.Alarm.Seq != 120 ||
		s.Archive.Alarm.Kind != "rollback" || !strings.Contains(s.Archive.Alarm.Reason, "holds record 120") || s.Archive.Held != 119 || s.Pit != "pit3" {
		t.Fatalf("t3's archive: %+v", s.Archive)
	}
	if s := summaryOf(t, all, "t7"); s.Archive == nil || s.Archive.Alarms != 1 || s.Online {
		t.Fatalf("t7, of which only the archive spoke: %+v", s)
	}
	if s := summaryOf(t, all, "t1"); s.Archive == nil || s.Archive.Alarms != 0 || s.Archive.Alarm != nil || s.Archive.LateMinutes != 0 {
		t.Fatalf("t1, shipping, no alarm: %+v", s.Archive)
	}
	// A status changes nothing of the alarm; the archive's message without alarms ends it.
	tc.srv.Ingest("casino/lv1/pit3/tablectl/v1/t3/status", []byte(shipping("t3", 0, time.Time{})))
	if s := summaryOf(t, floorOf(t, a), "t3"); s.Archive.Alarms != 2 {
		t.Fatalf("t3 after a status: %+v", s.Archive)
	}
	tc.srv.Ingest("casino/lv1/pit3/tablectl/v1/t3/"+api.ArchiveHeldTopic, []byte(`{"schema":1,"table":"t3","seq":400,"alarms":0}`))
	if s := summaryOf(t, floorOf(t, a), "t3"); s.Archive.Alarms != 0 || s.Archive.Alarm != nil || s.Archive.Held != 400 {
		t.Fatalf("t3 once the archive holds it again: %+v", s.Archive)
	}
	// Garbage is refused, the floor unchanged.
	tc.srv.Ingest("tablectl/v1/t7/"+api.ArchiveHeldTopic, []byte(`{"alarms":"many"}`))
	tc.srv.Ingest("tablectl/v1/t7/"+api.ArchiveHeldTopic, []byte(`{"alarms":-1}`))
	if s := summaryOf(t, floorOf(t, a), "t7"); s.Archive.Alarms != 1 {
		t.Fatalf("t7 after garbage: %+v", s.Archive)
	}
	if !strings.Contains(tc.log.String(), "archive/held") {
		t.Errorf("the garbage is not logged naming its topic:\n%s", tc.log.String())
	}
}

// TestArchiveLateByTheConsolesClock: a table whose status says the archive lacks records
// written longer ago than console.archive_late is "not archived for N min", N by the
// console's clock; the streams are told as the clock passes the setting, with no message.
func TestArchiveLateByTheConsolesClock(t *testing.T) {
	tc := newTestConsoleWith(t, nil, func(o *Options) { o.ArchiveLate = 10 * time.Minute })
	a := tc.login(t, "S17", "supervisor-pass-17")
	now := tc.clock.now()
	tc.srv.Ingest("tablectl/v1/t1/status", []byte(shipping("t1", 40, now.Add(-25*time.Minute-10*time.Second))))
	tc.srv.Ingest("tablectl/v1/t2/status", []byte(shipping("t2", 3, now.Add(-5*time.Minute))))
	tc.srv.Ingest("tablectl/v1/t3/status", []byte(shipping("t3", 0, time.Time{})))
	all := floorOf(t, a)
	if s := summaryOf(t, all, "t1"); s.Archive.LateMinutes != 25 || s.Archive.Behind != 40 || all[0].Table != "t1" {
		t.Fatalf("t1, 25 min behind: %+v; the floor starts with %s", s.Archive, all[0].Table)
	}
	if s := summaryOf(t, all, "t2"); s.Archive.LateMinutes != 0 || s.Archive.Behind != 3 {
		t.Fatalf("t2, 5 min behind: %+v", s.Archive)
	}
	if ch := tc.srv.floor.lateChanged(); len(ch) != 0 {
		t.Fatalf("streams told of %v with the clock still", ch)
	}
	tc.clock.add(6 * time.Minute)
	ch := tc.srv.floor.lateChanged()
	if len(ch) != 2 || ch["t2"] == nil || ch["t1"] == nil {
		t.Fatalf("after 6 min, told of %v; want t2 now late and t1 a minute later", ch)
	}
	var st ArchiveState
	if err := json.Unmarshal(ch["t2"], &st); err != nil || st.LateMinutes != 11 {
		t.Fatalf("t2's event %s: %v", ch["t2"], err)
	}
	if s := summaryOf(t, floorOf(t, a), "t2"); s.Archive.LateMinutes != 11 {
		t.Fatalf("t2 after 6 min: %+v", s.Archive)
	}
	// The archive catches up: the status says so, and the table is late no more.
	tc.srv.Ingest("tablectl/v1/t1/status", []byte(shipping("t1", 0, time.Time{})))
	if s := summaryOf(t, floorOf(t, a), "t1"); s.Archive.LateMinutes != 0 || s.Archive.Behind != 0 {
		t.Fatalf("t1 caught up: %+v", s.Archive)
	}
	if s := summaryOf(t, floorOf(t, a), "t3"); s.Archive == nil || s.Archive.LateMinutes != 0 {
		t.Fatalf("t3: %+v", s.Archive)
	}
}

// TestArchiveHeldIsSubscribed: the console's subscriptions take every table's
// archive/held, on a table's broker and, central, on a central one.
func TestArchiveHeldIsSubscribed(t *testing.T) {
	for _, c := range []struct {
		central bool
		topic   string
	}{
		{false, "tablectl/v1/t1/" + api.ArchiveHeldTopic},
		{true, "tablectl/v1/t1/" + api.ArchiveHeldTopic},
		{true, "casino/lv1/pit3/tablectl/v1/t1/" + api.ArchiveHeldTopic},
	} {
		ok := false
		for _, f := range Filters(c.central) {
			ok = ok || filterMatches(f, c.topic)
		}
		if !ok {
			t.Errorf("central %v: %v do not take %s", c.central, Filters(c.central), c.topic)
		}
	}
	if !filterMatches(api.ArchiveHeldFilter, "tablectl/v1/t1/"+api.ArchiveHeldTopic) || filterMatches("tablectl/v1/#", "casino/x") {
		t.Fatal("filterMatches is wrong")
	}
}

// filterMatches is MQTT's match of a topic by a filter (+ one level, # the rest).
func filterMatches(filter, topic string) bool {
	f, tp := strings.Split(filter, "/"), strings.Split(topic, "/")
	for i, l := range f {
		if l == "#" {
			return true
		}
		if i >= len(tp) || l != "+" && l != tp[i] {
			return false
		}
	}
	return len(f) == len(tp)
}
