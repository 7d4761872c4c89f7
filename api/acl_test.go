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
