package api

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// textBases are payloads each command is taken with (by a pit manager), for the test of
// its text fields; a command not listed is {"cmd":"<name>"}.
var textBases = map[string]string{
	CmdBetsClosed:   `{"cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":100},{"box":"2","seat":"standing","bet":"player","stake":5}]}`,
	CmdInsuranceBet: `{"cmd":"insurance_bet","wager":{"box":"1","bet":"player_insurance","stake":10}}`,
	CmdNewShoe:      `{"cmd":"new_shoe","set":"S1","decks":8}`,
	CmdReport:       `{"cmd":"report","kind":"foreign_card","card":"AS","detail":"a red-backed card"}`,
	CmdDecide:       `{"cmd":"decide","irregularity":1,"choice":"void"}`,
	CmdBoxOption:    `{"cmd":"box_option","box":"1","option":"insurance-intended","bet":"banker_insurance"}`,
}

// textPlace is one text field of a command: its path in the JSON object, and the name
// a refusal gives it.
type textPlace struct {
	path []any // keys and indices
	name string
}

// commandTextPlaces are the places of every text of command spec, from the fields it
// takes (id, cmd, actor, detail and its Takes) and their types in Command: a string
// field, and each field of a wager that JSON writes as a string (box, seat, bet).
func commandTextPlaces(t *testing.T, spec CommandSpec) []textPlace {
	t.Helper()
	ct := reflect.TypeFor[Command]()
	byName := map[string]reflect.StructField{}
	for i := range ct.NumField() {
		name, _, _ := strings.Cut(ct.Field(i).Tag.Get("json"), ",")
		byName[name] = ct.Field(i)
	}
	wagerTexts := func() (names []string) {
		wt := reflect.TypeFor[Wager]()
		for i := range wt.NumField() {
			f := wt.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Type.Kind() == reflect.String || reflect.PointerTo(f.Type).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
				names = append(names, name)
			}
		}
		return names
	}()
	if len(wagerTexts) < 3 {
		t.Fatalf("a wager's texts: %v", wagerTexts)
	}
	var out []textPlace
	for _, name := range append([]string{"id", "cmd", "actor", "detail"}, spec.Takes...) {
		f, ok := byName[name]
		if !ok {
			t.Fatalf("%s takes %q, no field of Command", spec.Name, name)
		}
		switch {
		case f.Type.Kind() == reflect.String:
			out = append(out, textPlace{[]any{name}, name})
		case f.Type == reflect.TypeFor[*Wager]():
			for _, w := range wagerTexts {
				out = append(out, textPlace{[]any{name, w}, "the wager's " + w})
			}
		case f.Type == reflect.TypeFor[[]Wager]():
			for _, w := range wagerTexts {
				out = append(out, textPlace{[]any{name, 1, w}, "wager 2's " + w})
			}
		case f.Type.Kind() >= reflect.Int && f.Type.Kind() <= reflect.Uint64:
			// a number: no text
		default:
			t.Fatalf("%s's field %s is a %s: say which of its texts this test checks", spec.Name, name, f.Type)
		}
	}
	return out
}

// withText is payload with the text at path replaced by "ab" + mark + "c".
func withText(t *testing.T, payload string, path []any, mark string) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(payload), &v); err != nil {
		t.Fatal(err)
	}
	const placeholder = "@@mark@@"
	var set func(v any, path []any) any
	set = func(v any, path []any) any {
		if len(path) == 0 {
			return "ab" + placeholder + "c"
		}
		switch k := path[0].(type) {
		case string:
			m, _ := v.(map[string]any)
			if m == nil {
				m = map[string]any{}
			}
			m[k] = set(m[k], path[1:])
			return m
		case int:
			a, _ := v.([]any)
			for len(a) <= k {
				a = append(a, map[string]any{"box": "1", "bet": "banker", "stake": 1})
			}
			a[k] = set(a[k], path[1:])
			return a
		}
		t.Fatalf("path %v", path)
		return nil
	}
	b, err := json.Marshal(set(v, path))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), placeholder) != 1 {
		t.Fatalf("%s: the placeholder is not there once", b)
	}
	return []byte(strings.Replace(string(b), placeholder, mark, 1))
}

