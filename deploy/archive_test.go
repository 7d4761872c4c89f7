package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/config"
)

// TestShippedArchiveAndACLAgree loads deploy/tablectl-archive.yaml as tablectl-floor archive
// does, with its files present, and deploy/mosquitto/acl and passwd.example: the user
// the archive logs in as exists, may read every table's archive/floor/records and write
// its archive/floor/held, and nothing else: no other archive's topics, no table topic,
// no command.
func TestShippedArchiveAndACLAgree(t *testing.T) {
	t.Parallel()
	yaml, err := os.ReadFile("tablectl-archive.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	text := string(yaml)
	for _, f := range []string{"/etc/tablectl/archive/mqtt-password", "/etc/tablectl/archive/ca.crt", "/etc/tablectl/archive/keys"} {
		local := filepath.Join(dir, filepath.Base(f))
		if err := os.WriteFile(local, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		text = strings.ReplaceAll(text, f, local)
	}
	file := filepath.Join(dir, "archive.yaml")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadConsole(file)
	if err != nil {
		t.Fatal(err)
	}
	user := cfg.Archive.MQTT.Username
	passwd, err := os.ReadFile("mosquitto/passwd.example")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains("\n"+string(passwd), "\n"+user+":") {
		t.Errorf("passwd.example has no user %q", user)
	}
	a := readACL(t)
	if _, ok := a.users[user]; !ok {
		t.Fatalf("the archive logs in as %q, which the ACL does not name", user)
	}
	g := a.grants(user)
	base := "tablectl/v1/pit3-bac07/"
	for _, c := range []struct {
		topic, access string
		want          bool
	}{
		{"archive/floor/records", "read", true}, {"archive/floor/held", "write", true}, {"archive/floor/held", "read", true},
		{"archive/floor/records", "write", false}, {"archive/standby/records", "read", false}, {"archive/standby/held", "write", false},
		{"result", "write", false}, {"result", "read", false}, {"cmd/supervisor", "read", false}, {"cmd/dealer", "write", false},
	} {
		if granted(g, base+c.topic, c.access) != c.want {
			t.Errorf("user %s may %s %s: %v, want %v", user, c.access, base+c.topic, !c.want, c.want)
		}
	}
}
