package console

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// addTestUser adds a user with the cheapest bcrypt cost, so tests stay quick.
func addTestUser(t *testing.T, path string, u User, password string) {
	t.Helper()
	if err := AddUser(path, u, password, bcrypt.MinCost); err != nil {
		t.Fatalf("AddUser %s: %v", u.Name, err)
	}
}

func TestAddListRemoveUsers(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "users.json")
	addTestUser(t, path, User{Name: "D4", Role: "dealer", Tables: []string{"t1"}}, "dealer-password-1")
	addTestUser(t, path, User{Name: "S17", Role: "supervisor", Pits: []string{"pit3"}}, "supervisor-password")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("users file mode %04o, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "dealer-password-1") {
		t.Fatal("the users file holds a password in clear")
	}
	us, err := LoadUsers(path)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := us.Lookup("D4")
	if !ok || d.Role != "dealer" || bcrypt.CompareHashAndPassword([]byte(d.Hash), []byte("dealer-password-1")) != nil {
		t.Fatalf("D4: %+v", d)
	}
	if !d.Works("t1", "") || d.Works("t2", "pit3") {
		t.Errorf("D4 works t1 only: t1 %v, t2 %v", d.Works("t1", ""), d.Works("t2", "pit3"))
	}
	s, _ := us.Lookup("S17")
	if !s.Works("t9", "pit3") || s.Works("t9", "pit4") || s.Works("t9", "") {
		t.Errorf("S17 works pit3 only")
	}

	err = AddUser(path, User{Name: "D4", Role: "supervisor"}, "another-password", bcrypt.MinCost)
	if err == nil || !strings.Contains(err.Error(), `already has a user "D4"`) {
		t.Errorf("duplicate name: %v", err)
	}
	err = AddUser(path, User{Name: "X1", Role: "croupier"}, "another-password", bcrypt.MinCost)
	if err == nil || !strings.Contains(err.Error(), `unknown role "croupier"`) {
		t.Errorf("unknown role: %v", err)
	}
	err = AddUser(path, User{Name: "X1", Role: "dealer"}, "short", bcrypt.MinCost)
	if err == nil || !strings.Contains(err.Error(), "shorter than") {
		t.Errorf("short password: %v", err)
	}
	err = AddUser(path, User{Name: "bad name", Role: "dealer"}, "another-password", bcrypt.MinCost)
	if err == nil || !strings.Contains(err.Error(), `name "bad name"`) {
		t.Errorf("bad name: %v", err)
	}
	// A file made readable by the console's group stays so when it changes.
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := RemoveUser(path, "D4"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); worldBitsMatter() && fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %04o after a change, want the 0640 it had", fi.Mode().Perm())
	}
	if err := RemoveUser(path, "D4"); err == nil || !strings.Contains(err.Error(), `no user "D4"`) {
		t.Errorf("removing a missing user: %v", err)
	}
	us, err = LoadUsers(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(us.List()); got != 1 {
		t.Errorf("%d users after removing one of two", got)
	}
}

func TestLoadUsersRefusesBadFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hash, _ := bcrypt.GenerateFromPassword([]byte("a-long-password"), bcrypt.MinCost)
	entry := func(name, role string) string {
		return `{"name":"` + name + `","role":"` + role + `","hash":"` + string(hash) + `"}`
	}
	for _, tc := range []struct {
		name, text string
		mode       os.FileMode
		want       string
	}{
		{"world-readable", `{"users":[` + entry("D4", "dealer") + `]}`, 0o644, "others may read or write it"},
		{"duplicate", `{"users":[` + entry("D4", "dealer") + `,` + entry("D4", "supervisor") + `]}`, 0o600, `entry 2: duplicate name "D4"`},
		{"role", `{"users":[` + entry("D4", "croupier") + `]}`, 0o600, `entry 1: user "D4": unknown role "croupier"`},
		{"hash", `{"users":[{"name":"D4","role":"dealer","hash":"secret"}]}`, 0o600, "not a bcrypt hash"},
		{"field", `{"users":[{"name":"D4","role":"dealer","password":"x"}]}`, 0o600, `unknown field "password"`},
		{"json", `{"users":[`, 0o600, "unexpected EOF"},
	} {
		// In order, not side by side: the check after the loop reads the file the first
		// writes.
		t.Run(tc.name, func(t *testing.T) {
			if tc.mode&0o007 != 0 && !worldBitsMatter() {
				t.Skip("file modes do not show who may read a file here")
			}
			path := filepath.Join(dir, tc.name+".json")
			if err := os.WriteFile(path, []byte(tc.text), tc.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.mode); err != nil {
				t.Fatal(err)
			}
			_, err := LoadUsers(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("LoadUsers: %v, want an error naming %s with %q", err, path, tc.want)
			}
		})
	}
	// A world-readable file is not changed either.
	path := filepath.Join(dir, "world-readable.json")
	before, _ := os.ReadFile(path)
	if err := AddUser(path, User{Name: "S1", Role: "supervisor"}, "a-long-password", bcrypt.MinCost); err == nil {
		t.Error("AddUser changed a world-readable users file")
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("the refused file was rewritten")
	}
}