// TestCommandTextControls: every text field of every command (api.Commands, their
// fields' types in Command and a wager's) refuses each control character, escaped or
// raw, and a byte that is not UTF-8, before anything is decoded, naming the field, the
// character and its byte offset in the field's text. A report's detail alone takes tab
// and line feed; NUL and carriage return are refused everywhere.
func TestCommandTextControls(t *testing.T) {
	covered := map[string]bool{}
	for _, spec := range Commands {
		base := textBases[spec.Name]
		if base == "" {
			base = `{"cmd":"` + spec.Name + `"}`
		}
		if _, _, err := ParseCommand("pit_manager", []byte(base)); err != nil {
			t.Fatalf("%s: the base payload %s is refused: %v", spec.Name, base, err)
		}
		places := commandTextPlaces(t, spec)
		for _, pl := range places {
			covered[pl.path[0].(string)] = true
			allowed := ""
			if pl.name == "detail" {
				allowed = "\t\n"
			}
			for _, r := range []rune{0, 1, '\a', '\t', '\n', '\v', '\f', '\r', 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9b, 0x9f} {
				escaped := fmt.Sprintf(`\u%04x`, r)
				for _, form := range []string{escaped, string(r)} {
					p := withText(t, base, pl.path, form)
					_, _, err := ParseCommand("pit_manager", p)
					var te *TextError
					switch {
					case strings.ContainsRune(allowed, r) && form == escaped:
						if err != nil {
							t.Errorf("%s %s with U+%04X: %v, want it taken", spec.Name, pl.name, r, err)
						}
					case (r == '\t' || r == '\n' || r == '\r') && form != escaped:
						// Raw, JSON takes them only between values: the decoding refuses them.
						if err == nil || !strings.HasPrefix(err.Error(), "malformed command") {
							t.Errorf("%s %s with a raw U+%04X: %v, want it refused as malformed", spec.Name, pl.name, r, err)
						}
					case !errors.As(err, &te) || te.Field != pl.name || te.Rune != r || te.Offset != 2 || te.Invalid:
						t.Errorf("%s %s with %q: %v (%+v), want a text error on %s, U+%04X at byte 2", spec.Name, pl.name, form, err, te, pl.name, r)
					case !strings.Contains(err.Error(), fmt.Sprintf("%s holds control character U+%04X at byte 2", pl.name, r)):
						t.Errorf("%s %s: %q does not name the field, the character and its place", spec.Name, pl.name, err)
					}
				}
			}
			for _, bad := range []string{"\xff", "\xc3", "\xed\xa0\x80", "\xe2\x82"} {
				p := withText(t, base, pl.path, bad)
				_, _, err := ParseCommand("pit_manager", p)
				var te *TextError
				if !errors.As(err, &te) || te.Field != pl.name || !te.Invalid || te.Byte != bad[0] || te.Offset != 2 {
					t.Errorf("%s %s with %q: %v, want it refused as not UTF-8 at byte 2", spec.Name, pl.name, bad, err)
				} else if !strings.Contains(err.Error(), fmt.Sprintf("%s holds byte 0x%02X at byte 2, which is not UTF-8", pl.name, bad[0])) {
					t.Errorf("%s %s: %q", spec.Name, pl.name, err)
				}
			}
		}
	}
	for _, f := range textFields {
		if !covered[f.name] {
			t.Errorf("text field %s is taken by no command of Commands: the test does not reach it", f.name)
		}
	}
	if !covered["wagers"] || !covered["wager"] {
		t.Errorf("the wagers are not covered: %v", covered)
	}
}

