package gpio

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestRoleNames(t *testing.T) {
	// The names configuration files use; changing one breaks deployed configurations.
	want := map[Role]string{
		Confirm: "confirm", NewShoe: "new_shoe", InsuranceClosed: "insurance_closed",
		CallSupervisor: "call_supervisor", ShoeLid: "shoe_lid", CardPresent: "card_present",
		DoubleCard: "double_card", Dealer: "dealer", LightRed: "light_red", LightAmber: "light_amber",
		LightGreen: "light_green", Buzzer: "buzzer",
	}
	roles := Roles()
	if len(roles) != len(want) {
		t.Fatalf("Roles() = %v, want %d roles", roles, len(want))
	}
	for _, r := range roles {
		if r.String() != want[r] {
			t.Errorf("role %d String = %q, want %q", r, r.String(), want[r])
		}
		got, err := ParseRole(want[r])
		if err != nil || got != r {
			t.Errorf("ParseRole(%q) = %v, %v; want %v", want[r], got, err, r)
		}
		text, err := r.MarshalText()
		if err != nil || string(text) != want[r] {
			t.Errorf("%v.MarshalText = %q, %v", r, text, err)
		}
	}
}

func TestRoleClasses(t *testing.T) {
	var buttons, sensors, dealers, outputs []Role
	for _, r := range Roles() {
		n := 0
		for _, is := range []bool{r.IsButton(), r.IsSensor(), r.IsDealer(), r.IsOutput()} {
			if is {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s is in %d classes, want exactly one", r, n)
		}
		if r.IsInput() != (r.IsButton() || r.IsSensor() || r.IsDealer()) {
			t.Errorf("%s: IsInput = %t", r, r.IsInput())
		}
		switch {
		case r.IsButton():
			buttons = append(buttons, r)
		case r.IsSensor():
			sensors = append(sensors, r)
		case r.IsDealer():
			dealers = append(dealers, r)
		default:
			outputs = append(outputs, r)
		}
	}
	if !slices.Equal(buttons, []Role{Confirm, NewShoe, InsuranceClosed, CallSupervisor}) ||
		!slices.Equal(sensors, []Role{ShoeLid, CardPresent, DoubleCard}) ||
		!slices.Equal(dealers, []Role{Dealer}) ||
		!slices.Equal(outputs, []Role{LightRed, LightAmber, LightGreen, Buzzer}) {
		t.Errorf("buttons %v, sensors %v, dealers %v, outputs %v", buttons, sensors, dealers, outputs)
	}
	if Role(0).Valid() || roleCount.Valid() || Role(0).IsInput() || Role(200).IsOutput() {
		t.Error("an undeclared role counts as a role")
	}
}

func TestParseRoleRejects(t *testing.T) {
	for _, s := range []string{"", "Confirm", "confirm ", "light-red", "role(1)", "\xff\x00"} {
		_, err := ParseRole(s)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "unknown role") {
			t.Errorf("ParseRole(%q) = %v, want an unknown-role config error", s, err)
		}
	}
	if _, err := Role(0).MarshalText(); err == nil {
		t.Error("MarshalText of the zero role succeeded")
	}
	var r Role = Buzzer
	if err := r.UnmarshalText([]byte("sirene")); err == nil || r != Buzzer {
		t.Errorf("UnmarshalText(sirene) = %v and left %v; want an error and Buzzer kept", err, r)
	}
}

func TestEventAndCommandText(t *testing.T) {
	clock := newFakeClock()
	tests := []struct{ got, want string }{
		{Event{Role: Confirm, Kind: Pressed, At: clock.Now().Add(20 * ms)}.String(), "confirm pressed at 12:00:00.020"},
		{Event{Role: ShoeLid, Kind: Off, At: clock.Now()}.String(), "shoe_lid off at 12:00:00.000"},
		{Event{Role: Dealer, Kind: On, At: clock.Now(), Dealer: "D-ANA"}.String(), `dealer "D-ANA" on at 12:00:00.000`},
		{Command{Role: LightAmber, Mode: ModeBlink, Cycles: 3}.String(), "light_amber blink 500ms/500ms x3"},
		{Command{Role: Buzzer, Mode: ModeBlink, On: 100 * ms, Off: 50 * ms}.String(), "buzzer blink 100ms/50ms"},
		{Command{Role: LightRed, Mode: ModeOn}.String(), "light_red on"},
		{Kind(9).String(), "kind(9)"},
		{Mode(7).String(), "mode(7)"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	for k, active := range map[Kind]bool{Pressed: true, On: true, Released: false, Off: false} {
		if (Event{Kind: k}).Active() != active {
			t.Errorf("%s: Active = %t", k, !active)
		}
	}
}
