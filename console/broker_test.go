package console

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
)

// TestBrokerLostRefusesCommandsAndTellsTheStreams: while the link to the broker is down
// a command is answered 503, saying it was not sent and why, and nothing is published;
// every stream is told the link's state as it changes; once it is back, commands go
// through again.
func TestBrokerLostRefusesCommandsAndTellsTheStreams(t *testing.T) {
	t.Parallel()
	tc := newTestConsoleWith(t, nil, func(o *Options) { o.LinkPending = true })
	replyAsTable(tc)
	tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":1,"table":"t1","state":"online","rules":"rws"}`))
	a := tc.login(t, "D4", "dealer-password-4")
	floor := openStream(t, a, "/api/events")
	floor.next(t, "broker", `"up":false`)
	table := openStream(t, a, "/api/tables/t1/events")
	table.next(t, "broker", `"up":false`)

	code, body := a.post(t, "/api/tables/t1/commands", `{"cmd":"confirm"}`)
	if code != 503 || !strings.Contains(body, "not sent: the console cannot reach its broker") || !strings.Contains(body, "did not reach table t1") {
		t.Errorf("command before the link is up: %d %s", code, body)
	}
	tc.srv.SetBroker(true, "")
	floor.next(t, "broker", `"up":true`)
	table.next(t, "broker", `"up":true`)
	if code, body := a.post(t, "/api/tables/t1/commands", `{"cmd":"confirm"}`); code != 200 {
		t.Errorf("command with the link up: %d %s", code, body)
	}
	tc.srv.SetBroker(false, "the connection to the broker was lost")
	floor.next(t, "broker", `"error":"the connection to the broker was lost"`)
	code, body = a.post(t, "/api/tables/t1/commands", `{"cmd":"end_shoe"}`)
	if code != 503 || !strings.Contains(body, "since 08:00:00 UTC (the connection to the broker was lost)") {
		t.Errorf("command with the link down: %d %s", code, body)
	}
	if _, b := a.get(t, "/api/broker"); !strings.Contains(b, `"up":false`) {
		t.Errorf("GET /api/broker: %s", b)
	}
	if n := len(tc.table.sent()); n != 1 {
		t.Errorf("%d commands published, want the one given while the link was up", n)
	}
}

// TestHeldShowsWhoReportedAndSince: the floor's summary of a held table says who
// reported the irregularity and since when, from its raised message, whichever of it and
// the state comes first; without the raised message, since when the console saw it held.
func TestHeldShowsWhoReportedAndSince(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	raised := `{"schema":2,"table":"t1","shoe":2,"round":7,"seq":39,"at":"2026-11-23T07:58:00Z","event":"raised","id":3,
"kind":"wrong_hand","rule":"RWS Baccarat 5.8","reason":"P2 dealt to banker (RWS Baccarat 5.8)","role":"dealer","actor":"D4"}`
	summary := func(table string) Summary {
		t.Helper()
		s, ok := tc.srv.floor.summary(table)
		if !ok {
			t.Fatalf("no %s", table)
		}
		return s
	}
	tc.srv.Ingest("tablectl/v1/t1/irregularity", []byte(raised))
	tc.srv.Ingest("tablectl/v1/t1/state", []byte(heldState))
	if s := summary("t1"); s.HeldSince != "2026-11-23T07:58:00Z" || s.HeldSinceSeen || s.ReportedBy != "dealer D4" {
		t.Errorf("raised, then held: since %q (seen %v), reported by %q", s.HeldSince, s.HeldSinceSeen, s.ReportedBy)
	}
	// The state first, then the raised message.
	tc.srv.Ingest("tablectl/v1/t2/state", []byte(strings.ReplaceAll(heldState, `"t1"`, `"t2"`)))
	if s := summary("t2"); s.HeldSince != "2026-11-23T08:00:00Z" || !s.HeldSinceSeen || s.ReportedBy != "" {
		t.Errorf("held, raised unseen: since %q (seen %v), reported by %q", s.HeldSince, s.HeldSinceSeen, s.ReportedBy)
	}
	tc.srv.Ingest("tablectl/v1/t2/irregularity", []byte(strings.ReplaceAll(raised, `"t1"`, `"t2"`)))
	if s := summary("t2"); s.HeldSince != "2026-11-23T07:58:00Z" || s.HeldSinceSeen || s.ReportedBy != "dealer D4" {
		t.Errorf("held, then raised: since %q (seen %v), reported by %q", s.HeldSince, s.HeldSinceSeen, s.ReportedBy)
	}
	// A later state of the same hold keeps them; the hold's end clears them.
	tc.srv.Ingest("tablectl/v1/t2/state", []byte(strings.ReplaceAll(strings.ReplaceAll(heldState, `"t1"`, `"t2"`), `"seq":40,"at":"2026-11-23T08:00:00Z"`, `"seq":41,"at":"2026-11-23T08:01:00Z"`)))
	if s := summary("t2"); s.HeldSince != "2026-11-23T07:58:00Z" || s.ReportedBy != "dealer D4" {
		t.Errorf("a later state: since %q, reported by %q", s.HeldSince, s.ReportedBy)
	}
	tc.srv.Ingest("tablectl/v1/t2/state", []byte(`{"schema":1,"table":"t2","shoe":2,"round":7,"seq":42,"phase":"dealing"}`))
	if s := summary("t2"); s.HeldSince != "" || s.ReportedBy != "" {
		t.Errorf("not held: since %q, reported by %q", s.HeldSince, s.ReportedBy)
	}
}

