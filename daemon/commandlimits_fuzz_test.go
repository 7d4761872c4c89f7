package daemon

import (
	"encoding/json"
	"testing"

	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/table"
)

// FuzzParseCommand: whatever arrives on a command topic, ParseCommand returns without
// panicking, and a command it takes is within every limit and makes a journal record
// far below the journal's limit, so no command can stop the table.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{
		`{"id":"r1","cmd":"report","kind":"wrong_hand","detail":"card in the wrong box","actor":"D4"}`,
		`{"cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":100}]}`,
		`{"cmd":"insurance_bet","wager":{"box":"2","bet":"player_insurance","stake":5}}`,
		`{"cmd":"new_shoe","set":"42","decks":8}`,
		`{"cmd":"decide","irregularity":3,"choice":"void"}`,
		`{"cmd":"confirm","colour":"red"}`,
		`{"cmd":"confirm"}{"cmd":"confirm"}`,
		`{"cmd":"report","detail":"\u0000\uffff"}`,
		``,
	} {
		f.Add("dealer", []byte(s))
		f.Add("supervisor", []byte(s))
	}
	f.Fuzz(func(t *testing.T, role string, payload []byte) {
		c, ev, err := ParseCommand(role, payload)
		if err != nil {
			return
		}
		if len(payload) > MaxCommandBytes {
			t.Fatalf("a command of %d bytes was taken", len(payload))
		}
		if err := c.CheckFields(); err != nil {
			t.Fatalf("a command over a limit was taken: %v", err)
		}
		rec, err := json.Marshal(table.Entry{Event: &ev})
		if err != nil {
			t.Fatal(err)
		}
		if len(rec) > journal.MaxRecordSize/64 {
			t.Fatalf("a command makes a journal record of %d bytes", len(rec))
		}
	})
}
