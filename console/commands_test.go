package console

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
)

// heldState is a retained state of table t1 held for a wrong hand (#3).
const heldState = `{"schema":1,"table":"t1","shoe":2,"round":7,"seq":40,"at":"2026-11-23T08:00:00Z","phase":"dealing",
"rules":"rws","decks":8,"held":{"id":3,"kind":"wrong_hand","rule":"RWS Baccarat 5.8","display":"A card was dealt to the wrong hand",
"choices":["reconstructed","void"],"decided_by":"supervisor"}}`

// replyAsTable makes the fake answer every command as the table would, repeating its
// id and role.
func replyAsTable(tc *testConsole) {
	tc.table.answer = func(topic string, cmd map[string]any) (string, []byte) {
		role := topic[strings.LastIndexByte(topic, '/')+1:]
		b, _ := json.Marshal(map[string]any{"schema": 1, "table": "t1", "id": cmd["id"], "role": role, "ok": true,
			"effects": []string{"did " + cmd["cmd"].(string) + " by " + cmd["actor"].(string)}})
		return strings.TrimSuffix(topic, role) + "reply", b
	}
}

func TestCommandsCheckedThenPublishedUnderThePersonsName(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":1,"table":"t1","state":"online","rules":"rws"}`))
	tc.srv.Ingest("tablectl/v1/t1/state", []byte(heldState))
	tc.srv.Ingest("tablectl/v1/t2/status", []byte(`{"schema":1,"table":"t2","state":"online"}`))
	replyAsTable(tc)
	dealer := tc.login(t, "D4", "dealer-password-4")
	sup := tc.login(t, "S17", "supervisor-pass-17")

	for _, c := range []struct {
		who        *agent
		path, body string
		code       int
		want       string
	}{
		{dealer, "/api/tables/t1/commands", `{"cmd":"decide","irregularity":3,"choice":"reconstructed"}`, 403, `a dealer may not give "decide": it takes a supervisor or above`},
		{dealer, "/api/tables/t1/commands", `{"cmd":"report","kind":"late_error","round":2}`, 403, "a report of late_error: it takes a supervisor"},
		{dealer, "/api/tables/t2/commands", `{"cmd":"confirm"}`, 403, "D4 does not work table t2"},
		{dealer, "/api/tables/t1/commands", `{"cmd":"confirm","actor":"S17"}`, 403, "a command cannot name another"},
		{dealer, "/api/tables/t1/commands", `{"cmd":"confirm","colour":"red"}`, 400, `unknown field "colour"`},
		{dealer, "/api/tables/t1/commands", `{"cmd":"shuffle"}`, 400, `unknown command "shuffle"`},
		{sup, "/api/tables/t1/commands", `{"cmd":"decide","irregularity":3,"choice":"as-read"}`, 400, `takes [reconstructed void], not "as-read"`},
		{sup, "/api/tables/t9/commands", `{"cmd":"confirm"}`, 404, "table t9 has published nothing"},
	} {
		code, body := c.who.post(t, c.path, c.body)
		var e struct{ Error string }
		json.Unmarshal([]byte(body), &e)
		if code != c.code || !strings.Contains(e.Error, c.want) {
			t.Errorf("%s %s: %d %s, want %d with %q", c.path, c.body, code, body, c.code, c.want)
		}
	}
	// Without the CSRF token, or with another session's, nothing is published either.
	for _, token := range []string{"", sup.csrf} {
		code, _, _ := tc.do(t, "POST", "/api/tables/t1/commands", `{"cmd":"confirm"}`, map[string]string{"X-CSRF-Token": token}, dealer.cookie)
		if code != 403 {
			t.Errorf("CSRF token %q: %d", token, code)
		}
	}
	if sent := tc.table.sent(); len(sent) != 0 {
		t.Fatalf("refused commands were published: %v", sent)
	}

	code, body := dealer.post(t, "/api/tables/t1/commands", `{"id":"r1","cmd":"report","kind":"wrong_hand"}`)
	if code != 200 || !strings.Contains(body, `"ok":true`) || !strings.Contains(body, `"id":"r1"`) || !strings.Contains(body, "did report by D4") {
		t.Errorf("dealer's report: %d %s", code, body)
	}
	code, body = sup.post(t, "/api/tables/t1/commands", `{"cmd":"decide","irregularity":3,"choice":"reconstructed","actor":"S17"}`)
	if code != 200 || !strings.Contains(body, `"role":"supervisor"`) || !strings.Contains(body, "did decide by S17") {
		t.Errorf("supervisor's decision: %d %s", code, body)
	}
	sent := tc.table.sent()
	if len(sent) != 2 || sent[0].topic != "tablectl/v1/t1/cmd/dealer" || sent[1].topic != "tablectl/v1/t1/cmd/supervisor" {
		t.Fatalf("published: %v", sent)
	}
	var c api.Command
	json.Unmarshal([]byte(sent[1].payload), &c)
	if c.Actor != "S17" || c.Cmd != "decide" || c.Irregularity != 3 || c.Choice != "reconstructed" || !strings.HasPrefix(c.ID, "console-") {
		t.Errorf("published decision: %s", sent[1].payload)
	}
	log := tc.log.String()
	for _, want := range []string{"audit=refused user=D4 role=dealer", "audit=command user=S17 role=supervisor", "cmd=decide", "choice=reconstructed"} {
		if !strings.Contains(log, want) {
			t.Errorf("audit log lacks %q", want)
		}
	}
}

