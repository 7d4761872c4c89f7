package console

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/history"
)

// integrityDouble is a History that also keeps integrity alarms, searched as the
// archive searches them; ack sets an acknowledgement as the archive stores one.
type integrityDouble struct {
	historyDouble
	amu    sync.Mutex
	alarms []history.IntegrityAlarm
}

// IntegrityAlarms returns the alarms s chooses, in the order they were raised.
func (d *integrityDouble) IntegrityAlarms(_ context.Context, s history.AlertSearch) ([]history.IntegrityAlarm, error) {
	d.amu.Lock()
	defer d.amu.Unlock()
	var out []history.IntegrityAlarm
	for _, a := range d.alarms {
		if s.ID != "" && a.ID != s.ID || s.Table != "" && a.Table != s.Table || s.Kind != "" && a.Kind != s.Kind ||
			s.Open && a.AckBy != "" || !s.From.IsZero() && a.Raised.Before(s.From) || !s.To.IsZero() && !a.Raised.Before(s.To) {
			continue
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b history.IntegrityAlarm) int { return a.Raised.Compare(b.Raised) })
	return out, nil
}

// ack stores r's acknowledgement as the archive does: on the alarm of its ID, table and
// kind, the first standing.
func (d *integrityDouble) ack(r api.AlertRecord) {
	d.amu.Lock()
	defer d.amu.Unlock()
	for i, a := range d.alarms {
		if a.ID == r.ID && a.Table == r.Table && a.Kind == r.Kind && a.AckBy == "" && r.Ack != nil {
			d.alarms[i].AckBy, d.alarms[i].AckRole, d.alarms[i].AckAt, d.alarms[i].AckNote = r.Ack.By, r.Ack.Role, r.Ack.At, r.Ack.Note
		}
	}
}

// integritySample is one alarm of each kind, as the archive raises them: t1 in pit3,
// t2 in pit4.
func integritySample(at time.Time) []history.IntegrityAlarm {
	shoe := func(table string, n uint32, set string, h int) history.ShoeRef {
		s := at.Add(time.Duration(h) * time.Hour)
		return history.ShoeRef{Table: table, Shoe: n, Set: set, FirstSeq: uint64(100 * n), Started: s, Ended: s.Add(50 * time.Minute)}
	}
	alarm := func(id, table, pit, kind, text string, h int, ev history.IntegrityEvidence) history.IntegrityAlarm {
		r := at.Add(time.Duration(h)*time.Hour + 51*time.Minute)
		return history.IntegrityAlarm{Alert: history.Alert{ID: id, Table: table, Pit: pit, Kind: kind, Since: ev.Shoe.Started, Raised: r, Text: text}, Evidence: ev}
	}
	earlier := shoe("t2", 7, "S-0907", 0)
	return []history.IntegrityAlarm{
		alarm("integrity/repeated/t1/12", "t1", "pit3", api.AlertIntegrityRepeated,
			"shoe 12 (set S-1112) of t1 repeats 20 cards of shoe 7 (set S-0907) of t2: card 81 there, card 301 here", 3,
			history.IntegrityEvidence{Shoe: shoe("t1", 12, "S-1112", 3), Other: &earlier,
				Runs: []history.SharedRun{{A: 300, B: 80, Len: 20, Cards: "9S KD 4H 4C AD 7S TC 2H QS 5D 8C 3H JD 6S KH 9D 2C AS TD 7H"}}}),
		alarm("integrity/shuffle/t2/8", "t2", "pit4", api.AlertIntegrityShuffle,
			"the set of shoe 8 of t2 kept 143 neighbours of the set before (chance gives 59.2): p 3.1e-21", 2,
			history.IntegrityEvidence{Shoe: shoe("t2", 8, "S-0908", 2), Neighbours: 143, Expected: 59.2, P: 3.1e-21, Combined: 8.8e-25,
				PS: []float64{0.41, 0.07, 3.1e-21}, Alarm: 1e-6}),
		alarm("integrity/set/t1/11", "t1", "pit3", api.AlertIntegritySet,
			"shoe 11 of t1: KD dealt 9 times (the decks hold 8); 4H never dealt", 1,
			history.IntegrityEvidence{Shoe: shoe("t1", 11, "S-1111", 1), Over: []history.CardCount{{Card: "KD", Dealt: 9, Allowed: 8}},
				Missing: []string{"4H"}, Dealt: 398, Undealt: 18, SetCards: 416}),
		alarm("integrity/drift/t2/banker/9", "t2", "pit4", api.AlertIntegrityDrift,
			"t2: Banker won 233 of 369 rounds (169.2 expected)", 4,
			history.IntegrityEvidence{Shoe: shoe("t2", 9, "S-0909", 4), Outcome: "banker", Rounds: 369, Seen: 233, RoundsExpected: 169.2,
				P0: 0.458597, P1: 0.573246, Sum: 13.9, H: 13.8155, ARL: 1e6}),
	}
}

