package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// TestCheckConfig: check-config sums up a good file, and lists every fault of a bad one
// with its file, line and key, and fails.
func TestCheckConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	port := filepath.Join(dir, "ttyUSB0") // a file stands in for the serial port
	write(t, port, "")
	write(t, good, "table: bac-07\nrules: rws\ndecks: 8\nshoe:\n  port: "+port+"\n  format: ascii\n")
	out, _, err := runCmd(t, "", "check-config", good)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{good + ": OK", "table bac-07, rule set rws, decks 8", "shoe: " + port + " (ascii)", "shuffler: none", "MQTT: embedded broker on 127.0.0.1:1883",
		// RWS Baccarat 3.4: the limits displayed at the table, which the file lacks.
		good + ": warning: no limits section: rule set rws requires the permissible minimum and maximum Differential limits displayed at the table (RWS Baccarat 3.4)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// With its limits, the same table is not warned of.
	write(t, good, "table: bac-07\nrules: rws\ndecks: 8\nshoe:\n  port: "+port+"\n  format: ascii\nlimits:\n  min: {banker: 100}\n  max_differential: 10000\n")
	if out, _, err := runCmd(t, "", "check-config", good); err != nil || strings.Contains(out, "warning") {
		t.Errorf("with limits: %v\n%s", err, out)
	}

	bad := filepath.Join(dir, "bad.yaml")
	write(t, bad, "rules: rws\ndecks: 12\nshuffler:\n  port: /dev/tablectl-nowhere\ngpio:\n  pins:\n    - {role: confirm, pin: GPIO40}\n")
	out, _, err = runCmd(t, "", "check-config", bad)
	if err == nil || !strings.Contains(err.Error(), "3 faults") {
		t.Fatalf("err %v, want 3 faults", err)
	}
	want := []string{
		bad + ":2: decks: rule set rws: 12 decks not permitted (allowed: 4 to 10)",
		bad + ":4: shuffler.port: /dev/tablectl-nowhere does not exist",
		bad + `:7: gpio.pins[1].pin: unknown pin name "GPIO40"`,
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(want) {
		t.Fatalf("output:\n%s\nwant %d lines", out, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %s\nwant it to begin %s", i+1, lines[i], w)
		}
	}
	if _, _, err := runCmd(t, "", "check-config", filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestCheckConfigSaysWhatTheFileConfigures: check-config sums up each part a file
// configures, by docs/config.md's rule, and no other: a console's file its console, an
// archive's its archive with its keys file's tables, a table's (an empty one too) its
// table, one with two parts both. An archive's or a console's file that lacks what the
// service needs is a fault naming the file and the key; each bad line of the archive's
// keys file is a fault with its file and line.
func TestCheckConfigSaysWhatTheFileConfigures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	users, keys, bad := filepath.Join(dir, "users.json"), filepath.Join(dir, "keys"), filepath.Join(dir, "bad-keys")
	write(t, users, "")
	pub := "ed25519:JZGbktDHqS+LoGmhBLg4scaOzCKGJHvJZMwDjPGw/BY="
	write(t, keys, "pit3-bac07 "+pub+"\npit3-bac08 ed25519:9fN0h2cXxgk0m8pQyS6Yq1nVt0Q0mJZk1m4Cw1f4wWs=\n")
	write(t, bad, "pit3-bac07\npit3-bac08 "+pub+"\npit3-bac09 "+pub+"\n")
	consoleYAML := "console:\n  mqtt:\n    url: ssl://broker:8883\n  users: " + users + "\n  http: :8443\n  central: true\n  archive: postgres://console_history@db/tablectl_archive\n"
	archiveYAML := "archive:\n  id: standby\n  mqtt:\n    url: tcp://broker:1883\n  db: postgres://tablectl_archive@db/tablectl_archive\n  keys: " + keys + "\nlog:\n  json: true\n"
	table := "  table table-1, rule set classic"
	consoleLines := []string{"  console: pages on http://:8443, broker ssl://broker:8883 as console (central: casino/<site>/<pit>/ too)\n",
		"  console users: " + users + "\n", "  console History: postgres://console_history@db/tablectl_archive, read-only\n"}
	archiveLines := []string{"  archive standby: broker tcp://broker:1883 as archive-standby, client id tablectl-archive-standby\n",
		"  archive database: postgres://tablectl_archive@db/tablectl_archive (postgres)\n", "  archive keys: " + keys + ", 2 tables\n"}
	for _, c := range []struct {
		name, yaml string
		want       []string
		not        []string
	}{
		{"a console's", consoleYAML, consoleLines, []string{table, "archive "}},
		{"an archive's", archiveYAML, archiveLines, []string{table, "console"}},
		{"an empty file", "", []string{table}, []string{"console", "archive"}},
		{"a table's that ships", "table: t1\narchive:\n  ship: true\n  to: [floor, standby]\nlog:\n  json: true\n",
			[]string{"  table t1, rule set classic", "  journal shipped to archives floor, standby\n"}, []string{"console", "archive standby", "archive keys"}},
		{"a table's and its console's", "table: t2\n" + consoleYAML, append([]string{"  table t2, rule set classic"}, consoleLines...), []string{"archive "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, "c.yaml")
			write(t, path, c.yaml)
			out, _, err := runCmd(t, "", "check-config", path)
			if err != nil || !strings.HasPrefix(out, path+": OK\n") {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, n := range c.not {
				if strings.Contains(out, n) {
					t.Errorf("output has %q:\n%s", n, out)
				}
			}
		})
	}
	for _, c := range []struct {
		name, yaml string
		want       []string
	}{
		{"an archive's without its database and keys", "archive:\n  mqtt:\n    url: tcp://broker:1883\n",
			[]string{"c.yaml: archive.db: no database: give --db", "c.yaml: archive.keys: no keys file: give --keys"}},
		{"a console's without its users", "console:\n  mqtt:\n    url: tcp://broker:1883\n", []string{"c.yaml: console.users: no users file"}},
		{"an archive's with a bad keys file", strings.Replace(archiveYAML, keys, bad, 1),
			[]string{bad + ":1: want TABLE-ID PUBLIC-KEY, got 1 fields", bad + ":3: table pit3-bac09: key " + pub + " is table pit3-bac08's too"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, "c.yaml")
			write(t, path, c.yaml)
			out, _, err := runCmd(t, "", "check-config", path)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if err == nil || !strings.HasSuffix(err.Error(), fmt.Sprintf(": %d %s", len(c.want), plural(len(c.want), "fault", "faults"))) || len(lines) != len(c.want) {
				t.Fatalf("%v\n%s\nwant %d faults", err, out, len(c.want))
			}
			for i, w := range c.want {
				if !strings.Contains(lines[i], w) {
					t.Errorf("line %d: %s\nwant %s", i+1, lines[i], w)
				}
			}
		})
	}
}

// TestRunConfigFile runs a simulated table from a configuration file with flags over it:
// the file's rule set variant and decks are used, and the flags' table id and journal win
// over the file's (a simulation never writes the file's journal). The journal's recorded
// settings show it. The file's shoe, which is not on this machine, gives way to the
// simulated one; its GPIO pins are absent on a machine without GPIO: the table runs
// without them.
func TestRunConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	jdir := filepath.Join(dir, "journal")
	fileJournal := filepath.Join(dir, "the-tables-journal")
	file := filepath.Join(dir, "tablectl.yaml")
	write(t, file, `table: from-file
rules: royal
royal:
  paytable: 2
  tiers: 3
decks: 6
journal: `+fileJournal+`
broker:
  listen: 127.0.0.1:0
  websocket: ""
http: ""
shoe:
  port: /dev/tablectl-shoe-not-here
  format: tablectl
gpio:
  pins:
    - {role: confirm, pin: GPIO17, active_low: true, pull: up}
`)
	out, logged, err := runCmd(t, "", "run", "--config", file, "--table", "from-flag", "--journal", jdir, "--simulate", "--pace", "0", "--rounds", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// A machine with no GPIO (this one, unless it is a Raspberry Pi) runs the table
	// without its buttons, and says so.
	if _, err := os.Stat("/dev/gpiochip0"); err != nil && !strings.Contains(logged, "this machine has no GPIO") {
		t.Errorf("no warning of the missing GPIO:\n%s", logged)
	}
	if !strings.Contains(out, "table from-flag: rule set royal, journal "+jdir) {
		t.Errorf("output:\n%s", out)
	}
	if _, err := os.Stat(fileJournal); !os.IsNotExist(err) {
		t.Errorf("the file's journal was touched: %v", err)
	}
	j, _, err := journal.Open(jdir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	_, s, err := table.Replay(j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Table != "from-flag" || s.Round.Decks != 6 || s.Round.Rules.RoyalPaytable != 2 || s.Round.Rules.RoyalTiers != 3 || !s.AutoConfirm {
		t.Errorf("recorded settings %+v, rules %+v", s, s.Round.Rules)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunSimulatedShoesAtFullSpeed deals three shoes and more with no pace: the
// simulated shuffler reports the next set only once tablectl has taken the shoe before,
// so every round is settled and nothing is irregular.
func TestRunSimulatedShoesAtFullSpeed(t *testing.T) {
	t.Parallel()
	jdir := filepath.Join(t.TempDir(), "journal")
	out, _, err := runCmd(t, "", "run", "--simulate", "--pace", "0", "--rounds", "200", "--journal", jdir,
		"--http", "", "--broker-listen", "127.0.0.1:0", "--broker-websocket", "")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	j, _, err := journal.Open(jdir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	settled, irregular := 0, 0
	ctl, _, err := table.Replay(j, func(_ round.Event, effs []round.Effect, _ round.State) {
		for _, e := range effs {
			switch e.Kind {
			case round.RoundSettled:
				settled++
			case round.IrregularityRaised:
				irregular++
				t.Errorf("irregularity: %s", e)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if settled != 200 || irregular != 0 || ctl.State().Shoe < 3 {
		t.Errorf("%d rounds settled, %d irregularities, %d shoes; want 200, 0, 3 or more", settled, irregular, ctl.State().Shoe)
	}
}
