package api_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
)

// TestSecurityTableIsTheACL: docs/mqtt.md's table of roles ("Security") says what the
// generated ACL grants: a row for the tables, one for each service user, one for the
// archives; each row's "publishes" cell names exactly the command topics the user
// writes, the tables' row each topic a table writes, the archives' row its held message.
func TestSecurityTableIsTheACL(t *testing.T) {
	b, err := os.ReadFile("../docs/mqtt.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Security\n")
	if !ok {
		t.Fatal("docs/mqtt.md has no Security section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	rows := map[string]string{} // the first cell's names, each to its "publishes" cell
	for _, line := range strings.Split(sec, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) != 3 || cells[0] == "role" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[0], -1) {
			rows[m[1]] = cells[1]
		}
		if strings.HasPrefix(cells[0], "a table") {
			rows["table"] = cells[1]
		}
	}
	cmds := regexp.MustCompile("`cmd/([a-z_]+)`")
	for _, u := range api.BrokerUsers {
		pub, ok := rows[u.Name]
		if !ok {
			t.Errorf("the roles table has no row of %s", u.Name)
			continue
		}
		var got []string
		for _, m := range cmds.FindAllStringSubmatch(pub, -1) {
			got = append(got, m[1])
		}
		var want []string
		for _, r := range u.Commands {
			want = append(want, r.String())
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("the roles table says %s publishes the commands %v; the ACL grants %v", u.Name, got, want)
		}
	}
	table, ok := rows["table"]
	if !ok {
		t.Fatal("the roles table has no row of a table")
	}
	for _, topic := range api.TableTopics() {
		if !strings.Contains(table, "`"+topic+"`") {
			t.Errorf("the roles table's row of a table does not say it publishes %s", topic)
		}
	}
	if !strings.Contains(table, "`"+api.ArchiveLevel+"/<archive>/"+api.ArchiveRecordsPart+"`") {
		t.Error("the roles table's row of a table does not say it publishes the archive's records")
	}
	arch, ok := rows[api.ArchiveUserPrefix+"<id>"]
	if !ok || !strings.Contains(arch, "`"+api.ArchiveLevel+"/<id>/"+api.ArchiveHeldPart+"`") || strings.Contains(arch, api.ArchiveRecordsPart) {
		t.Errorf("the roles table's row of an archive, %q: want it publishing its held message alone", arch)
	}
}

// grants reads an ACL MosquittoACL wrote: its pattern lines, and each user's topic
// lines, as (access, topic filter).
func grants(t *testing.T, acl []byte) (patterns [][2]string, users map[string][][2]string) {
	t.Helper()
	users = map[string][][2]string{}
	user := ""
	for _, line := range strings.Split(string(acl), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
		case f[0] == "user" && len(f) == 2:
			user = f[1]
			users[user] = nil
		case f[0] == "topic" && len(f) == 3 && user != "":
			users[user] = append(users[user], [2]string{f[1], f[2]})
		case f[0] == "pattern" && len(f) == 3:
			patterns = append(patterns, [2]string{f[1], f[2]})
		default:
			t.Fatalf("acl line %q is not understood by this test", line)
		}
	}
	return patterns, users
}

// matches is MQTT's filter matching, as Mosquitto applies an ACL line.
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

// TestAlertTopicIsTheConsolesAlone: the console alone writes a table's
// archive/<archive>/alert, for any archive, and the archive of that id alone reads it;
// no table reads or writes it, nor the dealer, the pit system or another archive. So on
// the central layout.
func TestAlertTopicIsTheConsolesAlone(t *testing.T) {
	for _, rest := range []string{"archive/floor/alert", "archive/standby/alert"} {
		if api.TableWrites(rest) || api.TableReads(rest) {
			t.Errorf("a table may write (%v) or read (%v) its %s", api.TableWrites(rest), api.TableReads(rest), rest)
		}
	}
	acl, err := api.MosquittoACL(api.ACLOptions{Archives: []string{"floor", "standby"}, Central: true})
	if err != nil {
		t.Fatal(err)
	}
	patterns, users := grants(t, acl)
	// may is Mosquitto's grant to user: its own lines, then the patterns with its name.
	may := func(user, topic string, write bool) bool {
		lines := slices.Clone(users[user])
		for _, p := range patterns {
			lines = append(lines, [2]string{p[0], strings.ReplaceAll(p[1], "%u", user)})
		}
		for _, l := range lines {
			if matches(l[1], topic) && (l[0] == "readwrite" || l[0] == "write" && write || l[0] == "read" && !write) {
				return true
			}
		}
		return false
	}
	type right struct{ read, write bool }
	want := map[string]right{"console": {write: true}, "archive-floor": {read: true}}
	for _, prefix := range []string{"", "casino/site1/pit3/"} {
		topic := prefix + "tablectl/v1/t1/archive/floor/alert"
		for _, user := range []string{"t1", "t2", "console", "dealer", "supervisor", "pitsystem", "board", "archive-floor", "archive-standby"} {
			if _, ok := users[user]; !ok && user != "t1" && user != "t2" {
				t.Fatalf("the ACL has no user %s", user)
			}
			got := right{read: may(user, topic, false), write: may(user, topic, true)}
			if got != want[user] {
				t.Errorf("%s on %s: read %v, write %v; want read %v, write %v", user, topic, got.read, got.write, want[user].read, want[user].write)
			}
		}
	}
	if u, ok := api.BrokerUserNamed("console"); !ok || !u.Alerts {
		t.Error("the console's user does not record the alerts")
	}
	for _, u := range api.BrokerUsers {
		if u.Alerts && u.Name != "console" {
			t.Errorf("the user %s records alerts: the console alone does", u.Name)
		}
	}
}
