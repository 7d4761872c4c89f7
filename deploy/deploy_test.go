package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// install runs install.sh into root with bin, and returns what it printed.
func install(t *testing.T, root, bin string) string {
	t.Helper()
	cmd := exec.Command("sh", "install.sh", bin)
	cmd.Env = append(os.Environ(), "DESTDIR="+root)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	return string(out)
}

// TestInstallIsIdempotent installs into a directory, then again: the second run changes
// nothing, keeps the table's own settings, and an upgrade replaces only the binary.
func TestInstallIsIdempotent(t *testing.T) {
	t.Parallel()
	root, dir := t.TempDir(), t.TempDir()
	bin := filepath.Join(dir, "tablectl")
	if err := os.WriteFile(bin, []byte("first build"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := install(t, root, bin)
	for _, f := range []struct {
		path string
		mode os.FileMode
	}{
		{"usr/local/bin/tablectl", 0o755},
		{"etc/systemd/system/tablectl.service", 0o644},
		{"etc/systemd/system/tablectl-verify.service", 0o644},
		{"etc/systemd/system/tablectl-verify.timer", 0o644},
		{"etc/udev/rules.d/99-tablectl.rules", 0o644},
		{"etc/tablectl/tablectl.env", 0o640},
		{"etc/tablectl/tablectl.yaml", 0o640},
		{"usr/local/share/doc/tablectl/protocol.md", 0o644},
		{"usr/local/share/tablectl/kiosk.html", 0o644},
	} {
		st, err := os.Stat(filepath.Join(root, f.path))
		if err != nil {
			t.Fatalf("after the first install: %v\n%s", err, out)
		}
		if st.Mode().Perm() != f.mode {
			t.Errorf("%s: mode %v, want %v", f.path, st.Mode().Perm(), f.mode)
		}
	}

	conf := filepath.Join(root, "etc/tablectl/tablectl.yaml")
	if got, _ := os.ReadFile(conf); !bytes.Contains(got, []byte("table: bac-07")) {
		t.Errorf("the configuration installed is not the example:\n%s", got)
	}
	env := filepath.Join(root, "etc/tablectl/tablectl.env")
	mine := []byte("table: pit3-t12\nrules: rws\n")
	myEnv := []byte("TABLECTL_ARGS=--log-json\n")
	if err := os.WriteFile(conf, mine, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(env, myEnv, 0o640); err != nil {
		t.Fatal(err)
	}
	if out := install(t, root, bin); strings.TrimSpace(out) != "install.sh: done" {
		t.Errorf("a second install changed something:\n%s", out)
	}
	if got, _ := os.ReadFile(conf); !bytes.Equal(got, mine) {
		t.Errorf("the table's settings were overwritten: %q", got)
	}
	if got, _ := os.ReadFile(env); !bytes.Equal(got, myEnv) {
		t.Errorf("the table's env file was overwritten: %q", got)
	}

	if err := os.WriteFile(bin, []byte("second build"), 0o755); err != nil {
		t.Fatal(err)
	}
	out = install(t, root, bin)
	want := "install.sh: installed " + filepath.Join(root, "usr/local/bin/tablectl") + "\ninstall.sh: done\n"
	if out != want {
		t.Errorf("upgrade printed\n%s\nwant\n%s", out, want)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "usr/local/bin/tablectl")); string(got) != "second build" {
		t.Errorf("installed binary %q after the upgrade", got)
	}
}

// TestInstallRefusesNoBinary: without a binary it says how to get one.
func TestInstallRefusesNoBinary(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", "install.sh", filepath.Join(t.TempDir(), "missing"))
	cmd.Env = append(os.Environ(), "DESTDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "usage:") {
		t.Errorf("install.sh with no binary: %v\n%s", err, out)
	}
}

// TestUnitVerifies has systemd check the unit, with its binary path pointed at one that
// exists.
func TestUnitVerifies(t *testing.T) {
	t.Parallel()
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("TABLECTL_REQUIRE_INTEGRATION") != "" {
			t.Fatal("systemd-analyze not found")
		}
		t.Skip("systemd-analyze not found")
	}
	unit, err := os.ReadFile("tablectl.service")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(unit, []byte("ExecStart=/usr/local/bin/tablectl run ")) {
		t.Fatal("the unit's ExecStart is not /usr/local/bin/tablectl run")
	}
	for _, want := range []string{"Type=notify", "WatchdogSec=", "User=tablectl", "SupplementaryGroups=dialout gpio", "Restart=on-failure"} {
		if !bytes.Contains(unit, []byte(want)) {
			t.Errorf("the unit lacks %s", want)
		}
	}
	unit = bytes.Replace(unit, []byte("/usr/local/bin/tablectl"), []byte("/bin/true"), 1)
	path := filepath.Join(t.TempDir(), "tablectl.service")
	if err := os.WriteFile(path, unit, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(analyze, "verify", path).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}

	// The daily check of the whole journal: its service and timer.
	dir := t.TempDir()
	for _, name := range []string{"tablectl-verify.service", "tablectl-verify.timer"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "tablectl-verify.service" && !bytes.Contains(b, []byte("ExecStart=/usr/local/bin/tablectl journal verify /var/lib/tablectl/journal")) {
			t.Errorf("%s does not verify the journal the example configuration names", name)
		}
		b = bytes.Replace(b, []byte("/usr/local/bin/tablectl"), []byte("/bin/true"), 1)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command(analyze, "verify", filepath.Join(dir, "tablectl-verify.timer"), filepath.Join(dir, "tablectl-verify.service")).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify of the verify timer: %v\n%s", err, out)
	}
}

// TestUnitHasAStartLimitTheDocsDescribe: the unit stops restarting after a burst of
// starts, and docs/deploy.md gives the same figures.
func TestUnitHasAStartLimitTheDocsDescribe(t *testing.T) {
	t.Parallel()
	unit, err := os.ReadFile("tablectl.service")
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{}
	section := ""
	for _, line := range strings.Split(string(unit), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && section == "[Unit]" {
			values[k] = v
		}
	}
	interval, burst := values["StartLimitIntervalSec"], values["StartLimitBurst"]
	if interval == "" || interval == "0" || interval == "infinity" || burst == "" || burst == "0" {
		t.Fatalf("the unit's [Unit] has no start limit: StartLimitIntervalSec=%q StartLimitBurst=%q", interval, burst)
	}
	doc, err := os.ReadFile("../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"StartLimitIntervalSec=" + interval, "StartLimitBurst=" + burst, "start-limit-hit", "reset-failed"} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("docs/deploy.md does not say %s", want)
		}
	}
}

