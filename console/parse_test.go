package console

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tablectl/tablectl/api"
	"golang.org/x/crypto/bcrypt"
)

// errorOf is the error an answer of the console's API carries.
func errorOf(body string) string {
	var e struct{ Error string }
	json.Unmarshal([]byte(body), &e)
	return e.Error
}

// TestCommandIDsCheckedAtTheConsole: a command's id is printable ASCII without spaces,
// up to 64 bytes: one at the limit, or of '!' and '~', is sent; one a byte longer, or
// with a space, is refused by the console with 400 and its reason, unsent. So is a body
// of two JSON values, which would otherwise go out as its first.
func TestCommandIDsCheckedAtTheConsole(t *testing.T) {
	tc := newTestConsole(t)
	tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":1,"table":"t1","state":"online","rules":"rws"}`))
	replyAsTable(tc)
	dealer := tc.login(t, "D4", "dealer-password-4")
	for _, id := range []string{strings.Repeat("a", maxIDLength), "!~", "r-1.x_y"} {
		if code, resp := dealer.post(t, "/api/tables/t1/commands", `{"id":"`+id+`","cmd":"confirm"}`); code != 200 || !strings.Contains(resp, `"id":"`+id+`"`) {
			t.Errorf("id %q: %d %s, want it sent", id, code, resp)
		}
	}
	sent := len(tc.table.sent())
	for _, c := range []struct{ body, want string }{
		{`{"id":"` + strings.Repeat("a", maxIDLength+1) + `","cmd":"confirm"}`, "command id is longer than 64 bytes"},
		{`{"id":"r 1","cmd":"confirm"}`, "command id has byte 0x20 at 1 (an id takes printable ASCII without spaces)"},
		{`{"cmd":"confirm"} {"cmd":"end_shoe"}`, "malformed command: more than one JSON value"},
	} {
		if code, resp := dealer.post(t, "/api/tables/t1/commands", c.body); code != 400 || errorOf(resp) != c.want {
			t.Errorf("%s: %d %s, want 400 %q", c.body, code, resp, c.want)
		}
	}
	if s := tc.table.sent(); len(s) != sent {
		t.Errorf("refused commands were published: %v", s[sent:])
	}
}

// TestDecisionChoiceCheckedAgainstTheHold: the console checks a decision's choice
// against the choices the table's state gives for its hold; a decision with no choice,
// or on a hold whose state lists none, it leaves to the table's own check, and answers
// with the table's words.
func TestDecisionChoiceCheckedAgainstTheHold(t *testing.T) {
	tc := newTestConsole(t)
	tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":1,"table":"t1","state":"online","rules":"rws"}`))
	tc.srv.Ingest("tablectl/v1/t1/state", []byte(heldState))
	replyAsTable(tc)
	sup := tc.login(t, "S17", "supervisor-pass-17")
	noChoice := `{"cmd":"decide","irregularity":3}`
	_, _, tableErr := api.ParseCommand("supervisor", []byte(noChoice))
	if code, resp := sup.post(t, "/api/tables/t1/commands", noChoice); tableErr == nil || code != 400 || errorOf(resp) != tableErr.Error() {
		t.Errorf("a decision with no choice: %d %s, want 400 with the table's words %v", code, resp, tableErr)
	}
	if code, resp := sup.post(t, "/api/tables/t1/commands", `{"cmd":"decide","irregularity":3,"choice":"void"}`); code != 200 {
		t.Errorf("a choice the hold takes: %d %s", code, resp)
	}
	tc.srv.Ingest("tablectl/v1/t1/state", []byte(strings.Replace(heldState, `"choices":["reconstructed","void"]`, `"choices":[]`, 1)))
	if code, resp := sup.post(t, "/api/tables/t1/commands", `{"cmd":"decide","irregularity":3,"choice":"as-read"}`); code != 200 || !strings.Contains(resp, "did decide by S17") {
		t.Errorf("a hold that lists no choices: %d %s, want it sent to the table", code, resp)
	}
}

// TestOneIDWaitsOncePerTable: a command whose id is already waiting for the same
// table's answer is refused with 409; the same id at another table is its own command,
// and each gets its own table's answer.
func TestOneIDWaitsOncePerTable(t *testing.T) {
	tc := newTestConsole(t)
	for _, tb := range []string{"t1", "t2"} {
		tc.srv.Ingest("tablectl/v1/"+tb+"/status", []byte(`{"schema":1,"table":"`+tb+`","state":"online","rules":"rws"}`))
	}
	in, release := make(chan struct{}), make(chan struct{})
	tc.table.answer = func(topic string, cmd map[string]any) (string, []byte) {
		table := strings.Split(topic, "/")[2]
		if table == "t1" {
			in <- struct{}{}
			<-release
		}
		b, _ := json.Marshal(map[string]any{"schema": 1, "table": table, "id": cmd["id"], "role": "supervisor", "ok": true,
			"effects": []string{"at " + table}})
		return "tablectl/v1/" + table + "/cmd/reply", b
	}
	sup := tc.login(t, "S17", "supervisor-pass-17")
	var wg sync.WaitGroup
	var first string
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, first = sup.post(t, "/api/tables/t1/commands", `{"id":"x1","cmd":"end_shoe"}`)
	}()
	<-in // t1's command waits for its answer
	if code, resp := sup.post(t, "/api/tables/t1/commands", `{"id":"x1","cmd":"end_shoe"}`); code != 409 || !strings.Contains(errorOf(resp), `a command with id "x1" is already waiting for table t1's answer`) {
		t.Errorf("the same id again at t1: %d %s, want 409", code, resp)
	}
	if code, resp := sup.post(t, "/api/tables/t2/commands", `{"id":"x1","cmd":"end_shoe"}`); code != 200 || !strings.Contains(resp, "at t2") {
		t.Errorf("the same id at t2: %d %s, want t2's answer", code, resp)
	}
	close(release)
	wg.Wait()
	if !strings.Contains(first, "at t1") {
		t.Errorf("t1's command answered %s, want t1's answer", first)
	}
}

// TestNameLength: a person's name takes 1 to 64 bytes.
func TestNameLength(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.json")
	if err := AddUser(path, User{Name: strings.Repeat("n", maxNameLength), Role: "dealer"}, "a-long-password", bcrypt.MinCost); err != nil {
		t.Errorf("a name of %d bytes: %v", maxNameLength, err)
	}
	if err := AddUser(path, User{Name: strings.Repeat("n", maxNameLength+1), Role: "dealer"}, "a-long-password", bcrypt.MinCost); err == nil {
		t.Errorf("a name of %d bytes was taken", maxNameLength+1)
	}
	if err := AddUser(path, User{Name: "", Role: "dealer"}, "a-long-password", bcrypt.MinCost); err == nil {
		t.Error("an empty name was taken")
	}
}
