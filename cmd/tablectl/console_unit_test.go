package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestConsoleUnitVerifies has systemd check deploy/tablectl-console.service, with its
// binary pointed at one that exists, and checks that its command line is one the
// console accepts.
func TestConsoleUnitVerifies(t *testing.T) {
	unit, err := os.ReadFile("../../deploy/tablectl-console.service")
	if err != nil {
		t.Fatal(err)
	}
	var execStart string
	for _, line := range strings.Split(string(unit), "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart=/usr/local/bin/tablectl "); ok {
			execStart = v
		}
	}
	if !strings.HasPrefix(execStart, "console ") {
		t.Fatalf("the unit's ExecStart is not /usr/local/bin/tablectl console: %q", execStart)
	}
	// Every flag of the command line is one of the console's: -h lists them.
	_, help, _ := runCmd(t, "", "console", "-h")
	// -h says how to set the console up from nothing.
	for _, want := range []string{"docs/console.md", "user console", "console user add NAME --role ROLE", "--tls-cert", "tablectl-console.service"} {
		if !strings.Contains(help, want) {
			t.Errorf("tablectl console -h does not mention %q", want)
		}
	}
	for _, f := range strings.Fields(strings.ReplaceAll(execStart, "$TABLECTL_CONSOLE_ARGS", "")) {
		if strings.HasPrefix(f, "--") && !strings.Contains(help, "  -"+strings.TrimPrefix(f, "--")+" ") && !strings.Contains(help, "  -"+strings.TrimPrefix(f, "--")+"\n") {
			t.Errorf("the unit gives %s, which tablectl console -h does not list", f)
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
	unit = bytes.Replace(unit, []byte("/usr/local/bin/tablectl"), []byte("/bin/true"), 1)
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
