package table

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/round"
)

// TestEveryCommandAnEvent: every command of the table that calls no supervisor is a
// round event, and only those are.
func TestEveryCommandAnEvent(t *testing.T) {
	for _, c := range api.Commands {
		if _, ok := commandEvents[c.Name]; ok != (c.Calls == api.NoCall) {
			t.Errorf("%s: a round event %v, a call %v", c.Name, ok, c.Calls != api.NoCall)
		}
	}
	for name := range commandEvents {
		if _, ok := api.LookupCommand(name); !ok {
			t.Errorf("%s is no command of the table", name)
		}
	}
}

// TestCommandRoles: every command parses for its lowest role and above into an event of
// that role (of no kind for a call), and is refused below it, naming the role it takes.
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
			_, ev, err := ParseCommand(role.String(), []byte(payload))
			switch {
			case role < c.Role && (err == nil || !strings.Contains(err.Error(), "takes a "+c.Role.String())):
				t.Errorf("%s by a %s: %v, want refused", c.Name, role, err)
			case role >= c.Role && err != nil:
				t.Errorf("%s by a %s: %v", c.Name, role, err)
			case role >= c.Role && (ev.Role.String() != role.String() || (ev.Kind == 0) != (c.Calls != api.NoCall)):
				t.Errorf("%s by a %s: event %+v", c.Name, role, ev)
			case role == c.Role && ev.Kind.Info().By > ev.Role:
				// The command's lowest role (api.Commands) is one the controller takes
				// (the event table's By).
				t.Errorf("%s takes a %s, and the round controller asks a %s of its event %s", c.Name, c.Role, ev.Kind.Info().By, ev.Kind)
			}
		}
	}
}

// FuzzParseCommand: no payload on any role's topic makes the command parser panic, and
// a payload it takes names a command of the table given by a role allowed to, and
// makes no large journal record.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{`{"cmd":"confirm"}`, `{"id":"r1","cmd":"report","kind":"wrong_hand","actor":"D4"}`,
		`{"cmd":"decide","irregularity":1,"choice":"void"}`, `{"cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":100}]}`,
		`{"cmd":"new_shoe","set":"S","decks":8}`, `{"cmd":"confirm"`, `[]`, ``,
		`{"cmd":"insurance_bet","wager":{"box":"2","bet":"player_insurance","stake":5}}`,
		`{"cmd":"box_option","box":"1","option":"insurance-intended","bet":"banker_insurance"}`} {
		f.Add("dealer", []byte(s))
		f.Add("supervisor", []byte(s))
	}
	f.Fuzz(func(t *testing.T, role string, payload []byte) {
		c, ev, err := ParseCommand(role, payload)
		if err != nil {
			return
		}
		spec, ok := api.LookupCommand(c.Cmd)
		if !ok || messages.WireRole(ev.Role) < spec.Role || ev.Role.String() != role {
			t.Errorf("%q on cmd/%s taken as %+v by a %s", payload, role, c, ev.Role)
		}
		if (ev.Kind == 0) != (spec.Calls != api.NoCall) {
			t.Errorf("%q on cmd/%s taken as the event %+v", payload, role, ev)
		}
		rec, err := json.Marshal(Entry{Event: &ev})
		if err != nil {
			t.Fatal(err)
		}
		if len(rec) > journal.MaxRecordSize/64 {
			t.Fatalf("a command makes a journal record of %d bytes", len(rec))
		}
	})
}

// TestBoxOptionCommand: a box's choice arrives as one command per box; malformed ones
// are refused with the reason.
func TestBoxOptionCommand(t *testing.T) {
	_, ev, err := ParseCommand("pit_manager", []byte(`{"cmd":"box_option","box":"3","option":"insurance-intended","bet":"banker_insurance","actor":"M1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind != round.BoxChoice || ev.Box != "3" || ev.Option != irregularities.OptInsuranceIntended ||
		ev.Bet != baccarat.BetBankerInsurance || ev.Role != irregularities.PitManager || ev.Actor != "M1" {
		t.Errorf("event %+v", ev)
	}
	for payload, want := range map[string]string{
		`{"cmd":"box_option","option":"bet-returned"}`:                  "needs the box",
		`{"cmd":"box_option","box":"1","option":"maybe"}`:               `unknown option "maybe"`,
		`{"cmd":"box_option","box":"1","option":"continue","bet":"x"}`:  "box_option bet",
		`{"cmd":"box_option","box":"1","option":"continue","odds":"x"}`: "unknown field",
	} {
		// The console checks a command with api.ParseCommand before it sends it: it
		// refuses what the table refuses.
		for name, parse := range map[string]func(string, []byte) error{
			"api":   func(r string, p []byte) error { _, _, err := api.ParseCommand(r, p); return err },
			"table": func(r string, p []byte) error { _, _, err := ParseCommand(r, p); return err },
		} {
			if err := parse("dealer", []byte(payload)); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %s: %v, want %q", name, payload, err, want)
			}
		}
	}
}