// TestInstallChecksAnExistingAccount: an existing tablectl account that is not a system
// account with no login shell stops the install before anything is written; a proper
// one is used.
func TestInstallChecksAnExistingAccount(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "tablectl")
	if err := os.WriteFile(bin, []byte("build"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		entry string
		want  string // "" when the install goes on
	}{
		{"tablectl:x:1001:1001::/home/tablectl:/bin/bash", "uid 1001 is not a system account's"},
		{"tablectl:x:998:998::/var/lib/tablectl:/bin/bash", "its shell /bin/bash lets it log in"},
		{"tablectl:x:997:997::/var/lib/tablectl:", "its shell (none: /bin/sh) lets it log in"},
		{"tablectl:x:0:0::/root:/usr/sbin/nologin", "it is root"},
		{"tablectl:x:998:998::/var/lib/tablectl:/usr/sbin/nologin", ""},
		{"", ""}, // no account yet
	} {
		fake := t.TempDir()
		script := "#!/bin/sh\nexit 2\n"
		if tc.entry != "" {
			script = "#!/bin/sh\n[ \"$1 $2\" = \"passwd tablectl\" ] || exit 2\necho '" + tc.entry + "'\n"
		}
		if err := os.WriteFile(filepath.Join(fake, "getent"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		root := t.TempDir()
		cmd := exec.Command("sh", "install.sh", bin)
		cmd.Env = append(os.Environ(), "DESTDIR="+root, "TABLECTL_CHECK_ACCOUNT=1", "PATH="+fake+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		_, statErr := os.Stat(filepath.Join(root, "usr/local/bin/tablectl"))
		if tc.want == "" {
			if err != nil || statErr != nil {
				t.Errorf("account %q: %v, binary %v\n%s", tc.entry, err, statErr, out)
			}
			continue
		}
		if err == nil || !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), "nothing was changed") {
			t.Errorf("account %q: %v\n%s\nwant a refusal saying %q", tc.entry, err, out, tc.want)
		}
		if statErr == nil {
			t.Errorf("account %q: the binary was installed anyway", tc.entry)
		}
	}
}
