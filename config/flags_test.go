package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// flags returns Flags with the command line's defaults and the named flags given.
func flags(given ...string) Flags {
	f := Flags{Given: map[string]bool{}, ShoeFormat: "tablectl", Pace: time.Second,
		SimultaneousWindow: Default().Dealer.SimultaneousWindow}
	for _, g := range given {
		f.Given[g] = true
	}
	return f
}

// TestApplyFlags: the flags given, and only those, override the file; then the
// simulation's rules apply: no devices of its own, the dealer stood in for, a temporary
// journal, and no simultaneous-draw check (RWS Baccarat 5.10) faster than the window
// unless the window is given.
func TestApplyFlags(t *testing.T) {
	present(t, "/dev/shoe", "/dev/shoe2", "/dev/shuffler")
	file := Default()
	file.Table, file.Rules, file.Journal = "T4", "royal", "/var/lib/j"
	file.Royal = &Royal{Paytable: 2, Tiers: 4}
	file.Shoe = &Shoe{Serial: Serial{Port: "/dev/shoe", Baud: 19200}, Format: "ascii"}
	file.Shuffler = &Serial{Port: "/dev/shuffler"}
	file.MQTT.URL = "tcp://pit:1883"

	type check func(t *testing.T, r Run)
	for _, tc := range []struct {
		name     string
		fromFile bool
		f        func() Flags
		err      string
		check    check
	}{
		{"the file alone", true, func() Flags { return flags() }, "", func(t *testing.T, r Run) {
			if r.Table != "T4" || r.Shoe.Format != "ascii" || r.Shoe.Baud != 19200 || r.Dealer.Auto || r.TempJournal {
				t.Errorf("%+v", r.Config)
			}
		}},
		{"a flag not given keeps the file's", true, func() Flags { f := flags(); f.Table = "X"; return f }, "", func(t *testing.T, r Run) {
			if r.Table != "T4" {
				t.Errorf("table %q", r.Table)
			}
		}},
		{"a new shoe port keeps the file's format", true, func() Flags { f := flags("shoe"); f.Shoe = "/dev/shoe2"; return f }, "", func(t *testing.T, r Run) {
			if r.Shoe.Port != "/dev/shoe2" || r.Shoe.Format != "ascii" || r.Shoe.Baud != 0 {
				t.Errorf("shoe %+v", r.Shoe)
			}
		}},
		{"baud after the new lines", true, func() Flags { f := flags("shoe", "baud"); f.Shoe, f.Baud = "/dev/shoe2", 4800; return f }, "", func(t *testing.T, r Run) {
			if r.Shoe.Baud != 4800 || r.Shuffler.Baud != 4800 {
				t.Errorf("baud %d %d", r.Shoe.Baud, r.Shuffler.Baud)
			}
		}},
		{"another rule set drops the royal variant", true, func() Flags { f := flags("rules"); f.Rules = "rws"; return f }, "", func(t *testing.T, r Run) {
			if r.Royal != nil || r.Round.Rules.Name != "rws" {
				t.Errorf("royal %+v, rules %s", r.Royal, r.Round.Rules.Name)
			}
		}},
		{"a bad flag is checked", true, func() Flags { f := flags("table"); f.Table = "a/b"; return f }, `--table: "a/b"`, nil},
		// A fault of a value a flag gave is named by the flag, not by the file's key.
		{"a shoe port that is not there", false, func() Flags { f := flags("shoe"); f.Shoe = "/dev/ttyUSB7"; return f },
			"--shoe: /dev/ttyUSB7 does not exist (is the shoe plugged in, and its udev rule installed?)", nil},
		{"an unknown shoe format", true, func() Flags { f := flags("shoe-format"); f.ShoeFormat = "morse"; return f },
			`--shoe-format: "morse": want tablectl`, nil},
		{"the shuffler on the shoe's port", true, func() Flags { f := flags("shuffler"); f.Shuffler = "/dev/shoe"; return f },
			"--shuffler: /dev/shoe is the shoe's port too", nil},
		{"a window too long", false, func() Flags { f := flags("simultaneous-window"); f.SimultaneousWindow = time.Minute; return f },
			"--simultaneous-window: 1m0s: want 0 (off) to 2s", nil},
		// The file's shuffler is at fault: the file's key names it.
		{"the shoe on the file's shuffler port", true, func() Flags { f := flags("shoe"); f.Shoe = "/dev/shuffler"; return f },
			"shuffler.port: /dev/shuffler is the shoe's port too", nil},
		{"broker-listen contradicts mqtt", true, func() Flags { f := flags("broker-listen"); f.BrokerListen = "127.0.0.1:1"; return f },
			"contradicts --mqtt", nil},
		{"simulate brings its devices", false, func() Flags { f := flags("simulate", "shoe"); f.Simulate = true; return f }, "leave out --shoe", nil},
		{"scenario needs simulate", false, func() Flags { f := flags("scenario"); f.Scenario = "x.txt"; return f }, "give --simulate", nil},
		{"simulated", true, func() Flags { f := flags("simulate", "pace"); f.Simulate, f.Pace = true, 0; return f }, "", func(t *testing.T, r Run) {
			if r.Shoe != nil || r.Shuffler != nil || !r.Dealer.Auto || r.Round.SimultaneousWindow != 0 || r.SimDecks != 8 {
				t.Errorf("%+v window %v decks %d", r.Config, r.Round.SimultaneousWindow, r.SimDecks)
			}
			// Never the file's journal, which is the table's audited record, nor its key.
			if !r.TempJournal || r.Journal == "/var/lib/j" || r.JournalKey != "" {
				t.Errorf("simulated on journal %q (temporary %v), key %q", r.Journal, r.TempJournal, r.JournalKey)
			}
		}},
		{"simulated on a journal given", true, func() Flags {
			f := flags("simulate", "journal")
			f.Simulate, f.Journal = true, "/tmp/sim"
			return f
		}, "", func(t *testing.T, r Run) {
			if r.TempJournal || r.Journal != "/tmp/sim" {
				t.Errorf("journal %q, temporary %v; want --journal's", r.Journal, r.TempJournal)
			}
		}},
		{"simulated with the window given", false, func() Flags {
			f := flags("simulate", "pace", "simultaneous-window")
			f.Simulate, f.Pace, f.SimultaneousWindow = true, 0, 40*time.Millisecond
			return f
		}, "", func(t *testing.T, r Run) {
			if r.Round.SimultaneousWindow != 40*time.Millisecond || !r.TempJournal {
				t.Errorf("window %v, temporary journal %v", r.Round.SimultaneousWindow, r.TempJournal)
			}
		}},
		{"simulated slower than the window", false, func() Flags { f := flags("simulate"); f.Simulate = true; return f }, "", func(t *testing.T, r Run) {
			if r.Round.SimultaneousWindow != 150*time.Millisecond {
				t.Errorf("window %v", r.Round.SimultaneousWindow)
			}
		}},
		{"simulated with --auto=false", false, func() Flags { f := flags("simulate", "auto"); f.Simulate = true; return f }, "", func(t *testing.T, r Run) {
			if r.Dealer.Auto {
				t.Error("auto")
			}
		}},
		{"simulated decks the rule set refuses", false, func() Flags {
			f := flags("simulate", "rules", "decks")
			f.Simulate, f.Rules, f.Decks = true, "royal", 5
			return f
		}, "5 decks not permitted", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := file
			base.Shoe = &Shoe{Serial: file.Shoe.Serial, Format: file.Shoe.Format}
			base.Shuffler = &Serial{Port: file.Shuffler.Port}
			if !tc.fromFile {
				base = Default()
				base.Journal = ""
			}
			r, err := ApplyFlags(base, tc.fromFile, tc.f())
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, r)
		})
	}
}

