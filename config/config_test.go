package config

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/round"
)

// present makes stat find exactly the paths given, for the test's length.
func present(t *testing.T, paths ...string) {
	t.Helper()
	old := stat
	stat = func(p string) (os.FileInfo, error) {
		for _, q := range paths {
			if p == q {
				return nil, nil
			}
		}
		return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	}
	t.Cleanup(func() { stat = old })
}

// TestDeployExample reads deploy/tablectl.yaml, the example the deployment guide
// installs, with its devices and password file present: it is valid, and says what its
// comments say.
func TestDeployExample(t *testing.T) {
	present(t, "/dev/tablectl-shoe", "/dev/tablectl-shuffler", "/var/lib/tablectl/mqtt-password")
	cfg, err := Load("../deploy/tablectl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Table != "bac-07" || cfg.Rules != "rws" || cfg.Decks != 8 || cfg.Shoe.Port != "/dev/tablectl-shoe" ||
		cfg.Shoe.Format != "tablectl" || cfg.Shuffler.Port != "/dev/tablectl-shuffler" || cfg.MQTT.URL != "tcp://127.0.0.1:1883" ||
		cfg.Metrics != "127.0.0.1:9464" || cfg.MQTTUsername() != "bac-07" || len(cfg.GPIO.Pins) != 10 || cfg.Dealer.SimultaneousWindow != 150*time.Millisecond {
		t.Errorf("read %+v", cfg)
	}
	rc, err := cfg.Round()
	if err != nil {
		t.Fatal(err)
	}
	if rc.Rules.Name != "rws" || rc.Decks != 8 || rc.Burn != round.BurnByFirstCard || rc.RoundsAfterCut != 1 ||
		rc.Rounding != baccarat.RoundDown || rc.CloseBetsOnFirstCard {
		t.Errorf("round settings %+v", rc)
	}
	g := cfg.GPIOConfig()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.Pins[0].Role != gpio.Confirm || g.Pins[0].Pin != "GPIO17" || !g.Pins[0].ActiveLow || g.Pins[0].Pull != gpio.PullUp {
		t.Errorf("first pin %+v", g.Pins[0])
	}
	if sc := cfg.ShoeConfig(); sc.Port.Path != "/dev/tablectl-shoe" || sc.Port.Baud != 9600 {
		t.Errorf("shoe %+v", sc)
	}
}

// TestEmptyFileIsTheDefaults: a file with nothing in it runs the defaults.
func TestEmptyFileIsTheDefaults(t *testing.T) {
	for _, content := range []string{"", "# nothing set\n", "{}\n"} {
		cfg, err := Parse("t.yaml", []byte(content))
		if err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		if cfg.Table != "table-1" || cfg.Rules != "classic" || cfg.Broker.Listen != "127.0.0.1:1883" || cfg.Shoe != nil || cfg.Archive.Ship {
			t.Errorf("%q: %+v", content, cfg)
		}
	}
}

// TestArchiveShip: archive.ship reads as it is written; left out, the table ships
// nothing.
func TestArchiveShip(t *testing.T) {
	for content, want := range map[string]bool{"archive:\n  ship: true\n": true, "archive:\n  ship: false\n": false, "archive: {}\n": false} {
		cfg, err := Parse("t.yaml", []byte(content))
		if err != nil || cfg.Archive.Ship != want {
			t.Errorf("%q: ship %v, %v; want %v", content, cfg.Archive.Ship, err, want)
		}
	}
	r, err := ApplyFlags(Default(), false, Flags{Given: map[string]bool{"archive-ship": true}, ArchiveShip: true})
	if err != nil || !r.Archive.Ship {
		t.Errorf("--archive-ship: ship %v, %v", r.Archive.Ship, err)
	}
}

// TestBoardScript: board.script reads as it is written; left out, the board's Chinese
// is Simplified.
func TestBoardScript(t *testing.T) {
	for content, want := range map[string]string{"board:\n  script: traditional\n": "traditional",
		"board:\n  script: simplified\n": "simplified", "board:\n  lang: zh\n": "simplified", "": "simplified"} {
		cfg, err := Parse("t.yaml", []byte(content))
		if err != nil || cfg.Board.Script != want {
			t.Errorf("%q: script %q, %v; want %s", content, cfg.Board.Script, err, want)
		}
	}
}

// TestFaultsNameFileLineAndKey: each fault is an error naming the file, the line and the
// key, with what is wrong; a wrong implementation that checks nothing, or reports the
// wrong line, fails here.
func TestFaultsNameFileLineAndKey(t *testing.T) {
	present(t, "/dev/ttyUSB0", "/dev/ttyUSB1")
	for _, c := range []struct {
		name, yaml, want string
	}{
		{"unknown top-level key", "table: t1\nrule: rws\n",
			`t.yaml:2: rule: unknown key (the file's top level has archive, board, broker, console, dealer, decks, gpio, http, journal, journal_key, limits, log, metrics, mqtt, royal, rules, shoe, shuffler, table)`},
		{"unknown nested key", "dealer:\n  auto: true\n  simultanous_window: 1s\n",
			`t.yaml:3: dealer.simultanous_window: unknown key (dealer has auto, burn, burn_count, burn_excess_cards, insurance_pause, no_insurance, options_pause, pay_rounded, rounding, rounds_after_cut, shoe_start, simultaneous_window)`},
		{"unknown key in the archive section", "archive:\n  ship: true\n  shipping: true\n",
			`t.yaml:3: archive.shipping: unknown key (archive has central, client_id, db, id, integrity, keys, mqtt, ship, to)`},
		{"archive.ship not a boolean", "archive:\n  ship: sometimes\n", `t.yaml:2: archive.ship: want true or false, not "sometimes"`},
		{"unknown key in a list item", "gpio:\n  pins:\n    - role: confirm\n      pin: GPIO17\n      invert: true\n",
			`t.yaml:5: gpio.pins[1].invert: unknown key`},
		{"unknown rule set", "rules: punto\n", `t.yaml:1: rules: unknown rule set "punto"`},
		{"decks outside the rule set", "rules: royal\ndecks: 3\n", `t.yaml:2: decks: rule set royal: 3 decks not permitted (allowed: 2, 4, 6, 8)`},
		{"decks outside another rule set", "rules: nc-insurance\n\ndecks: 10\n", `t.yaml:3: decks: rule set nc-insurance: 10 decks not permitted (allowed: 4 to 8)`},
		{"royal variant", "rules: royal\nroyal:\n  paytable: 9\n", `t.yaml:2: royal: rule set royal: pay table 9: want 1 to 5`},
		{"royal section with other rules", "rules: rws\nroyal:\n  paytable: 2\n", `t.yaml:2: royal: set for rule set rws: the royal section is for rules: royal`},
		{"wrong kind of value", "decks: eight\n", `t.yaml:1: decks: want a number, not "eight"`},
		{"a tab indents a key", "table: t1\ndealer:\n\tauto: true\n", "t.yaml:3: a tab in the indentation: YAML indents with spaces only"},
		{"a tab after a section's keys", "dealer:\n    auto: true\n\n\tburn: none\n", "t.yaml:4: a tab in the indentation: YAML indents with spaces only"},
		{"a tab before the first key", "\ttable: t1\n", "t.yaml:1: a tab in the indentation: YAML indents with spaces only"},
		{"bad duration", "dealer:\n  simultaneous_window: soon\n", `t.yaml:2: dealer.simultaneous_window: want a duration such as 150ms or 2s, not "soon"`},
		{"wrong kind of flag", "dealer:\n  auto: maybe\n", `t.yaml:2: dealer.auto: want true or false, not "maybe"`},
		{"options pause too long", "dealer:\n  auto: true\n  options_pause: 10m\n", `t.yaml:3: dealer.options_pause: 10m0s: want 0s to 5m`},
		{"list for a section", "shoe:\n  - ttyUSB0\n", `t.yaml:1: shoe: want a section of keys, not a list`},
		{"window too long", "dealer:\n  simultaneous_window: 5s\n", "t.yaml:2: dealer.simultaneous_window: 5s: want 0 (off) to 2s"},
		{"no insurance at a table without it", "dealer:\n  no_insurance: true\n", "t.yaml:2: dealer.no_insurance: set, but rule set classic has no Insurance to withhold: no_insurance is for a rule set with Insurance (nc-insurance, NC Insurance 4.2.2)"},
		{"burn count without fixed burn", "dealer:\n  burn_count: 3\n", "t.yaml:2: dealer.burn_count: set, but the burn is first-card: burn_count is for burn: fixed"},
		{"fixed burn without count", "dealer:\n  burn: fixed\n", "t.yaml:2: dealer.burn: fixed takes burn_count, the cards burned: 1 to 52"},
		{"fixed burn of too many", "dealer:\n  burn: fixed\n  burn_count: 60\n", "t.yaml:3: dealer.burn_count: 60: a fixed burn takes 1 to 52 cards"},
		{"serial port missing", "shoe:\n  format: tablectl\n  port: /dev/ttyUSB7\n",
			"t.yaml:3: shoe.port: /dev/ttyUSB7 does not exist (is the shoe plugged in, and its udev rule installed?)"},
		{"port and usb both", "shuffler:\n  port: /dev/ttyUSB0\n  usb:\n    vid: \"0403\"\n    pid: \"6001\"\n",
			"t.yaml:3: shuffler.usb: both port and usb are set: give one"},
		{"no port", "shoe:\n  format: ascii\n", "t.yaml:1: shoe: give its port, or its usb ids"},
		{"bad usb id", "shoe:\n  format: tablectl\n  usb:\n    vid: 403\n    pid: \"6001\"\n", `t.yaml:4: shoe.usb.vid: "403": want four hex digits`},
		{"unknown format", "shoe:\n  port: /dev/ttyUSB0\n  format: morse\n", `t.yaml:3: shoe.format: "morse": want tablectl, ascii, scanner or beetek`},
		{"same port twice", "shoe:\n  port: /dev/ttyUSB0\n  format: ascii\nshuffler:\n  port: /dev/ttyUSB0\n",
			"t.yaml:5: shuffler.port: /dev/ttyUSB0 is the shoe's port too"},
		{"parity", "shoe:\n  port: /dev/ttyUSB0\n  format: ascii\n  parity: evenish\n", `t.yaml:4: shoe.parity: "evenish": want none, odd, even, mark or space`},
		{"broker user with an unknown role", "broker:\n  users:\n    - {name: d1, role: croupier, password_hash: \"$2y$10$0123456789012345678901uMhx4BSWdE6MVJ8ZnMnK3Kk8ZsQb2O6\"}\n",
			`t.yaml:3: broker.users[1].role: role "croupier": want dealer, supervisor, pitsystem, board or archive`},
		{"broker user with a plain password", "broker:\n  users:\n    - {name: d1, role: dealer, password_hash: secret}\n",
			`t.yaml:3: broker.users[1].password_hash: not a bcrypt hash`},
		{"broker user tablectl", "broker:\n  users:\n    - {name: tablectl, role: dealer, password_hash: \"$2y$10$0123456789012345678901uMhx4BSWdE6MVJ8ZnMnK3Kk8ZsQb2O6\"}\n",
			`t.yaml:3: broker.users[1].name: "tablectl" is tablectl's own user`},
		{"websocket origin with a path", "broker:\n  websocket_origins: [\"http://127.0.0.1:8080/board\"]\n",
			`t.yaml:2: broker.websocket_origins[1]: "http://127.0.0.1:8080/board": want an origin`},
		{"unknown pin name", "gpio:\n  pins:\n    - {role: confirm, pin: GPIO17}\n    - {role: buzzer, pin: GPIO99}\n",
			`t.yaml:4: gpio.pins[2].pin: unknown pin name "GPIO99"`},
		{"header position without GPIO", "gpio:\n  pins:\n    - {role: confirm, pin: P1_1}\n", `t.yaml:3: gpio.pins[1].pin: unknown pin name "P1_1"`},
		{"one pin by two names", "gpio:\n  pins:\n    - {role: confirm, pin: GPIO17}\n    - {role: new_shoe, pin: P1_11}\n",
			"t.yaml:4: gpio.pins[2].pin: P1_11 is GPIO17, already given at gpio.pins[1]"},
		{"role twice", "gpio:\n  pins:\n    - {role: confirm, pin: GPIO17}\n    - {role: confirm, pin: GPIO27}\n",
			"t.yaml:4: gpio.pins[2].role: confirm is given twice (gpio.pins[1] and gpio.pins[2])"},
		{"unknown role", "gpio:\n  pins:\n    - {role: confirmm, pin: GPIO17}\n", `t.yaml:3: gpio.pins[1].role: "confirmm": want one of confirm, new_shoe`},
		{"pull on an output", "gpio:\n  pins:\n    - {role: buzzer, pin: GPIO21, pull: up}\n", "t.yaml:3: gpio.pins[1].pull: pull up set on an output (buzzer)"},
		{"badge with no dealer", "gpio:\n  pins:\n    - {role: confirm, pin: GPIO17}\n    - {role: dealer, pin: GPIO24}\n",
			"t.yaml:4: gpio.pins[2]: role dealer: no dealer named (give the badge's dealer)"},
		{"dealer on another role", "gpio:\n  pins:\n    - {role: confirm, pin: GPIO17, dealer: D-ANA}\n",
			`t.yaml:3: gpio.pins[1].dealer: "D-ANA" named on role confirm: only role dealer names a dealer`},
		{"dealer name too long", "gpio:\n  pins:\n    - {role: dealer, pin: GPIO24, dealer: " + strings.Repeat("x", 65) + "}\n",
			"t.yaml:3: gpio.pins[1].dealer: dealer name is 65 bytes, over the limit of 64"},
		{"dealer name not printable", "gpio:\n  pins:\n    - {role: dealer, pin: GPIO24, dealer: \"D-\\aANA\"}\n",
			`t.yaml:3: gpio.pins[1].dealer: dealer name "D-\aANA" holds U+0007 at byte 2, not printable`},
		{"dealer twice", "gpio:\n  pins:\n    - {role: dealer, pin: GPIO24, dealer: D-ANA}\n    - {role: dealer, pin: GPIO25, dealer: D-BEN}\n    - {role: dealer, pin: GPIO26, dealer: D-ANA}\n",
			`t.yaml:5: gpio.pins[3].dealer: "D-ANA" is given twice (gpio.pins[1] and gpio.pins[3])`},
		{"credentials for the embedded broker", "mqtt:\n  username: bac-07\n", "t.yaml:2: mqtt.username: set without mqtt.url: the embedded broker takes no credentials"},
		{"embedded broker with an external one", "mqtt:\n  url: tcp://10.0.0.5:1883\nbroker:\n  listen: 127.0.0.1:1883\n",
			"t.yaml:3: broker: set with mqtt.url: the broker section is for the embedded broker"},
		{"bad broker url", "mqtt:\n  url: http://10.0.0.5\n", `t.yaml:2: mqtt.url: "http://10.0.0.5": want tcp://host:1883 or ssl://host:8883`},
		{"certificate without key", "mqtt:\n  url: ssl://b:8883\n  cert: /dev/ttyUSB0\n", "t.yaml:3: mqtt.cert: a client certificate takes both cert and key"},
		{"missing password file", "mqtt:\n  url: tcp://b:1883\n  password_file: /etc/nowhere\n", "t.yaml:3: mqtt.password_file: /etc/nowhere does not exist"},
		{"embedded broker off loopback", "broker:\n  listen: 0.0.0.0:1883\n",
			`t.yaml:2: broker.listen: broker.listen address "0.0.0.0:1883" is not a loopback address; the embedded broker has no TLS`},
		{"bad address", "http: 8080\n", `t.yaml:1: http: "8080": want host:port`},
		{"board language", "board:\n  lang: fr\n", `t.yaml:2: board.lang: "fr": want en, zh, en+zh or zh+en`},
		{"board script", "board:\n  script: hanzi\n", `t.yaml:2: board.script: "hanzi": want simplified or traditional`},
		{"board script empty", "board:\n  script: \"\"\n", `t.yaml:2: board.script: "": want simplified or traditional`},
		{"board result hold", "board:\n  result_hold: 2m\n", `t.yaml:2: board.result_hold: 2m0s: want 0s (off) to 1m0s`},
		{"board result hold negative", "board:\n  result_hold: -1s\n", `t.yaml:2: board.result_hold: -1s: want 0s (off) to 1m0s`},
		{"board logo missing", "board:\n  logo: /nowhere/logo.png\n", `t.yaml:2: board.logo: /nowhere/logo.png does not exist`},
		{"board logo not an image", "board:\n  logo: /dev/ttyUSB0\n", `t.yaml:2: board.logo: /dev/ttyUSB0: want a .png, .jpg, .gif, .webp or .svg file`},
		{"same address twice", "http: :8080\nmetrics: :8080\n", "t.yaml:2: metrics: :8080 is the display board's address (http) too"},
		{"bad table id", "table: bac/07\n", `t.yaml:1: table: "bac/07": want 1 to 64 letters`},
		{"a service user's name as the table id", "rules: rws\ntable: dealer\n", `t.yaml:2: table: table id "dealer" is the name of a broker user that is not a table`},
		{"an archive's name as the table id", "table: archive-floor\n", `t.yaml:1: table: table id "archive-floor" is the name of a broker user`},
		{"the old shared user as the table id", "table: tablectl\n", `t.yaml:1: table: table id "tablectl" is the name of a broker user`},
		{"a service user as the table's login", "table: t1\nmqtt:\n  url: tcp://b:1883\n  username: tablectl\n",
			`t.yaml:4: mqtt.username: "tablectl" is a service user of the broker, not a table: each table logs in as its own table id (t1), the default when username is left out`},
		{"an embedded broker's archive user not named after its archive", "broker:\n  users:\n    - {name: arch, role: archive, password_hash: \"$2y$04$abcdefghijklmnopqrstuu5Hv8fH3pYq2O0kqkF6wQ8v8WcY1mZ9a\"}\n",
			`t.yaml:3: broker.users[1].name: user "arch": a user of role archive is named archive-<id>`},
		{"not YAML", "table: [bac\n", "t.yaml:1: "},
		{"duplicate key", "table: a\ntable: b\n", `t.yaml:2: table: mapping key "table" already defined at line 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error\n%s\nwant it to contain\n%s", err, c.want)
			}
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error %T is not Errors", err)
			}
		})
	}
}

// TestEveryFaultIsReported: a file with three faults gets three errors, in file order.
func TestEveryFaultIsReported(t *testing.T) {
	present(t)
	_, err := Parse("t.yaml", []byte("rules: rws\ndecks: 12\nshoe:\n  port: /dev/none\n  format: tablectl\nhttp: nowhere\n"))
	var es Errors
	if !errors.As(err, &es) || len(es) != 3 {
		t.Fatalf("got %v, want 3 errors", err)
	}
	for i, want := range []string{"t.yaml:2: decks:", "t.yaml:4: shoe.port:", "t.yaml:6: http:"} {
		if !strings.HasPrefix(es[i].Error(), want) {
			t.Errorf("error %d: %s, want it to begin %q", i+1, es[i], want)
		}
	}
}

// TestShoeFormatDefault: a shoe section without format takes tablectl, as docs/config.md
// says, with a shuffler or not, and a fault elsewhere in the file is listed alone; a
// format written empty is a fault on its line.
func TestShoeFormatDefault(t *testing.T) {
	present(t, "/dev/ttyUSB0", "/dev/ttyUSB1")
	for _, yaml := range []string{"shoe:\n  port: /dev/ttyUSB0\n", "shoe:\n  port: /dev/ttyUSB0\nshuffler:\n  port: /dev/ttyUSB1\n"} {
		c, err := Parse("t.yaml", []byte(yaml))
		if err != nil || c.Shoe == nil || c.Shoe.Format != "tablectl" || c.ShoeConfig().Format != "tablectl" {
			t.Fatalf("%q: %+v %v, want format tablectl", yaml, c.Shoe, err)
		}
	}
	_, err := Parse("t.yaml", []byte("decks: 99\nshoe:\n  port: /dev/ttyUSB0\n"))
	var es Errors
	if !errors.As(err, &es) || len(es) != 1 || !strings.HasPrefix(es[0].Error(), "t.yaml:1: decks:") {
		t.Fatalf("got %v, want the one fault of decks", err)
	}
	_, err = Parse("t.yaml", []byte("decks: eight\nshoe:\n  port: /dev/ttyUSB0\n"))
	if !errors.As(err, &es) || len(es) != 1 || !strings.HasPrefix(es[0].Error(), "t.yaml:1: decks:") {
		t.Fatalf("got %v, want the one fault of decks", err)
	}
	for _, yaml := range []string{"shoe:\n  port: /dev/ttyUSB0\n  format: \"\"\n", "shoe:\n  port: /dev/ttyUSB0\n  format:\n"} {
		_, err = Parse("t.yaml", []byte(yaml))
		if !errors.As(err, &es) || len(es) != 1 || es[0].Error() != `t.yaml:3: shoe.format: "": want tablectl, ascii, scanner or beetek` {
			t.Errorf("%q: got %v, want the fault of format on its line", yaml, err)
		}
	}
}

// TestParts: a file configures a table unless each key it sets is under console, under
// archive but ship and to, or under log; a console with its section; an archive with a
// key of the archive's own.
func TestParts(t *testing.T) {
	present(t)
	for yaml, want := range map[string]Parts{
		"":                          {Table: true},
		"log:\n  json: true\n":      {Table: true},
		"table: t1\n":               {Table: true},
		"gpio:\n  pins: []\n":       {Table: true},
		"archive:\n  ship: true\n":  {Table: true},
		"archive:\n  to: [floor]\n": {Table: true},
		"console:\n  idle: 1m\nlog:\n  json: true\n":     {Console: true},
		"archive:\n  db: a.db\n":                         {Archive: true},
		"archive:\n  id: standby\n  ship: true\n":        {Table: true, Archive: true},
		"console:\n  idle: 1m\narchive:\n  keys: \"\"\n": {Console: true, Archive: true},
		"decks: 8\nconsole:\n  idle: 1m\n":               {Table: true, Console: true},
	} {
		c, err := Parse("t.yaml", []byte(yaml))
		if err != nil {
			t.Fatalf("%q: %v", yaml, err)
		}
		if got := c.Parts(); got != want {
			t.Errorf("%q configures %+v, want %+v", yaml, got, want)
		}
	}
	if d := Default(); d.Parts() != (Parts{Table: true}) {
		t.Errorf("the defaults configure %+v, want a table", d.Parts())
	}
}

// TestPiPinNames checks the pin names against the Raspberry Pi's header: every GPIO line
// 0 to 27 by its three names, and none else.
func TestPiPinNames(t *testing.T) {
	lines := map[int]int{}
	for pos := 1; pos <= 40; pos++ {
		if n, ok := piPin("P1_" + itoa(pos)); ok {
			lines[n]++
			for _, other := range []string{"GPIO" + itoa(n), itoa(n)} {
				if m, ok := piPin(other); !ok || m != n {
					t.Errorf("%s is P1_%d's line %d, got %d %v", other, pos, n, m, ok)
				}
			}
		}
	}
	if len(lines) != 28 {
		t.Errorf("the header carries %d GPIO lines, want 28 (GPIO0 to GPIO27)", len(lines))
	}
	for _, bad := range []string{"GPIO28", "GPIO-1", "GPIO017", "P1_1", "P1_41", "p1_11", "gpio17", "28", "", "GPIO"} {
		if _, ok := piPin(bad); ok {
			t.Errorf("%q taken as a pin", bad)
		}
	}
}

// TestLoadForSimulation: a file whose devices are not on this machine is refused by Load
// and taken by LoadForSimulation, which checks all the rest.
func TestLoadForSimulation(t *testing.T) {
	present(t)
	path := t.TempDir() + "/t.yaml"
	if err := os.WriteFile(path, []byte("shoe:\n  port: /dev/tablectl-shoe\n  format: tablectl\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "shoe.port: /dev/tablectl-shoe does not exist") {
		t.Errorf("Load: %v", err)
	}
	if _, err := LoadForSimulation(path); err != nil {
		t.Errorf("LoadForSimulation: %v", err)
	}
	if err := os.WriteFile(path, []byte("shoe:\n  port: /dev/tablectl-shoe\n  format: morse\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadForSimulation(path); err == nil || !strings.Contains(err.Error(), `shoe.format: "morse"`) {
		t.Errorf("LoadForSimulation of a bad format: %v", err)
	}
}

// TestEveryFaultAfterAStructuralOne checks that a value of the wrong kind (a word for a
// number, a list for a section) does not stop the checks: every other fault of the file
// is reported with it, in the order of the file, and the key at fault only once.
func TestEveryFaultAfterAStructuralOne(t *testing.T) {
	present(t, "/dev/ttyUSB0")
	yaml := "table: bac/07\ndecks: eight\njournal: \"\"\nshoe: [ttyUSB0]\ndealer:\n  simultaneous_window: 5s\nhttp: \"8080\"\n"
	_, err := Parse("t.yaml", []byte(yaml))
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %v is not Errors", err)
	}
	want := []string{
		`t.yaml:1: table: "bac/07": want 1 to 64 letters`,
		`t.yaml:2: decks: want a number, not "eight"`,
		`t.yaml:3: journal: no directory given`,
		`t.yaml:4: shoe: want a section of keys, not a list`,
		`t.yaml:6: dealer.simultaneous_window: 5s: want 0 (off) to 2s`,
		`t.yaml:7: http: "8080": want host:port`,
	}
	if len(es) != len(want) {
		t.Fatalf("%d faults, want %d:\n%v", len(es), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(es[i].Error(), w) {
			t.Errorf("fault %d: %s\nwant it to begin %s", i+1, es[i], w)
		}
	}
}

// TestNoDeviceWarning checks that a table with no shoe, and no simulated one, is warned
// of, and that one with a shoe or simulating is not.
func TestNoDeviceWarning(t *testing.T) {
	none := Default()
	none.Shoe, none.Shuffler = nil, nil
	if w := none.NoDeviceWarning(false); !strings.Contains(w, "no device is set") || !strings.Contains(w, "--simulate") {
		t.Errorf("no devices: %q", w)
	}
	if w := none.NoDeviceWarning(true); w != "" {
		t.Errorf("simulated: %q", w)
	}
	shufflerOnly := none
	shufflerOnly.Shuffler = &Serial{Port: "/dev/ttyUSB1"}
	if w := shufflerOnly.NoDeviceWarning(false); !strings.Contains(w, "no shoe is set") {
		t.Errorf("a shuffler alone: %q", w)
	}
	withShoe := none
	withShoe.Shoe = &Shoe{Serial: Serial{Port: "/dev/ttyUSB0"}, Format: "ascii"}
	if w := withShoe.NoDeviceWarning(false); w != "" {
		t.Errorf("with a shoe: %q", w)
	}
}

// TestLimitsWarning: a rule set whose document requires the limits displayed at the
// table (RWS Baccarat 3.4, NC Insurance 3.4) is warned of when the limits section, or
// its minimum or maximum Differential, is missing; another rule set is not.
func TestLimitsWarning(t *testing.T) {
	full := &Limits{Min: map[string]int64{"banker": 100}, MaxDifferential: 10000}
	for _, tc := range []struct {
		rules  string
		limits *Limits
		want   string
	}{
		{"rws", nil, "no limits section: rule set rws requires the permissible minimum and maximum Differential limits displayed at the table (RWS Baccarat 3.4)"},
		{"nc-insurance", nil, "(NC Insurance 3.4)"},
		{"rws", &Limits{Max: map[string]int64{"banker": 100}}, "the limits section has no min and no max_differential"},
		{"rws", &Limits{Min: map[string]int64{"banker": 100}}, "the limits section has no max_differential"},
		{"rws", &Limits{MaxDifferential: 100}, "the limits section has no min:"},
		{"rws", full, ""},
		{"classic", nil, ""},
		{"royal", nil, ""},
		{"nc-tournament", nil, ""},
	} {
		c := Default()
		c.Rules, c.Limits = tc.rules, tc.limits
		got := c.LimitsWarning()
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s %+v: %q, want %q", tc.rules, tc.limits, got, tc.want)
		}
	}
}

// TestGPIODealersBadges: role dealer is given once per dealer, each pin naming its
// dealer, and the driver's settings carry each pin's dealer.
func TestGPIODealersBadges(t *testing.T) {
	src := "gpio:\n  pins:\n    - {role: confirm, pin: GPIO17}\n" +
		"    - {role: dealer, pin: GPIO24, dealer: D-ANA, active_low: true, pull: up}\n" +
		"    - {role: dealer, pin: GPIO25, dealer: \"Mei Ling Tan\"}\n"
	cfg, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.GPIOConfig()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	want := []gpio.PinConfig{
		{Role: gpio.Confirm, Pin: "GPIO17"},
		{Role: gpio.Dealer, Pin: "GPIO24", Dealer: "D-ANA", ActiveLow: true, Pull: gpio.PullUp},
		{Role: gpio.Dealer, Pin: "GPIO25", Dealer: "Mei Ling Tan"},
	}
	if !slices.Equal(g.Pins, want) {
		t.Errorf("pins %+v, want %+v", g.Pins, want)
	}
}

// TestDealerNameLimits: a dealer's name on a GPIO pin is bounded as a command's name is,
// for the name becomes the dealer_on's.
func TestDealerNameLimits(t *testing.T) {
	if gpio.MaxDealerName != api.MaxNameLen {
		t.Fatalf("gpio.MaxDealerName %d, api.MaxNameLen %d: want them equal", gpio.MaxDealerName, api.MaxNameLen)
	}
}
