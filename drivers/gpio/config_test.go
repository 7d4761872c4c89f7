package gpio

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"
)

func TestConfigFromJSON(t *testing.T) {
	src := `[
		{"role": "confirm", "pin": "GPIO17", "active_low": true, "pull": "up"},
		{"role": "shoe_lid", "pin": "P1_29", "pull": "down"},
		{"role": "double_card", "pin": "6", "pull": "float"},
		{"role": "light_green", "pin": "GPIO20"}
	]`
	var pins []PinConfig
	if err := json.Unmarshal([]byte(src), &pins); err != nil {
		t.Fatal(err)
	}
	want := []PinConfig{
		{Role: Confirm, Pin: "GPIO17", ActiveLow: true, Pull: PullUp},
		{Role: ShoeLid, Pin: "P1_29", Pull: PullDown},
		{Role: DoubleCard, Pin: "6", Pull: PullFloat},
		{Role: LightGreen, Pin: "GPIO20"},
	}
	if !slices.Equal(pins, want) {
		t.Fatalf("decoded %+v, want %+v", pins, want)
	}
	if err := (Config{Pins: pins}).Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	out, err := json.Marshal(pins)
	if err != nil {
		t.Fatal(err)
	}
	var again []PinConfig
	if err := json.Unmarshal(out, &again); err != nil || !slices.Equal(again, want) {
		t.Errorf("round trip through %s = %+v, %v", out, again, err)
	}
}

func TestConfigFromJSONRejects(t *testing.T) {
	tests := []struct{ src, want string }{
		{`[{"role": "confirmm", "pin": "GPIO17"}]`, `unknown role "confirmm"`},
		{`[{"role": "confirm", "pin": "GPIO17", "pull": "sideways"}]`, `unknown pull "sideways"`},
		{`[{"role": 3, "pin": "GPIO17"}]`, "cannot unmarshal number"},
	}
	for _, tt := range tests {
		var pins []PinConfig
		err := json.Unmarshal([]byte(tt.src), &pins)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.src, err, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"zero role", Config{Pins: []PinConfig{{Pin: "GPIO4"}}}, `pin entry 1 (pin "GPIO4"): role(0) is not a role`},
		{"undeclared role", Config{Pins: []PinConfig{{Role: LightGreen, Pin: "GPIO4"}, {Role: 40, Pin: "GPIO5"}}}, `pin entry 2 (pin "GPIO5"): role(40) is not a role`},
		{"no pin name", Config{Pins: []PinConfig{{Role: NewShoe}}}, "role new_shoe: no pin name"},
		{"role twice", Config{Pins: []PinConfig{{Role: Confirm, Pin: "GPIO17"}, {Role: Confirm, Pin: "GPIO27"}}}, `role confirm given twice (pins "GPIO17" and "GPIO27")`},
		{"pin twice", Config{Pins: []PinConfig{{Role: Confirm, Pin: "GPIO17"}, {Role: NewShoe, Pin: "GPIO17"}}}, `pin "GPIO17" given to both confirm and new_shoe`},
		{"pull on output", Config{Pins: []PinConfig{{Role: Buzzer, Pin: "GPIO21", Pull: PullUp}}}, "role buzzer: pull up set on an output"},
		{"bad pull value", Config{Pins: []PinConfig{{Role: Confirm, Pin: "GPIO17", Pull: 9}}}, "role confirm: pull(9) is not a pull setting"},
		{"negative debounce", Config{Debounce: -time.Millisecond}, "debounce -1ms outside 0 to 1s"},
		{"debounce too long", Config{Debounce: 2 * time.Second}, "debounce 2s outside 0 to 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want a config error containing %q", err, tt.want)
			}
		})
	}
	ok := Config{Pins: []PinConfig{{Role: Confirm, Pin: "GPIO17", ActiveLow: true, Pull: PullUp}, {Role: LightRed, Pin: "GPIO12", ActiveLow: true}}, Debounce: MaxDebounce}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid config: %v", err)
	}
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("empty config: %v", err)
	}
}

func TestPullMapsToPeriph(t *testing.T) {
	want := map[Pull]gpio.Pull{PullAsIs: gpio.PullNoChange, PullUp: gpio.PullUp, PullDown: gpio.PullDown, PullFloat: gpio.Float}
	for p, w := range want {
		if p.periph() != w {
			t.Errorf("%s.periph() = %s, want %s", p, p.periph(), w)
		}
	}
	if _, err := Pull(7).MarshalText(); err == nil {
		t.Error("MarshalText of an undeclared pull succeeded")
	}
}

// FuzzConfigJSON feeds arbitrary bytes to the configuration decoder and Validate: neither
// may panic, and a configuration that validates names only declared roles, non-empty and
// distinct pins.
func FuzzConfigJSON(f *testing.F) {
	f.Add([]byte(`[{"role":"confirm","pin":"GPIO17","active_low":true,"pull":"up"}]`))
	f.Add([]byte(`[{"role":"buzzer","pin":"GPIO21","pull":"down"}]`))
	f.Add([]byte(`[{"role":"shoe_lid","pin":""},{"role":"shoe_lid","pin":"x"}]`))
	f.Add([]byte("\x00\xff[{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var pins []PinConfig
		if json.Unmarshal(data, &pins) != nil {
			return
		}
		if (Config{Pins: pins}).Validate() != nil {
			return
		}
		seen := map[string]bool{}
		for _, p := range pins {
			if !p.Role.Valid() || p.Pin == "" || seen[p.Pin] {
				t.Fatalf("Validate accepted %+v", pins)
			}
			seen[p.Pin] = true
		}
	})
}
