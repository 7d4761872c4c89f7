package console

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/ratelog"
)

// heldAlarm is archive floor's retained held message of table id: count alarms, the
// latest a rollback at record 120.
func heldAlarm(id string, count int) string {
	return heldOf(id, api.DefaultArchiveID, 119, count, "2026-11-23T07:59:00Z")
}

// heldOf is archive's retained held message of table id: it holds record seq, and
// counts alarms, the latest a rollback at record seq+1 at the time at.
func heldOf(id, archive string, seq uint64, alarms int, at string) string {
	return fmt.Sprintf(`{"schema":1,"table":%q,"archive":%q,"seq":%d,"hash":"%s","written":300,"at":"2026-11-23T07:58:00Z","alarms":%d,
"alarm":{"at":%q,"item":"record","seq":%d,"kind":"rollback","reason":"the archive holds record %d with hash 1f2e, this one has 9a0b"}}`,
		id, archive, seq, strings.Repeat("ab", 32), alarms, at, seq+1, seq+1)
}

// heldTopic is archive's held topic of table id, under prefix ("", or
// casino/<site>/<pit>/ on a central broker).
func heldTopic(prefix, id, archive string) string {
	tp, err := api.NewTopics(id)
	if err != nil {
		panic(err)
	}
	return prefix + tp.ArchiveHeld(archive)
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

// TestArchiveAlarmOnTheFloor: the archive's alarm of a table (its retained
// archive/<archive>/held, on a table's broker and on a central one) shows in the table's
// summary with the archive, the place and the reason, puts the table ahead of the quiet
// ones, and stays until the archive's message says no item is kept apart; a table the
// archive speaks of alone is not listed.
func TestArchiveAlarmOnTheFloor(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	a := tc.login(t, "S17", "supervisor-pass-17")
	for _, id := range []string{"t1", "t2", "t3"} {
		tc.srv.Ingest("casino/lv1/pit3/tablectl/v1/"+id+"/status", []byte(shipping(id, 0, time.Time{})))
	}
	tc.srv.Ingest(heldTopic("casino/lv1/pit3/", "t3", "floor"), []byte(heldAlarm("t3", 2)))
	tc.srv.Ingest(heldTopic("", "t7", "floor"), []byte(heldAlarm("t7", 1)))
	all := floorOf(t, a)
	if all[0].Table != "t3" {
		t.Errorf("the floor starts with %s, want t3, of the alarm", all[0].Table)
	}
	s := summaryOf(t, all, "t3")
	if s.Archive == nil || s.Archive.Alarms != 2 || s.Archive.Alarm == nil || s.Archive.Alarm.Item != "record" || s.Archive.Alarm.Seq != 120 ||
		s.Archive.Alarm.Kind != "rollback" || !strings.Contains(s.Archive.Alarm.Reason, "holds record 120") || s.Archive.Alarm.Archive != "floor" ||
		s.Archive.Held != 119 || s.Archive.Archive != "" || s.Pit != "pit3" {
		t.Fatalf("t3's archive: %+v", s.Archive)
	}
	if len(all) != 3 {
		t.Fatalf("the floor lists %d tables, want t1, t2 and t3: t7, of which only the archive spoke, is no table", len(all))
	}
	if s := summaryOf(t, all, "t1"); s.Archive == nil || s.Archive.Alarms != 0 || s.Archive.Alarm != nil || s.Archive.LateMinutes != 0 {
		t.Fatalf("t1, shipping, no alarm: %+v", s.Archive)
	}
	// A status changes nothing of the alarm; the archive's message without alarms ends it.
	tc.srv.Ingest("casino/lv1/pit3/tablectl/v1/t3/status", []byte(shipping("t3", 0, time.Time{})))
	if s := summaryOf(t, floorOf(t, a), "t3"); s.Archive.Alarms != 2 {
		t.Fatalf("t3 after a status: %+v", s.Archive)
	}
	tc.srv.Ingest(heldTopic("casino/lv1/pit3/", "t3", "floor"), []byte(`{"schema":1,"table":"t3","seq":400,"alarms":0}`))
	if s := summaryOf(t, floorOf(t, a), "t3"); s.Archive.Alarms != 0 || s.Archive.Alarm != nil || s.Archive.Held != 400 {
		t.Fatalf("t3 once the archive holds it again: %+v", s.Archive)
	}
	// Garbage is refused, the floor unchanged: bad JSON, a negative count, a message
	// naming another archive or table than its topic, one too large.
	tc.srv.Ingest(heldTopic("", "t1", "floor"), []byte(heldAlarm("t1", 1)))
	for _, bad := range []struct{ archive, payload string }{
		{"floor", `{"alarms":"many"}`},
		{"floor", `{"alarms":-1}`},
		{"standby", heldOf("t1", "floor", 5, 9, "2026-11-23T08:00:00Z")},
		{"floor", heldOf("t2", "floor", 5, 9, "2026-11-23T08:00:00Z")},
		{"floor", `{"alarms":9,"pad":"` + strings.Repeat("x", maxHeldPayload) + `"}`},
	} {
		tc.srv.Ingest(heldTopic("", "t1", bad.archive), []byte(bad.payload))
		if s := summaryOf(t, floorOf(t, a), "t1"); s.Archive.Alarms != 1 || s.Archive.Alarm.Archive != "floor" {
			t.Fatalf("t1 after %.60s on archive %s: %+v", bad.payload, bad.archive, s.Archive)
		}
	}
	for _, want := range []string{"archive/floor/held", "archive/standby/held", "not its topic's", "over the 16384 taken"} {
		if !strings.Contains(tc.log.String(), want) {
			t.Errorf("the garbage is not logged naming its topic and fault (%q):\n%s", want, tc.log.String())
		}
	}
}

// TestAlarmsOfTwoArchivesOnOneTile: a table shipped to archives floor and standby shows
// the alarms of both, summed, the latest of them naming its archive, and the held of
// the archive furthest behind (the status's lag or the archive's own message, whichever
// is further), naming it; each archive's message replaces only its own.
func TestAlarmsOfTwoArchivesOnOneTile(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	a := tc.login(t, "S17", "supervisor-pass-17")
	tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":1,"table":"t1","state":"online","archive":{"archive":"standby","held":90,"behind":30}}`))
	tc.srv.Ingest(heldTopic("", "t1", "floor"), []byte(heldOf("t1", "floor", 119, 2, "2026-11-23T07:59:00Z")))
	tc.srv.Ingest(heldTopic("", "t1", "standby"), []byte(heldOf("t1", "standby", 80, 1, "2026-11-23T08:01:00Z")))
	s := summaryOf(t, floorOf(t, a), "t1").Archive
	if s == nil || s.Alarms != 3 || s.Alarm == nil || s.Alarm.Archive != "standby" || s.Alarm.Seq != 81 || s.Held != 90 || s.Archive != "standby" || s.Behind != 30 {
		t.Fatalf("two archives' alarms: %+v (alarm %+v)", s, s.Alarm)
	}
	_, body := a.get(t, "/api/tables/t1")
	if !strings.Contains(body, `"alarms":3,"alarm":{"at":"2026-11-23T08:01:00Z","item":"record","seq":81,"kind":"rollback"`) || !strings.Contains(body, `"archive":"standby"}`) {
		t.Errorf("the table's archive in JSON: %s", body)
	}
	// Standby stores the table again: floor's alarm is the latest, floor the furthest behind.
	tc.srv.Ingest(heldTopic("", "t1", "standby"), []byte(`{"schema":1,"table":"t1","archive":"standby","seq":300,"alarms":0}`))
	s = summaryOf(t, floorOf(t, a), "t1").Archive
	if s.Alarms != 2 || s.Alarm == nil || s.Alarm.Archive != "floor" || s.Alarm.Seq != 120 || s.Held != 119 || s.Archive != "floor" {
		t.Fatalf("standby caught up: %+v (alarm %+v)", s, s.Alarm)
	}
	// Floor's message cleared: standby alone, named no more.
	tc.srv.Ingest(heldTopic("", "t1", "floor"), nil)
	s = summaryOf(t, floorOf(t, a), "t1").Archive
	if s.Alarms != 0 || s.Alarm != nil || s.Held != 300 || s.Archive != "" {
		t.Fatalf("floor's message cleared: %+v", s)
	}
	// Two alarms at the same time: the first archive by id, whatever the order they came.
	tc.srv.Ingest(heldTopic("", "t1", "standby"), []byte(heldOf("t1", "standby", 80, 1, "2026-11-23T08:05:00Z")))
	tc.srv.Ingest(heldTopic("", "t1", "floor"), []byte(heldOf("t1", "floor", 119, 1, "2026-11-23T08:05:00Z")))
	if s := summaryOf(t, floorOf(t, a), "t1").Archive; s.Alarms != 2 || s.Alarm.Archive != "floor" {
		t.Fatalf("alarms at the same time: %+v (alarm %+v)", s, s.Alarm)
	}
	// The archives of one table are bounded.
	for i := range maxArchives {
		tc.srv.Ingest(heldTopic("", "t1", fmt.Sprintf("a%d", i)), []byte(`{"schema":1,"seq":1,"alarms":0}`))
	}
	if n := len(tc.srv.floor.tables["t1"].arch.held); n != maxArchives || !strings.Contains(tc.log.String(), "held messages of 8 archives already") {
		t.Fatalf("%d archives kept of t1, want %d and the rest refused", n, maxArchives)
	}
}

// TestHeldAloneMakesNoTable: the archives' held messages of a table the console has not
// seen make no table (no tile, no page); they are kept aside and show once the table's
// status arrives, and its stream is told. An archive's message cleared meanwhile is not
// kept.
func TestHeldAloneMakesNoTable(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	a := tc.login(t, "S17", "supervisor-pass-17")
	tc.srv.Ingest(heldTopic("", "t9", "floor"), []byte(heldOf("t9", "floor", 119, 2, "2026-11-23T07:59:00Z")))
	tc.srv.Ingest(heldTopic("", "t9", "standby"), []byte(heldOf("t9", "standby", 50, 1, "2026-11-23T08:01:00Z")))
	tc.srv.Ingest(heldTopic("", "t8", "floor"), []byte(heldAlarm("t8", 4)))
	tc.srv.Ingest(heldTopic("", "t8", "floor"), nil)
	if all := floorOf(t, a); len(all) != 0 {
		t.Fatalf("held messages alone made tables: %+v", all)
	}
	if code, body := a.get(t, "/api/tables/t9"); code != 404 {
		t.Fatalf("t9's page: %d %s", code, body)
	}
	var told []string
	tc.srv.floor.mu.Lock()
	changed := tc.srv.floor.changed
	tc.srv.floor.changed = func(table, event string, payload []byte) {
		told = append(told, table+" "+event+" "+string(payload))
		changed(table, event, payload)
	}
	tc.srv.floor.mu.Unlock()
	tc.srv.Ingest("tablectl/v1/t9/state", []byte(dealing("t9", "rws")))
	s := summaryOf(t, floorOf(t, a), "t9").Archive
	if s == nil || s.Alarms != 3 || s.Alarm.Archive != "standby" || s.Held != 50 || s.Archive != "standby" {
		t.Fatalf("t9 once its state arrived: %+v", s)
	}
	if len(told) != 2 || !strings.HasPrefix(told[1], "t9 archive {") || !strings.Contains(told[1], `"alarms":3`) {
		t.Errorf("the streams were told %q", told)
	}
	tc.srv.Ingest("tablectl/v1/t8/status", []byte(shipping("t8", 0, time.Time{})))
	if s := summaryOf(t, floorOf(t, a), "t8").Archive; s == nil || s.Alarms != 0 || s.Held != 100 {
		t.Fatalf("t8, whose archive's message was cleared before its status: %+v", s)
	}
	if n := len(tc.srv.floor.aside.byTable) + len(tc.srv.floor.aside.order); n != 0 {
		t.Errorf("%d entries still kept aside", n)
	}
}

// TestHeldForFakeIDsIsBounded: 2,000 held messages for ids no table publishes under
// make no tile, and keep at most maxAside tables aside, the latest; a table whose id is
// a service user's (board, archive-floor...) is ignored whatever it publishes, with one
// log line every few seconds.
func TestHeldForFakeIDsIsBounded(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	tc.srv.quiet = ratelog.New(0, tc.clock.now)
	a := tc.login(t, "S17", "supervisor-pass-17")
	for i := range 2000 {
		id := fmt.Sprintf("fake-%04d", i)
		tc.srv.Ingest(heldTopic("", id, "floor"), []byte(heldAlarm(id, 1)))
	}
	if all := floorOf(t, a); len(all) != 0 {
		t.Fatalf("2,000 held messages made %d tables", len(all))
	}
	f := tc.srv.floor
	if len(f.aside.byTable) != maxAside || len(f.aside.order) != maxAside || maxAside != 1024 {
		t.Fatalf("%d tables kept aside (%d in order), want %d", len(f.aside.byTable), len(f.aside.order), maxAside)
	}
	// The latest are kept: fake-1999's alarm shows with its status, fake-0000's is gone.
	tc.srv.Ingest("tablectl/v1/fake-1999/status", []byte(shipping("fake-1999", 0, time.Time{})))
	tc.srv.Ingest("tablectl/v1/fake-0000/status", []byte(shipping("fake-0000", 0, time.Time{})))
	all := floorOf(t, a)
	if s := summaryOf(t, all, "fake-1999"); s.Archive.Alarms != 1 {
		t.Errorf("fake-1999, the latest kept aside: %+v", s.Archive)
	}
	if s := summaryOf(t, all, "fake-0000"); s.Archive.Alarms != 0 {
		t.Errorf("fake-0000, the first dropped: %+v", s.Archive)
	}
	if len(f.aside.byTable) != maxAside-1 {
		t.Errorf("%d kept aside once fake-1999 came", len(f.aside.byTable))
	}

	// Service users' names are never tables'.
	before := strings.Count(tc.log.String(), "a service user's")
	for range 50 {
		for _, id := range []string{"board", "console", "dealer", "archive-floor", "tablectl"} {
			tc.srv.Ingest("tablectl/v1/"+id+"/status", []byte(shipping(id, 0, time.Time{})))
			tc.srv.Ingest("tablectl/v1/"+id+"/state", []byte(dealing(id, "rws")))
			tc.srv.Ingest(heldTopic("", id, "floor"), []byte(heldAlarm(id, 1)))
		}
	}
	for _, s := range floorOf(t, a) {
		if !strings.HasPrefix(s.Table, "fake-") {
			t.Errorf("a service user's name is a table on the floor: %+v", s)
		}
	}
	if _, kept := f.aside.byTable["board"]; kept {
		t.Error("the held message of board was kept aside")
	}
	if n := strings.Count(tc.log.String(), "a service user's") - before; n != 1 {
		t.Errorf("%d log lines for 750 messages under service users' names, want 1:\n%s", n, tc.log.String())
	}
	tc.clock.add(6 * time.Second)
	tc.srv.Ingest("tablectl/v1/board/status", []byte(shipping("board", 0, time.Time{})))
	if !strings.Contains(tc.log.String(), "not_logged_since_last=749") {
		t.Errorf("the next line does not count those left out:\n%s", tc.log.String())
	}
}

// TestArchiveLateByTheConsolesClock: a table whose status says the archive lacks records
// written longer ago than console.archive_late is "not archived for N min", N by the
// console's clock; the streams are told as the clock passes the setting, with no message.
func TestArchiveLateByTheConsolesClock(t *testing.T) {
	t.Parallel()
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

// TestArchiveHeldIsSubscribed: the console's subscriptions take every archive's held
// message of every table, on a table's broker and, central, on a central one.
func TestArchiveHeldIsSubscribed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		central bool
		topic   string
	}{
		{false, heldTopic("", "t1", "floor")},
		{false, heldTopic("", "t1", "standby")},
		{true, heldTopic("", "t1", "floor")},
		{true, heldTopic("casino/lv1/pit3/", "t1", "standby")},
	} {
		ok := false
		for _, f := range Filters(c.central) {
			ok = ok || filterMatches(f, c.topic)
		}
		if !ok {
			t.Errorf("central %v: %v do not take %s", c.central, Filters(c.central), c.topic)
		}
	}
	if !filterMatches(api.ArchivesHeldFilter, heldTopic("", "t1", "standby")) || filterMatches("tablectl/v1/#", "casino/x") {
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
