package main

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
