package console

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
)

// commandBodies gives, for each command of the table (api.Commands), bodies the table
// would take from a role high enough: a report of each kind a person reports
// (api.Reports) and a box_option of each option (api.BoxOptions), as the console's forms
// offer them (vocabulary), so every role a command's fields can ask (CommandSpec.RoleFor)
// is among them. decide is for irregularity #3, which heldState holds.
func commandBodies() map[string][]string {
	m := map[string][]string{
		api.CmdBetsClosed:      {`{"cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":100}]}`},
		api.CmdInsuranceBet:    {`{"cmd":"insurance_bet","wager":{"box":"1","bet":"banker_insurance","stake":50}}`},
		api.CmdInsuranceClosed: {`{"cmd":"insurance_closed"}`},
		api.CmdSqueeze:         {`{"cmd":"squeeze"}`},
		api.CmdConfirm:         {`{"cmd":"confirm"}`},
		api.CmdCutCard:         {`{"cmd":"cut_card"}`},
		api.CmdNewShoe:         {`{"cmd":"new_shoe","set":"S7","decks":8}`},
		api.CmdEndShoe:         {`{"cmd":"end_shoe"}`},
		api.CmdDecide:          {`{"cmd":"decide","irregularity":3,"choice":"reconstructed"}`},
		api.CmdCallSupervisor:  {`{"cmd":"call_supervisor"}`},
		api.CmdCancelCall:      {`{"cmd":"cancel_call"}`},
		api.CmdOptionsClosed:   {`{"cmd":"options_closed"}`},
		// A dealer in their own name; a supervisor for another dealer.
		api.CmdDealerOn:  {`{"cmd":"dealer_on"}`, `{"cmd":"dealer_on","dealer":"Mei Ling Tan"}`},
		api.CmdDealerOff: {`{"cmd":"dealer_off"}`, `{"cmd":"dealer_off","dealer":"Mei Ling Tan"}`},
	}
	for _, k := range api.Reports {
		c := api.Command{Cmd: api.CmdReport, Kind: string(k), Detail: "seen by the dealer"}
		switch k {
		case api.LateError:
			c.Round = 2
		case "foreign_card":
			c.Card = "QH"
		}
		b, _ := json.Marshal(c)
		m[api.CmdReport] = append(m[api.CmdReport], string(b))
	}
	for _, o := range api.BoxOptions {
		c := api.Command{Cmd: api.CmdBoxOption, Box: "2", Option: string(o)}
		if o == api.OptionInsuranceIntended {
			c.Bet = "banker_insurance"
		}
		b, _ := json.Marshal(c)
		m[api.CmdBoxOption] = append(m[api.CmdBoxOption], string(b))
	}
	return m
}

// allRoles are the four roles of docs/irregularities.md, lowest first.
var allRoles = []api.Role{api.RoleDealer, api.RoleSupervisor, api.RolePitManager, api.RoleShiftManager}

// newRolesConsole is a console whose fake table answers every command as done, whatever
// the role: it refuses nothing, so what is refused is refused by the console. It has one
// person of each role, at every table, logged in.
func newRolesConsole(t *testing.T) (*testConsole, map[api.Role]*agent) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "users.json")
	for _, r := range allRoles {
		addTestUser(t, path, User{Name: "U-" + r.String(), Role: r.String()}, "password-of-"+r.String())
	}
	us, err := LoadUsers(path)
	if err != nil {
		t.Fatal(err)
	}
	ft := &fakeTable{}
	tc := newTestConsoleWith(t, ft, func(o *Options) { o.Users = us })
	ft.srv, tc.table = tc.srv, ft
	replyAsTable(tc)
	people := map[api.Role]*agent{}
	for _, r := range allRoles {
		people[r] = tc.login(t, "U-"+r.String(), "password-of-"+r.String())
	}
	return tc, people
}

// refusedForRole is the console's refusal of cmd to role, where it takes need.
func refusedForRole(role, need api.Role, c api.Command) string {
	what := fmt.Sprintf("%q", c.Cmd)
	if c.Cmd == api.CmdReport {
		what = "a report of " + c.Kind
	}
	return fmt.Sprintf("a %s may not give %s: it takes a %s or above", role, what, need)
}

