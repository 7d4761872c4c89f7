package deploy

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/config"
)

// acl is deploy/mosquitto/acl as read: its pattern lines and each user's own lines,
// each an (access, topic) pair.
type acl struct {
	patterns [][2]string // topics with %u, the user name
	users    map[string][][2]string
}

// readACL reads deploy/mosquitto/acl.
func readACL(t *testing.T) acl {
	t.Helper()
	f, err := os.Open("mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := acl{users: map[string][][2]string{}}
	user := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 0 || strings.HasPrefix(fields[0], "#"):
		case fields[0] == "user" && len(fields) == 2:
			user = fields[1]
			a.users[user] = nil
		case fields[0] == "topic" && len(fields) == 3 && user != "":
			a.users[user] = append(a.users[user], [2]string{fields[1], fields[2]})
		case fields[0] == "pattern" && len(fields) == 3:
			a.patterns = append(a.patterns, [2]string{fields[1], fields[2]})
		default:
			t.Fatalf("acl line %q is not understood by this test", sc.Text())
		}
	}
	return a
}

// grants is what Mosquitto grants user: every pattern with %u the user's name, and the
// user's own lines.
func (a acl) grants(user string) [][2]string {
	g := slices.Clone(a.users[user])
	for _, p := range a.patterns {
		g = append(g, [2]string{p[0], strings.ReplaceAll(p[1], "%u", user)})
	}
	return g
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
// deploy/mosquitto/acl and passwd.example: the table logs in as its table id, which
// passwd.example has, and the ACL lets that user write every topic of its table, read
// them back (the check that the broker delivers them), read its commands, send its
// records to the archive floor and read what it holds; and write no other table's
// topics nor any held message.
func TestShippedSettingsAndACLAgree(t *testing.T) {
	t.Parallel()
	cfg := loadShipped(t)
	user := cfg.MQTTUsername()
	if cfg.MQTT.URL == "" || user != cfg.Table {
		t.Fatalf("the shipped table logs in to %q as %q, want its table id %q", cfg.MQTT.URL, user, cfg.Table)
	}
	passwd, err := os.ReadFile("mosquitto/passwd.example")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains("\n"+string(passwd), "\n"+user+":") {
		t.Errorf("passwd.example has no user %q", user)
	}
	g := readACL(t).grants(user)
	base := "tablectl/v1/" + cfg.Table + "/"
	for _, topic := range []string{"status", "state", "card", "result", "roadmap", "irregularity", "journal", "cmd/reply"} {
		for _, access := range []string{"write", "read"} {
			if !granted(g, base+topic, access) {
				t.Errorf("user %s may not %s %s", user, access, base+topic)
			}
		}
	}
	for _, c := range []struct{ topic, access string }{{"cmd/dealer", "read"}, {"cmd/supervisor", "read"},
		{"archive/floor/records", "write"}, {"archive/floor/held", "read"}} {
		if !granted(g, base+c.topic, c.access) {
			t.Errorf("user %s may not %s %s", user, c.access, base+c.topic)
		}
	}
	for _, c := range []struct{ topic, access string }{{"tablectl/v1/bac-08/result", "write"}, {"tablectl/v1/bac-08/cmd/dealer", "read"},
		{base + "archive/floor/held", "write"}, {base + "cmd/dealer", "write"}, {base + "archive/floor/records", "read"}} {
		if granted(g, c.topic, c.access) {
			t.Errorf("user %s may %s %s", user, c.access, c.topic)
		}
	}
}

// TestShippedSettingsServeOnLoopback: the example settings serve the metrics on loopback
// only; exposing them is a deliberate change (docs/deploy.md). The display board, which
// only shows what the table publishes, is served to the display Pi (board_test.go).
func TestShippedSettingsServeOnLoopback(t *testing.T) {
	t.Parallel()
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
	yaml = []byte(strings.Replace(string(yaml), "/var/lib/tablectl/mqtt-password", pw, 1))
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
	t.Parallel()
	cfg := loadShipped(t)
	if w := cfg.LimitsWarning(); w != "" {
		t.Errorf("the shipped configuration: %s", w)
	}
	if cfg.Limits == nil || len(cfg.Limits.Max) == 0 {
		t.Errorf("the shipped limits give no maximum: %+v", cfg.Limits)
	}
}

// TestMosquittoREADMEUsers: deploy/mosquitto/README.md's table of users has a row for
// each user of the generated ACL, and none more, and the tables' row names each topic
// of the patterns (each table logs in as its own id).
func TestMosquittoREADMEUsers(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("mosquitto/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## What each user may do\n")
	if !ok {
		t.Fatal(`README.md has no section "What each user may do"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{}
	var tableRow string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(line, "|")
		who := strings.TrimSpace(cells[1])
		switch {
		case strings.HasPrefix(who, "a table, as its table id"):
			tableRow = line
		case strings.HasPrefix(who, "`") && strings.HasSuffix(who, "`"):
			rows[strings.Trim(who, "`")] = line
		}
	}
	a := readACL(t)
	for u := range a.users {
		if _, ok := rows[u]; !ok {
			t.Errorf("README.md's table has no row for the ACL's user %s", u)
		}
	}
	for u := range rows {
		if _, ok := a.users[u]; !ok {
			t.Errorf("README.md's table has a row for %s, which the ACL does not name", u)
		}
	}
	if tableRow == "" {
		t.Fatal("README.md's table has no row for a table")
	}
	for _, p := range a.patterns {
		topic := strings.TrimPrefix(p[1], "tablectl/v1/%u/")
		topic = strings.ReplaceAll(topic, "+", "<archive>")
		if topic == "cmd/<archive>" {
			topic = "cmd/<role>"
		}
		if !strings.Contains(tableRow, topic) {
			t.Errorf("README.md's row of a table does not name %s (the pattern %s %s)", topic, p[0], p[1])
		}
	}
}
