package tablecmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/internal/mqttpasswd"
)

// TestEnrollRefuses: a bad or reserved table id, missing flags, and paths enroll cannot
// write are errors naming what is wrong; a fault writing one file leaves the other
// unwritten.
func TestEnrollRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := filepath.Join(dir, "journal")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no table", []string{"--journal", j}, "give the table's id"},
		{"no journal nor key", []string{"--table", "t1"}, "give --journal DIR"},
		{"a bad id", []string{"--table", "bac/07", "--journal", j}, `table: "bac/07": want 1 to 64 letters`},
		{"a service user's name", []string{"--table", "dealer", "--journal", j}, `table id "dealer" is the name of a broker user that is not a table`},
		{"an archive's name", []string{"--table", "archive-floor", "--journal", j}, `table id "archive-floor" is the name of a broker user`},
		{"the embedded broker's own user", []string{"--table", "tablectl", "--journal", j}, `table id "tablectl"`},
		{"an argument", []string{"--table", "t1", "--journal", j, "extra"}, `unexpected argument "extra"`},
		{"a key in no directory", []string{"--table", "t1", "--key", filepath.Join(dir, "none", "table.key")}, "table key: create " + filepath.Join(dir, "none", "table.key")},
		{"a password file in no directory", []string{"--table", "t1", "--journal", j, "--password-file", filepath.Join(dir, "none", "pw")}, "password file: write " + filepath.Join(dir, "none", "pw")},
		{"a password file that is a directory", []string{"--table", "t1", "--journal", j, "--password-file", dir}, "enroll: write " + dir},
		{"a passwd in no directory", []string{"--table", "t1", "--journal", j, "--password-file", filepath.Join(dir, "pw"),
			"--mqtt-passwd", filepath.Join(dir, "none", "passwd")}, "Mosquitto's password file: write " + filepath.Join(dir, "none", "passwd")},
	} {
		out, _, err := runCmd(t, "", append([]string{"enroll"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v (output %q), want an error with %q", tc.name, err, out, tc.want)
		}
	}
	// The last case failed on Mosquitto's file: the table's password file was not
	// written either, and nothing was left beside it.
	if _, err := os.Stat(filepath.Join(dir, "pw")); err == nil {
		t.Error("the password file was written though the passwd file could not be")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".tablectl-enroll-*"))
	if len(left) > 0 {
		t.Errorf("files left behind: %v", left)
	}
}