// integrityConsole is a test console over an integrityDouble holding integritySample,
// with V9 (surveillance) and S3 (supervisor of pit3) among its users.
func integrityConsole(t *testing.T) (*testConsole, *integrityDouble) {
	t.Helper()
	d := &integrityDouble{alarms: integritySample(time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC))}
	path := filepath.Join(t.TempDir(), "users.json")
	addTestUser(t, path, User{Name: "D4", Role: "dealer", Tables: []string{"t1"}}, "dealer-password-4")
	addTestUser(t, path, User{Name: "S17", Role: "supervisor"}, "supervisor-pass-17")
	addTestUser(t, path, User{Name: "S3", Role: "supervisor", Pits: []string{"pit3"}}, "supervisor-pass-3")
	addTestUser(t, path, User{Name: "V9", Role: SurveillanceRole}, "surveillance-pass-9")
	us, err := LoadUsers(path)
	if err != nil {
		t.Fatal(err)
	}
	tc := newTestConsoleWith(t, nil, func(o *Options) { o.History = d; o.Users = us })
	for table, pit := range map[string]string{"t1": "pit3", "t2": "pit4"} {
		tc.srv.Ingest("casino/lv1/"+pit+"/tablectl/v1/"+table+"/status", []byte(`{"schema":2,"table":"`+table+`","state":"online","rules":"rws","decks":8}`))
	}
	return tc, d
}

type integrityPage struct {
	Alarms      []IntegrityView `json:"alarms"`
	Acknowledge bool            `json:"acknowledge"`
}

func getIntegrity(t *testing.T, a *agent, query string) (int, integrityPage, string) {
	t.Helper()
	code, body := a.get(t, "/api/integrity"+query)
	var p integrityPage
	if code == 200 {
		if err := json.Unmarshal([]byte(body), &p); err != nil {
			t.Fatal(err)
		}
	}
	return code, p, body
}

func ids(vs []IntegrityView) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.ID)
	}
	return out
}

// TestIntegrityAlarmsByRole: GET /api/integrity gives a supervisor and surveillance the
// alarms of the tables they work, newest first, with their evidence, and a dealer none
// (403); the session says who may open the page; a search by kind, table and open ones
// narrows the list; a kind that is not an integrity alarm's, or a bad time, is a 400;
// surveillance may give no command to a table.
func TestIntegrityAlarmsByRole(t *testing.T) {
	t.Parallel()
	tc, _ := integrityConsole(t)
	dealer := tc.login(t, "D4", "dealer-password-4")
	if code, _, body := getIntegrity(t, dealer, ""); code != 403 || !strings.Contains(body, "supervisor or above, or surveillance") {
		t.Fatalf("a dealer's integrity alarms: %d %s", code, body)
	}
	var s sessionInfo
	_, body := dealer.get(t, "/api/session")
	if json.Unmarshal([]byte(body), &s); s.Integrity != "role" {
		t.Fatalf("the dealer's session says integrity %q", s.Integrity)
	}
	all := []string{"integrity/drift/t2/banker/9", "integrity/repeated/t1/12", "integrity/shuffle/t2/8", "integrity/set/t1/11"}
	for _, who := range []struct{ name, pw string }{{"S17", "supervisor-pass-17"}, {"V9", "surveillance-pass-9"}} {
		a := tc.login(t, who.name, who.pw)
		_, body := a.get(t, "/api/session")
		if json.Unmarshal([]byte(body), &s); s.Integrity != "open" {
			t.Fatalf("%s's session says integrity %q", who.name, s.Integrity)
		}
		code, p, body := getIntegrity(t, a, "")
		if code != 200 || !slices.Equal(ids(p.Alarms), all) || !p.Acknowledge {
			t.Fatalf("%s's alarms: %d %s", who.name, code, body)
		}
		if r := p.Alarms[1].Evidence; r.Other == nil || r.Other.Table != "t2" || len(r.Runs) != 1 || r.Runs[0].Len != 20 || r.Runs[0].A != 300 {
			t.Fatalf("the repeated order's evidence: %+v", r)
		}
	}
	s3 := tc.login(t, "S3", "supervisor-pass-3")
	if _, p, body := getIntegrity(t, s3, ""); !slices.Equal(ids(p.Alarms), []string{all[1], all[3]}) {
		t.Fatalf("pit3's supervisor's alarms: %s", body)
	}
	v9 := tc.login(t, "V9", "surveillance-pass-9")
	for q, want := range map[string][]string{
		"?kind=" + api.AlertIntegrityDrift: {all[0]},
		"?table=t1":                        {all[1], all[3]},
		"?to=2026-11-22T16:00:00Z":         {all[3]},
		"?from=2026-11-22T17:00:00Z":       {all[0], all[1]},
	} {
		if code, p, body := getIntegrity(t, v9, q); code != 200 || !slices.Equal(ids(p.Alarms), want) {
			t.Errorf("%s: %d %s", q, code, body)
		}
	}
	for _, q := range []string{"?kind=held", "?from=yesterday", "?pit=pit3"} {
		if code, _, body := getIntegrity(t, v9, q); code != 400 {
			t.Errorf("%s: %d %s", q, code, body)
		}
	}
	code, body := v9.post(t, "/api/tables/t1/commands", `{"cmd":"bets_closed"}`)
	if code != 403 {
		t.Fatalf("surveillance's command: %d %s", code, body)
	}
	for _, p := range tc.table.sent() {
		if strings.Contains(p.topic, "/cmd/") {
			t.Fatalf("a command of surveillance was published: %s", p.topic)
		}
	}
}