// TestSimulatedWindow: run and watch turn the window off the same way.
func TestSimulatedWindow(t *testing.T) {
	w := 150 * time.Millisecond
	for _, tc := range []struct {
		pace  time.Duration
		given bool
		want  time.Duration
	}{{0, false, 0}, {100 * time.Millisecond, false, 0}, {w, false, w}, {time.Second, false, w}, {0, true, w}} {
		if got := SimulatedWindow(w, tc.pace, tc.given); got != tc.want {
			t.Errorf("pace %v given %v: %v, want %v", tc.pace, tc.given, got, tc.want)
		}
	}
}

// TestMQTTPassword: the flag, else the file's password_file (its first line), else the
// environment.
func TestMQTTPassword(t *testing.T) {
	t.Setenv("TABLECTL_MQTT_PASSWORD", "from-env")
	var c Config
	if p, _ := c.MQTTPassword("flag"); p != "flag" {
		t.Errorf("flag: %q", p)
	}
	if p, _ := c.MQTTPassword(""); p != "from-env" {
		t.Errorf("env: %q", p)
	}
	c.MQTT.PasswordFile = filepath.Join(t.TempDir(), "pw")
	if _, err := c.MQTTPassword(""); err == nil || !strings.Contains(err.Error(), "mqtt.password_file") {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(c.MQTT.PasswordFile, []byte("s3cret\r\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, _ := c.MQTTPassword(""); p != "s3cret" {
		t.Errorf("file: %q", p)
	}
}

// TestTableLogsInAsItsID: with an external broker and no username in the file or the
// flags, the table logs in as its table id, the one the flags leave it; a username
// given wins; the embedded broker takes none.
func TestTableLogsInAsItsID(t *testing.T) {
	present(t)
	file, err := Parse("t.yaml", []byte("table: t7\nmqtt:\n  url: tcp://b:1883\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		flags Flags
		want  string
	}{
		{"the file's table", flags(), "t7"},
		{"the table of --table", func() Flags { f := flags("table"); f.Table = "t8"; return f }(), "t8"},
		{"--mqtt-user", func() Flags { f := flags("table", "mqtt-user"); f.Table, f.MQTTUser = "t8", "pit3-t8"; return f }(), "pit3-t8"},
		{"the embedded broker", func() Flags { f := flags("mqtt"); f.MQTT = ""; return f }(), ""},
	} {
		r, err := ApplyFlags(file, true, tc.flags)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := r.MQTTUsername(); got != tc.want {
			t.Errorf("%s: logs in as %q, want %q", tc.name, got, tc.want)
		}
	}
}
