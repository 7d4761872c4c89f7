package floorcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConsoleUserCommands: user add reads the password from standard input and refuses
// a duplicate name or an unknown role; list shows the people; remove takes one out; a
// world-readable file is refused.
func TestConsoleUserCommands(t *testing.T) {
	t.Parallel()
	users := filepath.Join(t.TempDir(), "users.json")
	out, _, err := runCmd(t, "dealer-password-4\n", "console", "user", "add", "D4", "--role", "dealer", "--tables", "t1,t2", "--users", users, "--cost", "4")
	if err != nil || !strings.Contains(out, "added D4 (dealer)") {
		t.Fatalf("user add: %v %q", err, out)
	}
	if _, _, err := runCmd(t, "supervisor-pass-17\n", "console", "user", "add", "S17", "--role", "supervisor", "--users", users, "--cost", "4"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(users)
	if strings.Contains(string(b), "dealer-password-4") || !strings.Contains(string(b), `"hash": "$2a$04$`) {
		t.Fatalf("users file does not hold a bcrypt hash only:\n%s", b)
	}
	_, _, err = runCmd(t, "another-password\n", "console", "user", "add", "D4", "--role", "supervisor", "--users", users, "--cost", "4")
	if err == nil || !strings.Contains(err.Error(), `already has a user "D4"`) {
		t.Errorf("duplicate: %v", err)
	}
	_, _, err = runCmd(t, "another-password\n", "console", "user", "add", "P1", "--role", "pitboss", "--users", users, "--cost", "4")
	if err == nil || !strings.Contains(err.Error(), `unknown role "pitboss"`) {
		t.Errorf("unknown role: %v", err)
	}
	_, _, err = runCmd(t, "", "console", "user", "add", "P1", "--role", "pit_manager", "--users", users, "--cost", "4")
	if err == nil || !strings.Contains(err.Error(), "no password on standard input") {
		t.Errorf("no password: %v", err)
	}
	out, _, err = runCmd(t, "", "console", "user", "list", "--users", users)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"D4    dealer      t1,t2", "S17   supervisor  all"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if _, _, err := runCmd(t, "", "console", "user", "remove", "D4", "--users", users); err != nil {
		t.Fatal(err)
	}
	out, _, _ = runCmd(t, "", "console", "user", "list", "--users", users)
	if strings.Contains(out, "D4") {
		t.Errorf("D4 listed after remove:\n%s", out)
	}
	if err := os.Chmod(users, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = runCmd(t, "", "console", "user", "list", "--users", users)
	if err == nil || !strings.Contains(err.Error(), "has mode 0644: others may read or write it") {
		t.Errorf("world-readable file: %v", err)
	}
	_, _, err = runCmd(t, "", "console", "--mqtt", "tcp://127.0.0.1:1", "--users", users)
	if err == nil || !strings.Contains(err.Error(), "others may read or write it") {
		t.Errorf("console with a world-readable users file: %v", err)
	}
}

// TestPitsNeedACentralConsole: user add of a person limited by pits warns that pits are
// known only on a central console, naming what the person works elsewhere; a console
// that is not central logs the same of each such user at its start, and a central one
// does not; a person of tables alone is not warned of.
func TestPitsNeedACentralConsole(t *testing.T) {
	t.Parallel()
	users := filepath.Join(t.TempDir(), "users.json")
	_, stderr, err := runCmd(t, "pit-manager-pass-2\n", "console", "user", "add", "PM2", "--role", "pit_manager", "--pits", "pit3", "--users", users, "--cost", "4")
	want := "console user add: warning: PM2 works pits pit3 only on a console run with --central (console.central: true): a table's pit comes from " +
		"the central broker's casino/<site>/<pit>/ layout; on any other console PM2 works no table\n"
	if err != nil || stderr != want {
		t.Fatalf("user add: %v\n%q\nwant %q", err, stderr, want)
	}
	_, stderr, err = runCmd(t, "supervisor-pass-5\n", "console", "user", "add", "S5", "--role", "supervisor", "--pits", "pit1,pit2", "--tables", "t9", "--users", users, "--cost", "4")
	if err != nil || !strings.Contains(stderr, "S5 works pits pit1,pit2 only on a console run with --central") || !strings.Contains(stderr, "S5 works only tables t9\n") {
		t.Fatalf("user add with tables: %v\n%s", err, stderr)
	}
	if _, stderr, err = runCmd(t, "dealer-password-4\n", "console", "user", "add", "D4", "--role", "dealer", "--tables", "t1", "--users", users, "--cost", "4"); err != nil || stderr != "" {
		t.Fatalf("user add of tables: %v\n%s", err, stderr)
	}

	_, log := startConsole(t, users, "--mqtt", "tcp://127.0.0.1:1")
	for _, u := range []string{"PM2", "S5"} {
		if ok, _ := log.Holds("a user's pits are unknown on this console: " + u + " works pits"); !ok {
			t.Errorf("the console that is not central does not warn of %s:\n%s", u, log)
		}
	}
	if ok, _ := log.Holds("D4 works"); ok {
		t.Errorf("the console warns of D4, who works tables:\n%s", log)
	}
	_, log = startConsole(t, users, "--mqtt", "tcp://127.0.0.1:1", "--central")
	if ok, _ := log.Holds("pits are unknown"); ok {
		t.Errorf("a central console warns of pits:\n%s", log)
	}
}