func TestCommandNotAnsweredIs504NamingTheTable(t *testing.T) {
	t.Parallel()
	tc := newTestConsoleWith(t, nil, func(o *Options) { o.CommandTimeout = 2 * time.Second })
	tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":1,"table":"t1","state":"online"}`))
	a := tc.login(t, "D4", "dealer-password-4")
	code, body := a.post(t, "/api/tables/t1/commands", `{"cmd":"confirm"}`)
	if code != 504 || !strings.Contains(body, "table t1 did not answer") {
		t.Errorf("%d %s", code, body)
	}
	if len(tc.table.sent()) != 1 {
		t.Errorf("published %v", tc.table.sent())
	}
}

func TestCentralLayoutCommandsKeepThePrefix(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	tc.srv.Ingest("casino/lv1/pit3/tablectl/v1/t1/status", []byte(`{"schema":1,"table":"t1","state":"online"}`))
	replyAsTable(tc)
	a := tc.login(t, "S17", "supervisor-pass-17")
	if code, body := a.post(t, "/api/tables/t1/commands", `{"cmd":"end_shoe"}`); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	if s := tc.table.sent(); len(s) != 1 || s[0].topic != "casino/lv1/pit3/tablectl/v1/t1/cmd/supervisor" {
		t.Errorf("published %v", s)
	}
	_, body := a.get(t, "/api/tables")
	if !strings.Contains(body, `"site":"lv1","pit":"pit3"`) {
		t.Errorf("tables: %s", body)
	}
}

func TestFloorHeldAndCallsFirst(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	for _, m := range []struct{ topic, payload string }{
		{"tablectl/v1/a1/status", `{"schema":1,"table":"a1","state":"online","rules":"rws","devices":{"shoe":"connected"}}`},
		{"tablectl/v1/a1/result", `{"schema":1,"table":"a1","shoe":1,"round":4,"seq":9,"winner":"banker","player_points":3,"banker_points":7}`},
		{"tablectl/v1/b2/status", `{"schema":1,"table":"b2","state":"online","call":"supervisor"}`},
		{"tablectl/v1/c3/status", `{"schema":1,"table":"c3","state":"offline"}`},
		{"tablectl/v1/t1/status", `{"schema":1,"table":"t1","state":"online"}`},
		{"tablectl/v1/t1/state", heldState},
		{"tablectl/v1/t1/cmd/dealer", `{"cmd":"confirm"}`},
		{"tablectl/v1/t1/card", `not json`},
	} {
		tc.srv.Ingest(m.topic, []byte(m.payload))
	}
	a := tc.login(t, "S17", "supervisor-pass-17")
	code, body := a.get(t, "/api/tables")
	if code != 200 {
		t.Fatal(code, body)
	}
	var tables []Summary
	if err := json.Unmarshal([]byte(body), &tables); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range tables {
		order = append(order, s.Table)
	}
	if strings.Join(order, ",") != "t1,b2,c3,a1" {
		t.Errorf("order %v, want held t1, calling b2, offline c3, then a1", order)
	}
	var held map[string]any
	json.Unmarshal(tables[0].Held, &held)
	if held["id"] != 3.0 || held["decided_by"] != "supervisor" || tables[0].Phase != "dealing" || tables[0].Round != 7 {
		t.Errorf("t1: %s", body)
	}
	a1 := tables[3]
	if !a1.Online || a1.Rules != "rws" || a1.Devices["shoe"] != "connected" || a1.LastResult == nil || a1.LastResult.Winner != "banker" || a1.LastResult.Round != 4 {
		t.Errorf("a1: %+v", a1)
	}
	if tables[2].Online {
		t.Error("c3 is offline")
	}
	// The table goes on: held no more.
	tc.srv.Ingest("tablectl/v1/t1/state", []byte(`{"schema":1,"table":"t1","shoe":2,"round":7,"phase":"dealing"}`))
	_, body = a.get(t, "/api/tables")
	if strings.Contains(body, `"held"`) {
		t.Errorf("held after the state without it: %s", body)
	}
	if !strings.Contains(tc.log.String(), `topic \"tablectl/v1/t1/card\": payload is not JSON`) {
		t.Errorf("the bad message is not logged:\n%s", tc.log)
	}
}