// TestIntegrityAlarmAcknowledged: a supervisor's acknowledgement of an integrity alarm
// needs a note; it is given the archive on the alarm's table's alert topic, with the
// alarm's ID, kind and times, and shown as not yet kept until the archive has it, then
// kept; a second acknowledgement is a 409, before and after the archive has the first;
// a dealer's is a 403; an alarm of a table the person does not work is a 404.
func TestIntegrityAlarmAcknowledged(t *testing.T) {
	t.Parallel()
	tc, d := integrityConsole(t)
	id := "integrity/repeated/t1/12"
	dealer := tc.login(t, "D4", "dealer-password-4")
	if code, body := dealer.post(t, "/api/integrity/ack", `{"id":"`+id+`","note":"seen"}`); code != 403 {
		t.Fatalf("a dealer's acknowledgement: %d %s", code, body)
	}
	s3 := tc.login(t, "S3", "supervisor-pass-3")
	if code, body := s3.post(t, "/api/integrity/ack", `{"id":"integrity/shuffle/t2/8","note":"seen"}`); code != 404 {
		t.Fatalf("an alarm of another pit: %d %s", code, body)
	}
	v9 := tc.login(t, "V9", "surveillance-pass-9")
	if code, body := v9.post(t, "/api/integrity/ack", `{"id":"`+id+`","note":" "}`); code != 400 || !strings.Contains(body, "note") {
		t.Fatalf("no note: %d %s", code, body)
	}
	if _, recs := alertRecords(t, tc); len(recs) != 0 {
		t.Fatalf("records before any acknowledgement: %+v", recs)
	}
	note := "both shoes pulled; the decks of t2's shoe 7 went to the cage"
	code, body := v9.post(t, "/api/integrity/ack", `{"id":"`+id+`","note":"`+note+`"}`)
	var v IntegrityView
	if json.Unmarshal([]byte(body), &v); code != 200 || v.Ack == nil || v.Ack.By != "V9" || v.Ack.Role != SurveillanceRole || v.Kept {
		t.Fatalf("the acknowledgement: %d %s", code, body)
	}
	topics, recs := alertRecords(t, tc)
	if len(recs) != 1 || topics[0] != "casino/lv1/pit3/tablectl/v1/t1/archive/floor/alert" || recs[0].ID != id ||
		recs[0].Kind != api.AlertIntegrityRepeated || recs[0].Ack == nil || recs[0].Ack.Note != note || !recs[0].Ack.At.Equal(tc.clock.now()) {
		t.Fatalf("the record given the archive: %v %+v", topics, recs)
	}
	if err := recs[0].Check("t1"); err != nil {
		t.Fatal(err)
	}
	if code, body := tc.login(t, "S17", "supervisor-pass-17").post(t, "/api/integrity/ack", `{"id":"`+id+`","note":"me too"}`); code != 409 || !strings.Contains(body, "V9") {
		t.Fatalf("a second acknowledgement, the first not yet kept: %d %s", code, body)
	}
	_, p, _ := getIntegrity(t, v9, "?table=t1")
	if p.Alarms[0].ID != "integrity/set/t1/11" || p.Alarms[1].Ack == nil || p.Alarms[1].Kept {
		t.Fatalf("the page before the archive keeps it: %+v", p.Alarms)
	}
	d.ack(recs[0])
	_, p, _ = getIntegrity(t, v9, "?table=t1")
	if a := p.Alarms[1]; a.ID != id || a.Ack == nil || !a.Kept || a.Ack.By != "V9" || a.Ack.Note != note {
		t.Fatalf("the page once the archive keeps it: %+v", p.Alarms)
	}
	if _, p, _ := getIntegrity(t, v9, "?open=1"); slices.Contains(ids(p.Alarms), id) || len(p.Alarms) != 3 {
		t.Fatalf("the open alarms: %v", ids(p.Alarms))
	}
	if code, body := v9.post(t, "/api/integrity/ack", `{"id":"`+id+`","note":"again"}`); code != 409 {
		t.Fatalf("a second acknowledgement, the first kept: %d %s", code, body)
	}
	if _, recs := alertRecords(t, tc); len(recs) != 1 {
		t.Fatalf("%d records given the archive, want 1", len(recs))
	}
}
