package api

import (
	"errors"
	"reflect"
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
		{`{"cmd":"insurance_bet","wager":{"box":"` + long(MaxNameLen+1) + `","bet":"player_insurance","stake":1}}`, "the wager's box"},
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

// TestEveryTextFieldBounded: each text field of Command, those added later included, is
// refused one byte over its limit, naming the field.
func TestEveryTextFieldBounded(t *testing.T) {
	if len(textFields) < 11 {
		t.Fatalf("%d text fields of Command found", len(textFields))
	}
	for _, f := range textFields {
		limit, ok := textLimits[f.name]
		if !ok {
			limit = MaxNameLen
		}
		var c Command
		reflect.ValueOf(&c).Elem().Field(f.index).SetString(strings.Repeat("x", limit+1))
		var le *LimitError
		if err := c.CheckFields(); !errors.As(err, &le) || le.Field != f.name || le.Limit != limit {
			t.Errorf("%s of %d bytes: %v, want a limit error on %s at %d", f.name, limit+1, err, f.name, limit)
		}
		reflect.ValueOf(&c).Elem().Field(f.index).SetString(strings.Repeat("x", limit))
		if err := c.CheckFields(); err != nil {
			t.Errorf("%s of %d bytes: %v", f.name, limit, err)
		}
	}
}