// TestHeldFromTheStateAlone: a console that started after a table was held has its
// retained state alone. The held irregularity says who reported it and when it was
// raised: the summary says so as its raised message would, and the shoe's list of
// irregularities holds it, marked as made from the state. The raised message, should it
// come, takes that row's place. A table's state that says neither leaves the summary
// saying since when the console saw it held, and no one as the reporter.
func TestHeldFromTheStateAlone(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	held := strings.Replace(heldState, `"decided_by":"supervisor"`, `"decided_by":"supervisor","role":"dealer","actor":"D4","raised":"2026-11-23T07:57:00Z"`, 1)
	tc.srv.Ingest("tablectl/v1/t1/state", []byte(held))
	d, ok := tc.srv.floor.detail("t1")
	if !ok {
		t.Fatal("no t1")
	}
	if s := d.Summary; s.HeldSince != "2026-11-23T07:57:00Z" || s.HeldSinceSeen || s.ReportedBy != "dealer D4" {
		t.Errorf("held alone: since %q (seen %v), reported by %q", s.HeldSince, s.HeldSinceSeen, s.ReportedBy)
	}
	if len(d.Irregularities) != 1 {
		t.Fatalf("the shoe's irregularities: %s", d.Irregularities)
	}
	var row struct {
		api.Irregularity
		FromState bool `json:"from_state"`
	}
	if err := json.Unmarshal(d.Irregularities[0], &row); err != nil {
		t.Fatal(err)
	}
	if !row.FromState || row.Event != api.EventRaised || row.ID != 3 || row.Shoe != 2 || row.Round != 7 || row.Kind != "wrong_hand" ||
		row.Role.String() != "dealer" || row.Actor != "D4" || row.At.Format(time.RFC3339) != "2026-11-23T07:57:00Z" || len(row.Choices) != 2 {
		t.Errorf("the row made from the state: %s", d.Irregularities[0])
	}
	// A later state of the same hold adds no row; the raised message takes its place.
	tc.srv.Ingest("tablectl/v1/t1/state", []byte(strings.Replace(held, `"seq":40`, `"seq":41`, 1)))
	tc.srv.Ingest("tablectl/v1/t1/irregularity", []byte(`{"schema":2,"table":"t1","shoe":2,"round":7,"seq":39,"at":"2026-11-23T07:57:00Z","event":"raised","id":3,
"kind":"wrong_hand","rule":"RWS Baccarat 5.8","reason":"reported by the dealer (RWS Baccarat 5.8)","role":"dealer","actor":"D4"}`))
	d, _ = tc.srv.floor.detail("t1")
	if len(d.Irregularities) != 1 || strings.Contains(string(d.Irregularities[0]), "from_state") {
		t.Errorf("after the raised message: %s", d.Irregularities)
	}
	if s := d.Summary; s.HeldSince != "2026-11-23T07:57:00Z" || s.ReportedBy != "dealer D4" {
		t.Errorf("after the raised message: since %q, reported by %q", s.HeldSince, s.ReportedBy)
	}

	// A table that says neither who nor when.
	tc.srv.Ingest("tablectl/v1/t2/state", []byte(strings.ReplaceAll(heldState, `"t1"`, `"t2"`)))
	d, _ = tc.srv.floor.detail("t2")
	if s := d.Summary; s.HeldSince != "2026-11-23T08:00:00Z" || !s.HeldSinceSeen || s.ReportedBy != "" || len(d.Irregularities) != 1 {
		t.Errorf("held alone, by an older table: since %q (seen %v), reported by %q; %s", s.HeldSince, s.HeldSinceSeen, s.ReportedBy, d.Irregularities)
	}
	if strings.Contains(string(d.Irregularities[0]), `"at"`) {
		t.Errorf("a row made from a state that says not when: %s", d.Irregularities[0])
	}
}

// TestRulebook: each rule set has its own name and the rules its document gives: NC
// Insurance's void is its 5.16 and its irregularities cite it; "insurance not offered"
// is NC Insurance's alone; the silent documents follow RWS Baccarat.
func TestRulebook(t *testing.T) {
	t.Parallel()
	b := Rulebook()
	nc, rws, classic := b["nc-insurance"], b["rws"], b["classic"]
	if nc.Name != "NC Insurance" || nc.Void != "NC Insurance 5.16" || nc.Options != "NC Insurance 5.12" ||
		nc.Kinds["incorrect_cards"] != "NC Insurance 5.5.3" || nc.Kinds["insurance_not_offered"] != "NC Insurance 5.13" {
		t.Errorf("nc-insurance: %+v", nc)
	}
	if rws.Void != "RWS Baccarat 5.15" || rws.Kinds["wrong_hand"] != "RWS Baccarat 5.8" {
		t.Errorf("rws: %+v", rws)
	}
	for id, rs := range b {
		if _, ok := rs.Kinds["insurance_not_offered"]; ok != (id == "nc-insurance") {
			t.Errorf("%s offers insurance_not_offered: %v", id, ok)
		}
	}
	if classic.Kinds["wrong_hand"] != "RWS Baccarat 5.8" || b["nc-tournament"].Kinds["foreign_card"] != "NC Tournament 5.1.1" {
		t.Errorf("classic %v, nc-tournament %v", classic.Kinds, b["nc-tournament"].Kinds)
	}
	js, _ := json.Marshal(b["royal"])
	if !strings.Contains(string(js), `"name":"Royal Baccarat"`) {
		t.Errorf("royal: %s", js)
	}
	// Only a rule set with Insurance (NC Insurance 3.11, 3.12) has its controls on the
	// table's page: the rulebook says so as the rule set does.
	for id, rs := range b {
		if want := baccarat.MustLookup(id, baccarat.Options{}).Insurance; rs.Insurance != want {
			t.Errorf("%s: insurance %v, the rule set says %v", id, rs.Insurance, want)
		}
	}
}
