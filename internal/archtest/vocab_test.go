package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
)

// otherVocabularies are the string literals outside api that spell a topic's or a
// command's name but name something else, by package: each is in that package's own
// vocabulary, with the reason.
var otherVocabularies = map[string][]string{
	"drivers/gpio":      {"confirm", "new_shoe", "insurance_closed", "call_supervisor"}, // the buttons' configuration names
	"round":             {"confirm", "report", "decide", "squeeze"},                     // the journalled event kinds
	"irregularities":    {"decide"},                                                     // an irregularity's action
	"simulator":         {"confirm", "report", "decide"},                                // the scenario directives
	"report":            {"report"},                                                     // the shoe report's template
	"internal/tablecmd": {"report"},                                                     // a subcommand
	"internal/floorcmd": {"report"},                                                     // a subcommand
	// the buttons' names (as drivers/gpio's), and a journalled event's "card" field
	"table": {"confirm", "new_shoe", "insurance_closed", "call_supervisor", "card"},
}

// topicPackages are the packages that speak MQTT, where a topic's last level ("card",
// "state"...) as a literal can only be a topic. Elsewhere the same words name other
// things (a device's card, a report's result), and only a topic path counts.
var topicPackages = []string{"messages", "daemon", "drivers/display", "broker", "console", "board", "table"}

// TestVocabularyInOnePackage: the names of the topics and of the commands appear as
// string literals in package api only (outside tests), so a topic or a command is
// added or renamed in one place. A literal that holds a topic path or a command's JSON
// counts too; log attributes' keys and struct tags do not.
func TestVocabularyInOnePackage(t *testing.T) {
	names := map[string]string{}
	for _, tp := range api.AllTopics() {
		names[tp.String()] = "topic"
	}
	names[api.ReplyTopic] = "topic"
	for _, c := range api.Commands {
		names[c.Name] = "command"
	}
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "third_party" || rel == "api") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		skip := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field:
				if n.Tag != nil {
					skip[n.Tag] = true
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && logAttr(sel) && len(n.Args) > 0 {
					if lit, ok := n.Args[0].(*ast.BasicLit); ok {
						skip[lit] = true // an attribute's key
					}
				}
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && logMethod(sel.Sel.Name) {
					for _, a := range n.Args {
						ast.Inspect(a, func(m ast.Node) bool {
							if lit, ok := m.(*ast.BasicLit); ok {
								skip[lit] = true
							}
							return true
						})
					}
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING || skip[n] {
					return true
				}
				v, err := strconv.Unquote(n.Value)
				if err != nil {
					return true
				}
				if why := vocabulary(v, names, slices.Contains(topicPackages, pkg)); why != "" && !slices.Contains(otherVocabularies[pkg], v) {
					t.Errorf("%s: %s: the literal %q %s: name it through package api", fset.Position(n.Pos()), pkg, v, why)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// vocabulary says which name of the vocabulary the literal v spells, or "". A topic's
// name counts only where topics are spoken of; a topic path only as a literal without
// spaces (not a sentence that describes the layout).
func vocabulary(v string, names map[string]string, topics bool) string {
	if kind, ok := names[v]; ok && (kind == "command" || topics) {
		return "is a " + kind + "'s name"
	}
	if strings.Contains(v, api.Prefix) && !strings.Contains(v, " ") {
		return "holds a topic path"
	}
	for name, kind := range names {
		if kind == "command" && (strings.Contains(v, `"cmd":"`+name+`"`) || strings.Contains(v, `"cmd": "`+name+`"`)) {
			return fmt.Sprintf("holds the %s command's JSON", name)
		}
	}
	return ""
}

// logMethod reports whether a method of that name writes a log line, whose literals are
// its message and its attributes' keys.
// logAttr reports whether sel is one of log/slog's attribute constructors.
func logAttr(sel *ast.SelectorExpr) bool {
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "slog" && sel.Sel.Name != "New"
}

func logMethod(name string) bool {
	switch name {
	case "Debug", "Info", "Warn", "Error", "With", "Log", "LogAttrs", "audit", "DebugContext", "InfoContext", "WarnContext", "ErrorContext":
		return true
	}
	return false
}
