package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tablectl/tablectl/drivers/shoe"
)

// Error is one fault in a configuration file: where it is, which key, and what is wrong.
type Error struct {
	File string
	Line int    // 0 when the fault is not on one line (an empty key list, say)
	Key  string // the key's path, such as "shoe.port" or "gpio.pins[2].pin"
	Msg  string
}

// Error prints the fault as FILE:LINE: KEY: what is wrong.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every fault found in a file, in the order of the file.
type Errors []*Error

// Error prints every fault, one a line.
func (es Errors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Load reads and checks the configuration file at path. The error is an Errors listing
// every fault, or the error reading the file.
func Load(path string) (Config, error) { return load(path, true) }

// LoadForSimulation reads and checks the file as Load does, but for the shoe's and the
// shuffler's ports, which need not exist: a simulated shoe and shuffler stand in for
// them, to try the file on a machine without the devices.
func LoadForSimulation(path string) (Config, error) { return load(path, false) }

func load(path string, ports bool) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return parse(path, b, ports)
}

// Parse reads and checks a configuration file's content; name is the file's name for the
// errors. Keys left out take Default's settings.
func Parse(name string, data []byte) (Config, error) { return parse(name, data, true) }

func parse(name string, data []byte, ports bool) (Config, error) {
	cfg := Default()
	f := &file{name: name, lines: map[string]int{}, values: map[int]string{}, ports: ports}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		// YAML indents with spaces only; the library's word for a tab is cryptic, and
		// often names another line.
		if !f.tabIndents(data) {
			f.yamlError(err)
		}
		return Config{}, f.errs
	}
	if len(root.Content) == 0 {
		return cfg, f.check(&cfg) // an empty file: the defaults
	}
	doc := root.Content[0]
	f.walk(doc, reflect.TypeOf(cfg), "") // unknown keys are reported, and the rest checked
	err := doc.Decode(&cfg)
	f.sectionDefaults(&cfg)
	if err != nil {
		f.yamlError(err)
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return Config{}, f.sorted()
		}
		// A value of the wrong kind leaves its key at the default and the rest decoded:
		// the other keys are checked all the same, so that every fault is reported at
		// once, but a key already at fault (or under one) is not reported twice.
		faulted := f.errs
		f.errs = nil
		f.check(&cfg)
		checked := f.errs
		f.errs = faulted
		for _, e := range checked {
			if !under(faulted, e.Key) {
				f.errs = append(f.errs, e)
			}
		}
		return Config{}, f.sorted()
	}
	if f.check(&cfg); len(f.errs) > 0 {
		return Config{}, f.sorted()
	}
	cfg.parts = partsOf(slices.Collect(maps.Keys(f.lines)))
	return cfg, nil
}

// sectionDefaults gives the keys left out of a section the file has the defaults
// docs/config.md says, where Default cannot: a section left out is nil, and one
// written starts from nothing. A key written, even empty, is kept, and checked.
func (f *file) sectionDefaults(c *Config) {
	if c.Shoe != nil && c.Shoe.Format == "" && !f.set("shoe.format") {
		c.Shoe.Format = string(shoe.Formats[0])
	}
}

// under says whether key, or a section it is in, is the key of one of errs.
func under(errs Errors, key string) bool {
	for _, e := range errs {
		if e.Key != "" && (key == e.Key || strings.HasPrefix(key, e.Key+".") || strings.HasPrefix(key, e.Key+"[")) {
			return true
		}
	}
	return false
}

var cannotUnmarshal = regexp.MustCompile("^cannot unmarshal (!!\\w+)(?: `(.*)`)? into (.+)$")

// plainType says in plain words what a value of the Go type named goType is written as,
// for "want a number".
func plainType(goType string) string {
	switch {
	case goType == "time.Duration":
		return "a duration such as 150ms or 2s"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "a text"
	case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "uint") || strings.HasPrefix(goType, "float"):
		return "a number"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map[") || strings.HasPrefix(goType, "config."):
		return "a section of keys"
	}
	return goType
}

// plainValue names what the file holds, as the YAML library tags it.
func plainValue(tag, value string) string {
	switch tag {
	case "!!seq":
		return "a list"
	case "!!map":
		return "a section"
	}
	return strconv.Quote(value)
}