// TestResultSentAgainKeepsTheNewest: a table re-publishes results after a reconnect
// (docs/mqtt.md); an older one arriving late does not replace the last result.
func TestResultSentAgainKeepsTheNewest(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	tc.srv.Ingest("tablectl/v1/t1/result", []byte(`{"schema":1,"table":"t1","shoe":1,"round":5,"seq":30,"winner":"banker"}`))
	tc.srv.Ingest("tablectl/v1/t1/result", []byte(`{"schema":1,"table":"t1","shoe":1,"round":4,"seq":24,"winner":"player"}`))
	s, ok := tc.srv.floor.summary("t1")
	if !ok || s.LastResult == nil || s.LastResult.Round != 5 || s.LastResult.Winner != "banker" {
		t.Errorf("last result %+v, want round 5's", s.LastResult)
	}
}

// TestCommandTextRefusedBeforePublishing: a command whose text holds a control
// character, escaped or raw, or a byte that is not UTF-8, is refused with 400 and the
// very words the table would answer, and nothing is published; a report's detail of two
// lines and a tab goes out as given.
func TestCommandTextRefusedBeforePublishing(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":1,"table":"t1","state":"online","rules":"rws"}`))
	replyAsTable(tc)
	dealer := tc.login(t, "D4", "dealer-password-4")
	for _, body := range []string{
		`{"cmd":"report","kind":"wrong_hand","detail":"card\u0007 seen"}`,
		`{"cmd":"report","kind":"wrong_hand","detail":"a\u0000b"}`,
		`{"cmd":"report","kind":"wrong_hand","detail":"a\r\nb"}`,
		`{"cmd":"report","kind":"wrong_hand","detail":"` + "caf\xe9" + `"}`,
		`{"cmd":"report","kind":"wrong_hand","detail":"` + "tab\x01" + `"}`,
		`{"id":"r` + "\u0085" + `1","cmd":"report","kind":"wrong_hand"}`,
		`{"cmd":"new_shoe","set":"S1\u001b[31m"}`,
		`{"cmd":"bets_closed","wagers":[{"box":"1\u007f","bet":"banker","stake":5}]}`,
	} {
		_, _, tableErr := api.ParseCommand("dealer", []byte(body))
		var te *api.TextError
		if !errors.As(tableErr, &te) {
			t.Fatalf("%q: the table's answer %v is no text error", body, tableErr)
		}
		code, resp := dealer.post(t, "/api/tables/t1/commands", body)
		var e struct{ Error string }
		json.Unmarshal([]byte(resp), &e)
		if code != 400 || e.Error != tableErr.Error() {
			t.Errorf("%q: %d %s, want 400 with the table's words %q", body, code, resp, tableErr)
		}
	}
	if sent := tc.table.sent(); len(sent) != 0 {
		t.Fatalf("refused commands were published: %v", sent)
	}
	if !strings.Contains(tc.log.String(), "detail holds control character U+0007 at byte 4") {
		t.Errorf("the refusal is not in the audit log:\n%s", tc.log)
	}
	code, resp := dealer.post(t, "/api/tables/t1/commands", `{"cmd":"report","kind":"wrong_hand","detail":"box 3\nseen\tby D4"}`)
	if code != 200 || !strings.Contains(resp, `"ok":true`) {
		t.Fatalf("a detail of two lines and a tab: %d %s", code, resp)
	}
	sent := tc.table.sent()
	var c api.Command
	if len(sent) != 1 || json.Unmarshal([]byte(sent[0].payload), &c) != nil || c.Detail != "box 3\nseen\tby D4" {
		t.Errorf("published %v", sent)
	}
}
