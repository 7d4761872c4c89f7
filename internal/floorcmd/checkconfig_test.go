package floorcmd

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/internal/cli"
)

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
		"  archive database: postgres://tablectl_archive@db/tablectl_archive (postgres)\n", "  archive keys: " + keys + ", 2 tables\n",
		"  archive integrity watch: window 90 days, runs of 11 cards, shuffles at p <= 1e-06 (one set, or the last 10), drift 1.25 times the rate at one false alarm in 1e+06 rounds\n"}
	watchYAML := strings.Replace(archiveYAML, "\nlog:", "\n  integrity:\n    window: 720h\n    min_run: 10\n    sets: 20\n    drift_arl: 1e8\nlog:", 1)
	watchLines := append(slices.Clone(archiveLines[:3]),
		"  archive integrity watch: window 30 days, runs of 10 cards, shuffles at p <= 1e-06 (one set, or the last 20), drift 1.25 times the rate at one false alarm in 1e+08 rounds\n")
	for _, c := range []struct {
		name, yaml string
		want       []string
		not        []string
	}{
		{"a console's", consoleYAML, consoleLines, []string{table, "archive "}},
		{"an archive's", archiveYAML, archiveLines, []string{table, "console"}},
		{"an archive's with its integrity settings", watchYAML, watchLines, []string{"window 90 days"}},
		{"an archive's with its integrity watch off", strings.Replace(archiveYAML, "\nlog:", "\n  integrity:\n    off: true\nlog:", 1),
			[]string{"  archive integrity watch: off\n"}, []string{"window"}},
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
			if err == nil || !strings.HasSuffix(err.Error(), fmt.Sprintf(": %d %s", len(c.want), cli.Plural(len(c.want), "fault", "faults"))) || len(lines) != len(c.want) {
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
