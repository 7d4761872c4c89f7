package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestArchiveAttacksNameTheirTests: every row of docs/archive.md's "What each attack
// meets" names tests that exist, each in the package it says, so the list and the tests
// cannot drift apart.
func TestArchiveAttacksNameTheirTests(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "archive.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## What each attack meets\n")
	if !ok {
		t.Fatal(`docs/archive.md has no section "What each attack meets"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	// In a row's last cell: `TestA`, `TestB` (package), `FuzzC` (other/package).
	group := regexp.MustCompile("((?:`(?:Test|Fuzz)[A-Za-z0-9_]+`(?:, )?)+) \\(([a-z/]+)\\)")
	name := regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]+)`")
	rows, named := 0, 0
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| attack") || strings.HasPrefix(line, "|---") {
			continue
		}
		rows++
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		groups := group.FindAllStringSubmatch(cells[len(cells)-1], -1)
		if len(groups) == 0 {
			t.Errorf("a row names no test in a package: %s", line)
		}
		for _, g := range groups {
			src := testSources(t, filepath.Join(root, g[2]))
			for _, n := range name.FindAllStringSubmatch(g[1], -1) {
				named++
				if !strings.Contains(src, "func "+n[1]+"(") {
					t.Errorf("docs/archive.md names %s in %s, which has no such test", n[1], g[2])
				}
			}
		}
	}
	if rows < 10 || named < rows {
		t.Fatalf("read %d rows naming %d tests", rows, named)
	}
}

// testSources is every test file of the package in dir, as one text.
func testSources(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files in %s: %v", dir, err)
	}
	var b strings.Builder
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(src)
	}
	return b.String()
}