// giveAs has role give body at t1 and checks the console's answer: refused with 403 and
// its reason, before anything is published, when the role is below need; otherwise
// published on the role's command topic, once, and the table's answer returned.
func giveAs(t *testing.T, tc *testConsole, a *agent, role, need api.Role, body string) {
	t.Helper()
	var c api.Command
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatal(err)
	}
	before := len(tc.table.sent())
	code, resp := a.post(t, "/api/tables/t1/commands", body)
	sent := tc.table.sent()[before:]
	if role < need {
		var e struct{ Error string }
		json.Unmarshal([]byte(resp), &e)
		if want := refusedForRole(role, need, c); code != 403 || e.Error != want {
			t.Errorf("%s gives %s: %d %s, want 403 %q", role, body, code, resp, want)
		}
		if len(sent) != 0 {
			t.Errorf("%s gives %s: refused, yet published %v", role, body, sent)
		}
		return
	}
	if code != 200 || !strings.Contains(resp, `"ok":true`) || len(sent) != 1 || sent[0].topic != "tablectl/v1/t1/cmd/"+role.String() {
		t.Errorf("%s gives %s: %d %s, published %v; want it sent on cmd/%s and the table's answer", role, body, code, resp, sent, role)
	}
}

// TestEveryCommandRefusedAtTheConsoleBelowItsRole: roles are checked where a command
// enters, at the console, and again by the table (docs/console.md). Every command the
// table takes, with each set of fields that asks a higher role (RWS Baccarat 5.11: an
// error in an earlier round is a supervisor's report; NC Insurance 5.13: an intended
// Insurance is a pit manager's record; a decision is a supervisor's, RWS Baccarat 5.10),
// is refused by the console with 403 and its reason, and is not published, for each role
// below the one it takes, although the table behind it would take it; and it is sent for
// the role it takes and each above.
func TestEveryCommandRefusedAtTheConsoleBelowItsRole(t *testing.T) {
	tc, people := newRolesConsole(t)
	tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":1,"table":"t1","state":"online","rules":"rws"}`))
	tc.srv.Ingest("tablectl/v1/t1/state", []byte(heldState))
	everyBody := commandBodies()
	for _, spec := range api.Commands {
		bodies := everyBody[spec.Name]
		if len(bodies) == 0 {
			t.Errorf("command %s has no body here: add one for each role its fields can ask", spec.Name)
		}
		raised := false
		for _, body := range bodies {
			var c api.Command
			if err := json.Unmarshal([]byte(body), &c); err != nil || c.Cmd != spec.Name {
				t.Fatalf("%s: body %s: %v", spec.Name, body, err)
			}
			if _, _, err := api.ParseCommand(api.RoleShiftManager.String(), []byte(body)); err != nil {
				t.Fatalf("%s: the table would not take it: %v", body, err)
			}
			need, ok := api.LowestRole(c)
			if !ok {
				t.Fatalf("%s: no lowest role", body)
			}
			raised = raised || need > spec.Role
			for _, role := range allRoles {
				giveAs(t, tc, people[role], role, need, body)
			}
		}
		if spec.RoleFor != nil && !raised {
			t.Errorf("command %s asks a higher role for some fields, and none of its bodies here does", spec.Name)
		}
	}
	// The roles the rules name, as the command table gives them.
	for body, want := range map[string]api.Role{
		`{"cmd":"confirm"}`: api.RoleDealer,
		`{"cmd":"report","kind":"late_error","round":2}`:                              api.RoleSupervisor,
		`{"cmd":"decide","irregularity":3,"choice":"reconstructed"}`:                  api.RoleSupervisor,
		`{"cmd":"box_option","box":"2","option":"insurance-intended","bet":"banker"}`: api.RolePitManager,
	} {
		var c api.Command
		json.Unmarshal([]byte(body), &c)
		if need, _ := api.LowestRole(c); need != want {
			t.Errorf("%s takes a %s, want a %s", body, need, want)
		}
	}
}

// TestDecisionTakesTheRoleItsHoldNames: a decision on the irregularity that holds the
// table takes the role the table's state names for it (decided_by), when that is above
// the supervisor's that decide takes: the console refuses it, with 403, to each role
// below, although the table behind it would take it, and sends it for that role and
// above. A decision on another irregularity takes a supervisor.
func TestDecisionTakesTheRoleItsHoldNames(t *testing.T) {
	for _, by := range []api.Role{api.RolePitManager, api.RoleShiftManager} {
		t.Run(by.String(), func(t *testing.T) {
			tc, people := newRolesConsole(t)
			tc.srv.Ingest("tablectl/v1/t1/status", []byte(`{"schema":1,"table":"t1","state":"online","rules":"rws"}`))
			tc.srv.Ingest("tablectl/v1/t1/state", []byte(strings.Replace(heldState, `"decided_by":"supervisor"`, `"decided_by":"`+by.String()+`"`, 1)))
			for _, role := range allRoles {
				giveAs(t, tc, people[role], role, by, `{"cmd":"decide","irregularity":3,"choice":"reconstructed"}`)
				giveAs(t, tc, people[role], role, api.RoleSupervisor, `{"cmd":"decide","irregularity":4,"choice":"void"}`)
			}
		})
	}
}
