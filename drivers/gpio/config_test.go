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
		{"role": "dealer", "pin": "GPIO24", "dealer": "D-ANA", "active_low": true},
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
		{Role: Dealer, Pin: "GPIO24", Dealer: "D-ANA", ActiveLow: true},
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
		{"dealer unnamed", Config{Pins: []PinConfig{{Role: Dealer, Pin: "GPIO24"}}}, `gpio config: role dealer (pin "GPIO24"): no dealer named`},
		{"dealer on another role", Config{Pins: []PinConfig{{Role: Confirm, Pin: "GPIO17", Dealer: "D-ANA"}}},
			`gpio config: role confirm (pin "GPIO17"): dealer "D-ANA" named: only role dealer names a dealer`},
		{"dealer on an output", Config{Pins: []PinConfig{{Role: LightRed, Pin: "GPIO12", Dealer: "D-ANA"}}},
			`gpio config: role light_red (pin "GPIO12"): dealer "D-ANA" named`},
		{"dealer name too long", Config{Pins: []PinConfig{{Role: Dealer, Pin: "GPIO24", Dealer: strings.Repeat("x", 65)}}},
			`gpio config: role dealer (pin "GPIO24"): dealer name is 65 bytes, over the limit of 64`},
		{"dealer name not printable", Config{Pins: []PinConfig{{Role: Dealer, Pin: "GPIO24", Dealer: "D-\tANA"}}},
			`gpio config: role dealer (pin "GPIO24"): dealer name "D-\tANA" holds U+0009 at byte 2, not printable`},
		{"dealer name not UTF-8", Config{Pins: []PinConfig{{Role: Dealer, Pin: "GPIO24", Dealer: "D-\xffANA"}}},
			`gpio config: role dealer (pin "GPIO24"): dealer name "D-\xffANA" is not UTF-8 at byte 2`},
		{"dealer twice", Config{Pins: []PinConfig{{Role: Dealer, Pin: "GPIO24", Dealer: "D-ANA"}, {Role: Dealer, Pin: "GPIO25", Dealer: "D-BEN"}, {Role: Dealer, Pin: "GPIO26", Dealer: "D-ANA"}}},
			`gpio config: role dealer: dealer "D-ANA" given twice (pins "GPIO24" and "GPIO26")`},
		{"pin twice for dealers", Config{Pins: []PinConfig{{Role: Dealer, Pin: "GPIO24", Dealer: "D-ANA"}, {Role: Dealer, Pin: "GPIO24", Dealer: "D-BEN"}}},
			`gpio config: pin "GPIO24" given to both dealer "D-ANA" and dealer "D-BEN"`},
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
	dealers := Config{Pins: []PinConfig{
		{Role: Dealer, Pin: "GPIO24", Dealer: "D-ANA", ActiveLow: true, Pull: PullUp},
		{Role: Dealer, Pin: "GPIO25", Dealer: "Mei Ling Tan"},
		{Role: Dealer, Pin: "GPIO26", Dealer: strings.Repeat("é", 32)}, // 64 bytes
		{Role: Confirm, Pin: "GPIO17"},
	}}
	if err := dealers.Validate(); err != nil {
		t.Errorf("several dealers' badges: %v", err)
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
// distinct pins, and distinct dealers on the dealers' badges only.
func FuzzConfigJSON(f *testing.F) {
	f.Add([]byte(`[{"role":"confirm","pin":"GPIO17","active_low":true,"pull":"up"}]`))
	f.Add([]byte(`[{"role":"buzzer","pin":"GPIO21","pull":"down"}]`))
	f.Add([]byte(`[{"role":"shoe_lid","pin":""},{"role":"shoe_lid","pin":"x"}]`))
	f.Add([]byte(`[{"role":"dealer","pin":"GPIO24","dealer":"D-ANA"},{"role":"dealer","pin":"GPIO25","dealer":"D-ANA"}]`))
	f.Add([]byte("\x00\xff[{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var pins []PinConfig
		if json.Unmarshal(data, &pins) != nil {
			return
		}
		if (Config{Pins: pins}).Validate() != nil {
			return
		}
		seen, dealers := map[string]bool{}, map[string]bool{}
		for _, p := range pins {
			if !p.Role.Valid() || p.Pin == "" || seen[p.Pin] || p.Role.IsDealer() != (p.Dealer != "") || dealers[p.Dealer] {
				t.Fatalf("Validate accepted %+v", pins)
			}
			seen[p.Pin] = true
			if p.Dealer != "" {
				dealers[p.Dealer] = true
			}
		}
	})
}