// TestCommandTextOffsets: the offset is in the field's text as decoded, after escapes
// and characters of more than one byte; the first fault of the payload is named; text
// that holds no control character is taken whatever its script.
func TestCommandTextOffsets(t *testing.T) {
	for _, tc := range []struct {
		payload, want string
	}{
		{`{"cmd":"report","kind":"wrong_hand","detail":"\u00e9\"\\` + "\u0085" + `"}`, "detail holds control character U+0085 at byte 4"},
		{`{"cmd":"report","kind":"wrong_hand","detail":"éé` + "\xff" + `"}`, "detail holds byte 0xFF at byte 4, which is not UTF-8"},
		{`{"cmd":"report","kind":"wrong_hand","detail":"\u00e9` + "\x01" + `"}`, "detail holds control character U+0001 at byte 2"},
		{`{"cmd":"report","kind":"wrong_hand","detail":"a\u0000` + "\xff" + `"}`, "detail holds control character U+0000 at byte 1"},
		{`{"cmd":"report","actor":"D\u0007","detail":"` + "\xff" + `"}`, "actor holds control character U+0007 at byte 1"},
		{`{"cmd":"report","Detail":"\r\n"}`, "detail holds control character U+000D at byte 0"},
		{`{"cmd":"report","kind":"wrong_hand"}` + "\x00", "the command holds control character U+0000 at byte 36"},
		{`{"cmd":"report","x` + "\xfe" + `":1}`, "a field's name holds byte 0xFE at byte 1"},
		{`{"cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":1},{"box":"1","bet":"banker\u0000","stake":1}]}`, "wager 2's bet holds control character U+0000 at byte 6"},
		{`{"cmd":"confirm","colour":{"shade":["red","\u009b"]}}`, "colour.shade[1] holds control character U+009B at byte 0"},
		{`{"cmd":"report","detail": x "` + "\x01" + `"}`, "the command holds control character U+0001 at byte 29"},
	} {
		_, _, err := ParseCommand("dealer", []byte(tc.payload))
		var te *TextError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "command refused: ") {
			t.Errorf("%q: %v, want %q", tc.payload, err, tc.want)
		}
	}
	// A payload that is not JSON for a raw control byte still names its id, read before.
	if c, _, err := ParseCommand("dealer", []byte(`{"id":"r9","cmd":"report","detail":"a`+"\x00"+`"}`)); err == nil || c.ID != "r9" {
		t.Errorf("a raw NUL after the id: %v, id %q", err, c.ID)
	}
	for _, p := range []string{
		`{"cmd":"report","kind":"wrong_hand","detail":"carte à l'envers, 庄\t3\nU+FFFD \ufffd \u2028 ok"}`,
		`{"cmd":"report","kind":"wrong_hand","detail":"` + strings.Repeat("€", MaxDetailLen/3) + `"}`,
	} {
		if _, _, err := ParseCommand("dealer", []byte(p)); err != nil {
			t.Errorf("%.60q: %v", p, err)
		}
	}
}

// TestCheckFieldsText: CheckFields refuses a control character in every text field of
// Command and in a wager's box, and a string that is not UTF-8, as a command made in Go
// would carry them.
func TestCheckFieldsText(t *testing.T) {
	for _, f := range textFields {
		for _, s := range []string{"x\x00", "x\x1b", "x\u0085", "x\x7f", "x\xff"} {
			var c Command
			reflect.ValueOf(&c).Elem().Field(f.index).SetString(s)
			var te *TextError
			if err := c.CheckFields(); !errors.As(err, &te) || te.Field != f.name || te.Offset != 1 {
				t.Errorf("%s %q: %v, want a text error at byte 1", f.name, s, err)
			}
		}
		var c Command
		reflect.ValueOf(&c).Elem().Field(f.index).SetString("a\tb\nc")
		if err := c.CheckFields(); (err == nil) != (f.name == "detail") {
			t.Errorf("%s with tab and line feed: %v", f.name, err)
		}
	}
	c := Command{Cmd: CmdBetsClosed, Wagers: []Wager{{Box: "1"}, {Box: "2\x00"}}}
	if err := c.CheckFields(); err == nil || !strings.Contains(err.Error(), "wager 2's box holds control character U+0000 at byte 1") {
		t.Errorf("a wager's box: %v", err)
	}
	c = Command{Cmd: CmdInsuranceBet, Wager: &Wager{Box: "\u009f"}}
	if err := c.CheckFields(); err == nil || !strings.Contains(err.Error(), "the wager's box holds control character U+009F at byte 0") {
		t.Errorf("the wager's box: %v", err)
	}
}
