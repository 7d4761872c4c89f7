package api

import (
	"errors"
	"strings"
	"testing"
)

// TestCommandFieldLimits: a field over its limit is refused naming it; at the limits the
// command is taken.
func TestCommandFieldLimits(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct {
		payload, field string
	}{
		{`{"cmd":"report","kind":"wrong_hand","detail":"` + long(MaxDetailLen+1) + `"}`, "detail"},
		{`{"id":"` + long(MaxIDLen+1) + `","cmd":"confirm"}`, "id"},
		{`{"cmd":"confirm","actor":"` + long(MaxIDLen+1) + `"}`, "actor"},
		{`{"cmd":"new_shoe","set":"` + long(MaxNameLen+1) + `","decks":8}`, "set"},
		{`{"cmd":"decide","irregularity":1,"choice":"` + long(MaxNameLen+1) + `"}`, "choice"},
		{`{"cmd":"report","kind":"` + long(MaxNameLen+1) + `"}`, "kind"},
		{`{"cmd":"insurance_bet","wager":{"box":"` + long(MaxNameLen+1) + `","bet":"player_insurance","stake":1}}`, "wager 1's box"},
		{`{"cmd":"bets_closed","wagers":[` + strings.TrimSuffix(strings.Repeat(`{"box":"1","bet":"banker","stake":1},`, MaxWagers+1), ",") + `]}`, "wagers"},
		{`{"cmd":"report","kind":"wrong_hand","detail":"` + long(MaxCommandBytes) + `"}`, "the command"},
	} {
		_, _, err := ParseCommand("supervisor", []byte(tc.payload))
		var le *LimitError
		if !errors.As(err, &le) || le.Field != tc.field {
			t.Errorf("%.60s...: %v, want a limit error on %s", tc.payload, err, tc.field)
		}
	}
	// At the limits, the command is taken.
	for _, p := range []string{
		`{"id":"` + long(MaxIDLen) + `","cmd":"report","kind":"wrong_hand","actor":"` + long(MaxIDLen) + `","detail":"` + long(MaxDetailLen) + `"}`,
		`{"cmd":"bets_closed","wagers":[` + strings.TrimSuffix(strings.Repeat(`{"box":"1","bet":"banker","stake":1},`, MaxWagers), ",") + `]}`,
	} {
		if len(p) > MaxCommandBytes {
			t.Fatalf("test payload of %d bytes over MaxCommandBytes", len(p))
		}
		if _, _, err := ParseCommand("dealer", []byte(p)); err != nil {
			t.Errorf("%.60s...: %v", p, err)
		}
	}
}
