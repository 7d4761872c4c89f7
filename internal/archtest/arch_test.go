package archtest

import (
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/tablectl/tablectl/"

// TestImportsAsDocumented: every package of the module is in docs/ARCHITECTURE.md's
// table, and imports (outside its tests) only the module's packages its row allows.
func TestImportsAsDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z/-]+)` \\|[^|]*\\|([^|]*)\\|$")
	allowed := map[string][]string{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		var may []string
		for _, p := range regexp.MustCompile("`([a-z/]+)`").FindAllStringSubmatch(m[2], -1) {
			may = append(may, p[1])
		}
		if strings.TrimSpace(m[2]) == "any" {
			may = nil
			allowed[m[1]] = []string{"*"}
			continue
		}
		allowed[m[1]] = may
	}
	if len(allowed) < 10 {
		t.Fatalf("read %d rows of docs/ARCHITECTURE.md's table of packages", len(allowed))
	}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "third_party" || rel == "deploy" || rel == "docs") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			return nil
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		name := filepath.ToSlash(rel)
		may, ok := allowed[name]
		if !ok {
			t.Errorf("package %s is not in docs/ARCHITECTURE.md's table", name)
			return nil
		}
		if slices.Contains(may, "*") {
			return nil
		}
		for _, imp := range pkg.Imports {
			dep, ours := strings.CutPrefix(imp, module)
			if ours && !strings.HasPrefix(dep, "third_party/") && !slices.Contains(may, dep) {
				t.Errorf("%s imports %s; docs/ARCHITECTURE.md allows it %v", name, dep, may)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAPIImportsNoEngine: the wire vocabulary, api, imports (outside its tests, through
// any package) none of the game's engine: not the round controller, the roads, the
// table or the messages' builder. So a pit system takes api without them.
func TestAPIImportsNoEngine(t *testing.T) {
	engine := []string{"round", "roadmap", "table", "messages", "daemon"}
	root := filepath.Join("..", "..")
	seen := map[string]bool{}
	var walk func(dep string, via []string)
	walk = func(dep string, via []string) {
		if seen[dep] {
			return
		}
		seen[dep] = true
		if slices.Contains(engine, dep) {
			t.Errorf("api imports %s, through %s", dep, strings.Join(via, " -> "))
			return
		}
		pkg, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(dep)), 0)
		if err != nil {
			t.Fatalf("%s: %v", dep, err)
		}
		for _, imp := range pkg.Imports {
			if d, ours := strings.CutPrefix(imp, module); ours {
				walk(d, append(slices.Clone(via), d))
			}
		}
	}
	walk("api", []string{"api"})
}
