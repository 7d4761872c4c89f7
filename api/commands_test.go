package api_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
)

// TestCommandsDocumented: docs/mqtt.md lists the commands the table takes, as the
// table's list of commands says.
func TestCommandsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/mqtt.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), api.CommandsMarkdown()) {
		t.Errorf("docs/mqtt.md's list of commands is not the table's; it should read:\n%s", api.CommandsMarkdown())
	}
}

// TestCommandRoles: every command parses for its lowest role and above, and is refused
// below it, naming the role it takes.
func TestCommandRoles(t *testing.T) {
	payloads := map[string]string{
		"insurance_bet": `{"cmd":"insurance_bet","wager":{"box":"1","bet":"player","stake":10}}`,
		"new_shoe":      `{"cmd":"new_shoe","set":"S1","decks":8}`,
		"report":        `{"cmd":"report","kind":"wrong_hand"}`,
		"decide":        `{"cmd":"decide","irregularity":1,"choice":"void"}`,
		"box_option":    `{"cmd":"box_option","box":"1","option":"bet-returned"}`,
	}
	for _, c := range api.Commands {
		payload := payloads[c.Name]
		if payload == "" {
			payload = `{"cmd":"` + c.Name + `"}`
		}
		for _, role := range []api.Role{api.RoleDealer, api.RoleSupervisor, api.RolePitManager} {
			_, got, err := api.ParseCommand(role.String(), []byte(payload))
			switch {
			case role < c.Role && (err == nil || !strings.Contains(err.Error(), "takes a "+c.Role.String())):
				t.Errorf("%s by a %s: %v, want refused", c.Name, role, err)
			case role >= c.Role && err != nil:
				t.Errorf("%s by a %s: %v", c.Name, role, err)
			case role >= c.Role && got != role:
				t.Errorf("%s by a %s: taken as a %s's", c.Name, role, got)
			}
		}
	}
}

// FuzzParseCommand: no payload on any role's topic makes the command parser panic, and
// a payload it takes names a command of the table given by a role allowed to.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{`{"cmd":"confirm"}`, `{"id":"r1","cmd":"report","kind":"wrong_hand","actor":"D4"}`,
		`{"cmd":"decide","irregularity":1,"choice":"void"}`, `{"cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":100}]}`,
		`{"cmd":"new_shoe","set":"S","decks":8}`, `{"cmd":"confirm"`, `[]`, ``,
		`{"id":"r1","cmd":"report","kind":"wrong_hand","detail":"card in the wrong box","actor":"D4"}`,
		`{"cmd":"insurance_bet","wager":{"box":"2","bet":"player_insurance","stake":5}}`,
		`{"cmd":"confirm","colour":"red"}`, `{"cmd":"confirm"}{"cmd":"confirm"}`, `{"cmd":"report","detail":"\u0000\uffff"}`} {
		f.Add("dealer", []byte(s))
		f.Add("supervisor", []byte(s))
	}
	f.Fuzz(func(t *testing.T, role string, payload []byte) {
		c, by, err := api.ParseCommand(role, payload)
		if err != nil {
			return
		}
		spec, ok := api.LookupCommand(c.Cmd)
		if !ok || by < spec.Role || by.String() != role {
			t.Errorf("%q on cmd/%s taken as %+v by a %s", payload, role, c, by)
		}
		// Nothing over a limit is taken.
		if len(payload) > api.MaxCommandBytes {
			t.Fatalf("a command of %d bytes was taken", len(payload))
		}
		if err := c.CheckFields(); err != nil {
			t.Fatalf("a command over a limit was taken: %v", err)
		}
	})
}

// TestCommandsTakeTheirFields: each field a command says it takes (Takes, which the
// console's forms are built from) is a field of Command.
func TestCommandsTakeTheirFields(t *testing.T) {
	fields := map[string]bool{}
	ct := reflect.TypeOf(api.Command{})
	for i := range ct.NumField() {
		name, _, _ := strings.Cut(ct.Field(i).Tag.Get("json"), ",")
		fields[name] = true
	}
	for _, c := range api.Commands {
		for _, f := range c.Takes {
			if !fields[f] {
				t.Errorf("%s takes %q, which is no field of a command", c.Name, f)
			}
		}
	}
}
