package tablecmd

import (
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

// TestCheckConfigLeavesTheFloorToTheFloor: tablectl checks a table's file; a file that
// configures no table but a console or an archive is refused, naming tablectl-floor's
// check-config; a table's file with a console's section is summed up as a table's, with
// a note that tablectl-floor checks the rest.
func TestCheckConfigLeavesTheFloorToTheFloor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	users, keys := filepath.Join(dir, "users.json"), filepath.Join(dir, "keys")
	write(t, users, "")
	write(t, keys, "")
	console := "console:\n  mqtt:\n    url: ssl://broker:8883\n  users: " + users + "\n"
	archive := "archive:\n  mqtt:\n    url: tcp://broker:1883\n  db: " + filepath.Join(dir, "archive.db") + "\n  keys: " + keys + "\n"
	for name, yaml := range map[string]string{"a console": console, "an archive": archive, "a console and archive": console + archive} {
		write(t, path, yaml)
		out, _, err := runCmd(t, "", "check-config", path)
		if err == nil || !strings.Contains(err.Error(), "configures no table but "+name+": check it with 'tablectl-floor check-config "+path+"'") || out != "" {
			t.Errorf("%s file: %v\n%s", name, err, out)
		}
	}
	write(t, path, "table: t2\n"+console)
	out, _, err := runCmd(t, "", "check-config", path)
	if err != nil || !strings.HasPrefix(out, path+": OK\n  table t2, rule set classic") || strings.Contains(out, "console users") ||
		!strings.Contains(out, path+": note: its console section is checked by 'tablectl-floor check-config "+path+"'") {
		t.Errorf("a table's file with a console's section: %v\n%s", err, out)
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
