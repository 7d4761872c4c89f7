package floorcmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/console"
)

// TestConsoleUnitVerifies has systemd check deploy/tablectl-console.service, with its
// binary pointed at one that exists, and checks that its command line is one the
// console accepts.
func TestConsoleUnitVerifies(t *testing.T) {
	t.Parallel()
	unit, err := os.ReadFile("../../deploy/tablectl-console.service")
	if err != nil {
		t.Fatal(err)
	}
	var execStart string
	for _, line := range strings.Split(string(unit), "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart=/usr/local/bin/tablectl-floor "); ok {
			execStart = v
		}
	}
	if !strings.HasPrefix(execStart, "console ") {
		t.Fatalf("the unit's ExecStart is not /usr/local/bin/tablectl-floor console: %q", execStart)
	}
	// Every flag of the command line is one of the console's: -h lists them.
	_, help, _ := runCmd(t, "", "console", "-h")
	// -h says how to set the console up from nothing.
	for _, want := range []string{"docs/console.md", "user console", "console user add NAME --role ROLE", "--tls-cert", "tablectl-console.service"} {
		if !strings.Contains(help, want) {
			t.Errorf("tablectl-floor console -h does not mention %q", want)
		}
	}
	for _, f := range strings.Fields(strings.ReplaceAll(execStart, "$TABLECTL_CONSOLE_ARGS", "")) {
		if strings.HasPrefix(f, "--") && !strings.Contains(help, "  -"+strings.TrimPrefix(f, "--")+" ") && !strings.Contains(help, "  -"+strings.TrimPrefix(f, "--")+"\n") {
			t.Errorf("the unit gives %s, which tablectl-floor console -h does not list", f)
		}
	}
	for _, want := range []string{"ExecReload=/bin/kill -HUP $MAINPID", "User=tablectl-console", "Restart=on-failure", "NoNewPrivileges=yes"} {
		if !bytes.Contains(unit, []byte(want)) {
			t.Errorf("the unit lacks %s", want)
		}
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("TABLECTL_REQUIRE_INTEGRATION") != "" {
			t.Fatal("systemd-analyze not found")
		}
		t.Skip("systemd-analyze not found")
	}
	unit = bytes.Replace(unit, []byte("/usr/local/bin/tablectl-floor"), []byte("/bin/true"), 1)
	path := filepath.Join(t.TempDir(), "tablectl-console.service")
	if err := os.WriteFile(path, unit, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	// The unit's user exists only once docs/console.md's steps created it.
	var problems []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" && !strings.Contains(l, "tablectl-console") {
			problems = append(problems, l)
		}
	}
	if len(problems) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestConsoleConfigFile: tablectl-floor console refuses a configuration file with a fault in
// its console section, naming the file, the line and the key, and a flag's fault by the
// flag, before it connects or serves anything; the file's defaults are the console's.
func TestConsoleConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	users := filepath.Join(dir, "users.json")
	if _, _, err := runCmd(t, "supervisor-pass-17\n", "console", "user", "add", "S17", "--role", "supervisor", "--users", users, "--cost", "4"); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "console.yaml")
	for _, c := range []struct {
		name, yaml string
		args       []string
		want       string
	}{
		{"unknown key", "console:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  users: " + users + "\n  session_idle: 5m\n", nil,
			"console.yaml:5: console.session_idle: unknown key (console has alerts, archive, archive_late, central, command_timeout"},
		{"bad value", "console:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  users: " + users + "\n  idle: 0s\n", nil,
			"console.yaml:5: console.idle: 0s: want a duration above 0"},
		{"no broker", "console:\n  users: " + users + "\n", nil, "no broker: give --mqtt, or console.mqtt.url"},
		{"a flag's fault", "console:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  users: " + users + "\n", []string{"--tls-key", users},
			"--tls-key: set without console.tls_cert: HTTPS takes both"},
		{"an archive that is none", "console:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  users: " + users + "\n  archive: " + users + "\n", nil,
			"console: console.archive: archive: open " + users + ": file is not a database"},
		{"a bad file of the table", "console:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  users: " + users + "\nrules: punto\n", nil,
			`console.yaml:5: rules: unknown rule set "punto"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(conf, []byte(c.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := runCmd(t, "", append([]string{"console", "--config", conf}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	// check-config sums a good console section up.
	if err := os.WriteFile(conf, []byte("console:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  users: "+users+"\n  http: :8443\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "", "check-config", conf)
	if want := "console: pages on http://:8443, broker tcp://127.0.0.1:1 as console\n  console users: " + users + "\n"; err != nil || !strings.Contains(out, want) || strings.Contains(out, "table ") {
		t.Errorf("check-config: %v\n%s\nwant %q", err, out, want)
	}
	// The console section's defaults are the console package's.
	d := config.DefaultConsole()
	if d.Idle != console.DefaultIdle || d.CommandTimeout != console.DefaultCommandTimeout || d.Lock != console.DefaultLockFor ||
		d.ArchiveLate != console.DefaultArchiveLate {
		t.Errorf("config.DefaultConsole %+v differs from the console's defaults", d)
	}
}
