package deploy

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/config"
)

// aclGrants reads deploy/mosquitto/acl: for each user, its (access, pattern) lines.
func aclGrants(t *testing.T) map[string][][2]string {
	t.Helper()
	f, err := os.Open("mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	grants := map[string][][2]string{}
	user := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 0 || strings.HasPrefix(fields[0], "#"):
		case fields[0] == "user" && len(fields) == 2:
			user = fields[1]
			grants[user] = nil
		case fields[0] == "topic" && len(fields) == 3 && user != "":
			grants[user] = append(grants[user], [2]string{fields[1], fields[2]})
		default:
			t.Fatalf("acl line %q is not understood by this test", sc.Text())
		}
	}
	return grants
}

func matches(filter, topic string) bool {
	fl, tl := strings.Split(filter, "/"), strings.Split(topic, "/")
	for i, f := range fl {
		if f == "#" {
			return true
		}
		if i >= len(tl) || (f != "+" && f != tl[i]) {
			return false
		}
	}
	return len(fl) == len(tl)
}

func granted(g [][2]string, topic, access string) bool {
	for _, ap := range g {
		if matches(ap[1], topic) && (ap[0] == "readwrite" || ap[0] == access) {
			return true
		}
	}
	return false
}

// TestShippedSettingsAndACLAgree loads deploy/tablectl.yaml as tablectl does and
// deploy/mosquitto/acl and passwd.example: the user the settings log in as exists, may
// write every topic of the table, read them back (the check that the broker delivers
// them) and read the commands.
func TestShippedSettingsAndACLAgree(t *testing.T) {
	cfg := loadShipped(t)
	if cfg.MQTT.URL == "" || cfg.MQTT.Username == "" {
		t.Fatalf("the shipped settings use no external broker user: %+v", cfg.MQTT)
	}
	user := cfg.MQTT.Username
	passwd, err := os.ReadFile("mosquitto/passwd.example")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains("\n"+string(passwd), "\n"+user+":") {
		t.Errorf("passwd.example has no user %q", user)
	}
	g, ok := aclGrants(t)[user]
	if !ok {
		t.Fatalf("the settings log in as %q, which the ACL does not name: every publish would be dropped", user)
	}
	base := "tablectl/v1/" + cfg.Table + "/"
	for _, topic := range []string{"status", "state", "card", "result", "roadmap", "irregularity", "journal", "cmd/reply"} {
		for _, access := range []string{"write", "read"} {
			if !granted(g, base+topic, access) {
				t.Errorf("user %s may not %s %s", user, access, base+topic)
			}
		}
	}
	for _, role := range []string{"dealer", "supervisor"} {
		if !granted(g, base+"cmd/"+role, "read") {
			t.Errorf("user %s may not read the %s commands", user, role)
		}
	}
}

// TestShippedSettingsServeOnLoopback: the example settings serve the metrics on loopback
// only; exposing them is a deliberate change (docs/deploy.md). The display board, which
// only shows what the table publishes, is served to the display Pi (board_test.go).
func TestShippedSettingsServeOnLoopback(t *testing.T) {
	cfg := loadShipped(t)
	for key, addr := range map[string]string{"metrics": cfg.Metrics} {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatalf("%s: %q: %v", key, addr, err)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			t.Errorf("%s: %q is served beyond this machine", key, addr)
		}
	}
}

// loadShipped loads deploy/tablectl.yaml as tablectl does, its password file pointed at
// one that exists and its devices not looked for.
func loadShipped(t *testing.T) config.Config {
	t.Helper()
	yaml, err := os.ReadFile("tablectl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pw := filepath.Join(dir, "mqtt-password")
	if err := os.WriteFile(pw, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	yaml = []byte(strings.Replace(string(yaml), "/etc/tablectl/mqtt-password", pw, 1))
	file := filepath.Join(dir, "tablectl.yaml")
	if err := os.WriteFile(file, yaml, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadForSimulation(file)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestShippedSettingsShowTheLimits: the shipped configuration's rule set requires the
// limits displayed at the table (RWS Baccarat 3.4), so the file carries an example
// limits section that check-config takes without a warning, and that the board shows.
func TestShippedSettingsShowTheLimits(t *testing.T) {
	cfg := loadShipped(t)
	if w := cfg.LimitsWarning(); w != "" {
		t.Errorf("the shipped configuration: %s", w)
	}
	if cfg.Limits == nil || len(cfg.Limits.Max) == 0 {
		t.Errorf("the shipped limits give no maximum: %+v", cfg.Limits)
	}
}
