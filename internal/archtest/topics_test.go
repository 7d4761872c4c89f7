package archtest

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
)

// TestTopicsDocumented: docs/mqtt.md's table of topics has the row of every topic of
// api's topic table, as the table gives it (api.TopicsMarkdown: its name, whether it is
// retained, what it carries), and no row of a topic the table lacks; and docs/mqtt.md's
// "Messages" has a section of each, marked "(retained)" as the topic is.
func TestTopicsDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "mqtt.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, table, ok := strings.Cut(doc, "\n## Topics\n")
	if !ok {
		t.Fatal("docs/mqtt.md has no section Topics")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	rows := map[string]string{} // a one-level topic's name, to its row
	row := regexp.MustCompile("^\\| `" + regexp.QuoteMeta(api.Prefix) + "/<table>/([a-z_]+)` \\|")
	for _, line := range strings.Split(table, "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			rows[m[1]] = line
		}
	}
	want := api.TopicsMarkdown()
	for i, tp := range api.AllTopics() {
		got, ok := rows[tp.String()]
		switch {
		case !ok:
			t.Errorf("docs/mqtt.md's table of topics has no row of %s; add:\n%s", tp, want[i])
		case got != want[i]:
			t.Errorf("docs/mqtt.md's row of %s:\n%s\nthe topic table says:\n%s", tp, got, want[i])
		}
		delete(rows, tp.String())
		heading := "\n### " + tp.String() + "\n"
		if tp.Retained() {
			heading = "\n### " + tp.String() + " (retained)\n"
		}
		if !strings.Contains(doc, heading) {
			t.Errorf("docs/mqtt.md has no section %q", strings.TrimSpace(heading))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		t.Errorf("docs/mqtt.md's table of topics has a row of %s, which is no topic of the topic table", name)
	}
}
