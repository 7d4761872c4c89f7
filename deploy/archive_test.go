package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/config"
)

// TestShippedArchiveAndACLAgree loads deploy/tablectl-archive.yaml as tablectl archive
// does, with its files present, and deploy/mosquitto/acl and passwd.example: the user
// the archive logs in as exists, may read every table's archive/records and write its
// archive/held, and may write no table topic nor read the commands.
func TestShippedArchiveAndACLAgree(t *testing.T) {
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
	g, ok := aclGrants(t)[user]
	if !ok {
		t.Fatalf("the archive logs in as %q, which the ACL does not name", user)
	}
	base := "tablectl/v1/pit3-bac07/"
	for _, c := range []struct {
		topic, access string
		want          bool
	}{
		{"archive/records", "read", true}, {"archive/held", "write", true}, {"archive/held", "read", true},
		{"archive/records", "write", false}, {"result", "write", false}, {"cmd/supervisor", "read", false}, {"cmd/dealer", "write", false},
	} {
		if granted(g, base+c.topic, c.access) != c.want {
			t.Errorf("user %s may %s %s: %v, want %v", user, c.access, base+c.topic, !c.want, c.want)
		}
	}
}