// plainYAML says a YAML library's message in plain words where it can: "cannot
// unmarshal !!str `eight` into int" is `want a number, not "eight"`.
func plainYAML(msg string) string {
	if g := cannotUnmarshal.FindStringSubmatch(msg); g != nil {
		return "want " + plainType(g[3]) + ", not " + plainValue(g[1], g[2])
	}
	return msg
}

// sorted is the faults in the order of the file; those on no line last.
func (f *file) sorted() Errors {
	slices.SortStableFunc(f.errs, func(a, b *Error) int {
		switch {
		case a.Line == b.Line:
			return 0
		case a.Line == 0:
			return 1
		case b.Line == 0:
			return -1
		}
		return a.Line - b.Line
	})
	return f.errs
}

// file collects what is known of one file while it is read: where each key is, and the
// faults found.
type file struct {
	name  string
	lines map[string]int // key path to line
	// values is the key whose value begins on a line of its own (a block list or
	// section under its key), by that line.
	values map[int]string
	errs   Errors
	ports  bool // check that the devices' ports exist
}

func (f *file) add(line int, key, format string, a ...any) {
	f.errs = append(f.errs, &Error{File: f.name, Line: line, Key: key, Msg: fmt.Sprintf(format, a...)})
}

// at adds a fault at the line of key (as written in the file).
func (f *file) at(key, format string, a ...any) { f.add(f.lines[key], key, format, a...) }

// set says whether key is written in the file.
func (f *file) set(key string) bool { _, ok := f.lines[key]; return ok }

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// yamlError turns the YAML library's errors ("line 3: cannot unmarshal ...") into the
// file's, naming the key on that line where there is one.
func (f *file) yamlError(err error) {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	keyAt := map[int]string{}
	for k, l := range f.lines {
		if old, ok := keyAt[l]; !ok || len(k) > len(old) {
			keyAt[l] = k
		}
	}
	for _, m := range msgs {
		if g := yamlLine.FindStringSubmatch(m); g != nil {
			line, _ := strconv.Atoi(g[1])
			if key, ok := f.values[line]; ok && keyAt[line] == "" {
				// The value of the wrong kind begins below its key: name the key, on its line.
				f.add(f.lines[key], key, "%s", plainYAML(strings.TrimPrefix(g[2], "yaml: ")))
				continue
			}
			f.add(line, keyAt[line], "%s", plainYAML(strings.TrimPrefix(g[2], "yaml: ")))
			continue
		}
		f.add(0, "", "%s", plainYAML(strings.TrimPrefix(m, "yaml: ")))
	}
}

// tabIndents reports each line of data whose indentation holds a tab, and whether there
// was one.
func (f *file) tabIndents(data []byte) bool {
	found := false
	for i, line := range strings.Split(string(data), "\n") {
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		if strings.Contains(indent, "\t") && strings.TrimSpace(line) != "" {
			f.add(i+1, "", "a tab in the indentation: YAML indents with spaces only")
			found = true
		}
	}
	return found
}

// walk notes the line of every key under n, a node to be decoded into a value of type t,
// and reports the keys t does not have.
func (f *file) walk(n *yaml.Node, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.AliasNode:
		f.add(n.Line, path, "aliases are not allowed in the configuration")
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := keysOf(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := join(path, k.Value)
			ft, ok := fields[k.Value]
			if !ok {
				f.add(k.Line, key, "unknown key (%s has %s)", section(path), strings.Join(sortedKeys(fields), ", "))
				continue
			}
			f.lines[key] = k.Line
			if v.Line != k.Line && f.values != nil {
				f.values[v.Line] = key
			}
			f.walk(v, ft, key)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		// A section whose keys are the file's own (limits.min's bets): note each key's
		// line, for the checks that name them.
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := join(path, k.Value)
			f.lines[key] = k.Line
			f.walk(v, t.Elem(), key)
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			key := fmt.Sprintf("%s[%d]", path, i+1)
			f.lines[key] = item.Line
			f.walk(item, t.Elem(), key)
		}
	}
	// Any other mismatch of kinds is the decoder's to report, with its line.
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func section(path string) string {
	if path == "" {
		return "the file's top level"
	}
	return path
}

// keysOf lists the YAML keys of struct type t and the type each decodes into.
func keysOf(t reflect.Type) map[string]reflect.Type {
	keys := map[string]reflect.Type{}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if opts == "inline" {
			for k, v := range keysOf(sf.Type) {
				keys[k] = v
			}
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		keys[name] = sf.Type
	}
	return keys
}

func sortedKeys(m map[string]reflect.Type) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
