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

// TestAPIImportsNothingOfOurs: the wire vocabulary, api, imports no package of this
// module, neither in its code nor in its tests, and docs/ARCHITECTURE.md's row of it
// allows none. So a pit system takes api without the game's engine: api has its own
// words for what the messages carry, and the packages that know both sides convert.
func TestAPIImportsNothingOfOurs(t *testing.T) {
	root := filepath.Join("..", "..")
	pkg, err := build.ImportDir(filepath.Join(root, "api"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imps := range [][]string{pkg.Imports, pkg.TestImports, pkg.XTestImports} {
		for _, imp := range imps {
			if dep, ours := strings.CutPrefix(imp, module); ours && dep != "api" {
				t.Errorf("api imports %s: give api its own type, and convert where both are known (messages/wire.go)", dep)
			}
		}
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `api` \\|[^|]*\\|([^|]*)\\|$").FindStringSubmatch(string(doc))
	if row == nil || strings.TrimSpace(row[1]) != "" {
		t.Errorf("docs/ARCHITECTURE.md's row of api, %q: want it to import nothing of ours", row)
	}
}