// TestEnrollAddsATable: enroll makes the key (0600), the table's password file (0600)
// and its line in Mosquitto's password file, which Debian's Mosquitto takes: the table
// logs in as its id with the password. It prints the archive's keys line, which the
// archive reads as the key's. Enrolled again, the table keeps its key and gets a new
// password, and enroll says so.
func TestEnrollAddsATable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, pwFile, passwd := filepath.Join(dir, "journal"), filepath.Join(dir, "mqtt-password"), filepath.Join(dir, "passwd")
	if err := os.WriteFile(passwd, []byte("dealer:$7$101$keep$me\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	args := []string{"enroll", "--table", "bac-07", "--journal", j, "--password-file", pwFile, "--mqtt-passwd", passwd}
	out, _, err := runCmd(t, "", args...)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "journal.key")
	shown, _, err := runCmd(t, "", "key", "show", "--key", keyFile)
	if err != nil {
		t.Fatal(err)
	}
	keysLine := "bac-07 " + strings.TrimSpace(shown)
	for _, want := range []string{"signing key: " + keyFile + ", made (mode 0600)", "broker password: written to " + pwFile,
		"broker user bac-07: added to " + passwd, "\n" + keysLine + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("enroll printed\n%s\nwant %q", out, want)
		}
	}
	if strings.Contains(out, "bac-07:$7$") {
		t.Errorf("enroll printed the passwd line though it wrote the file:\n%s", out)
	}
	keys, err := archive.ParseKeys(strings.NewReader(keysLine), "keys")
	if err != nil || len(keys["bac-07"]) != 1 {
		t.Fatalf("the archive reads the keys line %q as %v, %v", keysLine, keys, err)
	}
	for file, mode := range map[string]os.FileMode{keyFile: 0o600, pwFile: 0o600, passwd: 0o640} {
		if st, err := os.Stat(file); err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: %v, want mode %04o", file, err, mode)
		}
	}
	password := readPasswordFile(t, pwFile)
	text, err := os.ReadFile(passwd)
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^bac-07:(.*)$`).FindStringSubmatch(string(text))
	if !strings.HasPrefix(string(text), "dealer:$7$101$keep$me\n") || line == nil {
		t.Fatalf("passwd:\n%s\nwant the dealer's line kept and bac-07's added", text)
	}
	if ok, err := mqttpasswd.Verify(line[1], password); !ok || err != nil {
		t.Fatalf("passwd's hash is not the password's: %v %v", ok, err)
	}
	m := mosquittotest.Start(t, mosquittotest.Config{PasswordFile: string(text)})
	if err := loginAs(m.URL(), "bac-07", password); err != nil {
		t.Fatalf("Mosquitto with the enrolled passwd: bac-07 does not log in: %v", err)
	}

	// Again: the key is kept, the password replaced, in both files.
	again, _, err := runCmd(t, "", args...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"signing key: " + keyFile + ", kept", "broker password: replaced in " + pwFile,
		"broker user bac-07: was in " + passwd + " already: its password is replaced", "\n" + keysLine + "\n"} {
		if !strings.Contains(again, want) {
			t.Errorf("enroll again printed\n%s\nwant %q", again, want)
		}
	}
	if readPasswordFile(t, pwFile) == password {
		t.Error("enrolled again, the table kept its password")
	}
	text, _ = os.ReadFile(passwd)
	if n := strings.Count(string(text), "bac-07:"); n != 1 || !strings.HasPrefix(string(text), "dealer:") {
		t.Errorf("passwd after enrolling again:\n%s\nwant the dealer's line and one of bac-07", text)
	}
}

// TestEnrollPrintsWhatItDoesNotWrite: without --mqtt-passwd enroll prints the broker's
// passwd line, and without --password-file the password, which the line's hash is of;
// an existing key (made by key new) is the one the keys line names.
func TestEnrollPrintsWhatItDoesNotWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "k", "t9.key")
	if err := os.Mkdir(filepath.Dir(keyFile), 0o700); err != nil {
		t.Fatal(err)
	}
	pub, _, err := runCmd(t, "", "key", "new", "--key", keyFile)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "", "enroll", "--table", "t9", "--key", keyFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var hash, password string
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "t9:$7$"):
			hash = strings.TrimPrefix(l, "t9:")
		case strings.HasPrefix(l, "The table's broker password") && i+1 < len(lines):
			password = lines[i+1]
		}
	}
	if !strings.Contains(out, "kept") || !strings.Contains(out, "\nt9 "+strings.TrimSpace(pub)+"\n") ||
		!strings.Contains(out, "it was enrolled before. Its password below is new") {
		t.Errorf("enroll printed\n%s\nwant the key kept, its keys line, and that the table was enrolled before", out)
	}
	if ok, err := mqttpasswd.Verify(hash, password); !ok || err != nil {
		t.Fatalf("the printed passwd line %q is not of the printed password %q: %v %v", hash, password, ok, err)
	}
}

// TestKeyNew: key new makes the key (0600) and prints the public key key show prints;
// it refuses to replace a key, and wants one of --key and --journal.
func TestKeyNew(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := filepath.Join(dir, "journal")
	pub, _, err := runCmd(t, "", "key", "new", "--journal", j)
	if err != nil {
		t.Fatal(err)
	}
	shown, _, err := runCmd(t, "", "key", "show", "--journal", j)
	if err != nil || shown != pub || !strings.HasPrefix(pub, "ed25519:") {
		t.Fatalf("key new printed %q, key show %q (%v)", pub, shown, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "journal.key")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("journal.key: %v, want mode 0600", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--journal", j}, filepath.Join(dir, "journal.key") + " exists: a table's key is never replaced"},
		{[]string{"--key", filepath.Join(dir, "k"), "--journal", j}, "give one of --key FILE or --journal DIR"},
		{[]string{}, "give one of --key FILE or --journal DIR"},
		{[]string{"--key", filepath.Join(dir, "none", "k")}, "table key: create"},
	} {
		if _, _, err := runCmd(t, "", append([]string{"key", "new"}, tc.args...)...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("key new %v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
	if again, _, _ := runCmd(t, "", "key", "show", "--journal", j); again != pub {
		t.Error("the key changed")
	}
}

// readPasswordFile reads a password file's first line: 32 printable characters.
func readPasswordFile(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pw := strings.TrimSuffix(string(b), "\n")
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{32}$`).MatchString(pw) {
		t.Fatalf("%s holds %q: want a password of 32 printable characters and a line break", file, b)
	}
	return pw
}

// loginAs connects to the broker at url as user and disconnects.
func loginAs(url, user, password string) error {
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(url).SetClientID("login-" + user).
		SetUsername(user).SetPassword(password).SetAutoReconnect(false).SetConnectTimeout(10 * time.Second))
	tok := c.Connect()
	tok.WaitTimeout(15 * time.Second)
	if tok.Error() == nil {
		c.Disconnect(50)
	}
	return tok.Error()
}
