// Package shdoc makes the set-up pages of docs/ from the deploy scripts that do the set-up
// (deploy/floor-setup.sh), so that the steps a person reads are the commands the script
// runs, and a test tells when they differ.
//
// A script is read so:
//
//   - Its lines before the first section are its header, shown nowhere. A header line
//     `: "${NAME:=VALUE}"` gives a command a test may replace (SYSTEMCTL, APT_GET...):
//     the pages show VALUE wherever the sections say $NAME or ${NAME}.
//   - "## REGION: TITLE" starts a section, shown in the page's region REGION. A section
//     with a title is a step, "### N. TITLE", numbered in the script's order; one with
//     none has no heading.
//   - In a section, lines that start with "#" are the text: one paragraph for each run
//     of them ("#" alone ends one). Every other run of lines, up to a blank line, is a
//     command block, shown as it runs.
//
// A page holds each region between the lines
//
//	<!-- deploy/SCRIPT REGION: made by go generate ./deploy, do not edit -->
//	<!-- end of deploy/SCRIPT REGION -->
package shdoc

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

var (
	defaultLine = regexp.MustCompile(`^: "\$\{([A-Z_][A-Z0-9_]*):=(.*)\}"$`)
	sectionLine = regexp.MustCompile(`^## ([a-z0-9-]+):\s*(.*)$`)
)

// Render reads a script and returns the text of each of its regions, in markdown.
func Render(script string) (map[string]string, error) {
	lines := strings.Split(strings.TrimRight(script, "\n"), "\n")
	subs := map[string]string{}
	i := 0
	for ; i < len(lines) && !sectionLine.MatchString(lines[i]); i++ {
		if m := defaultLine.FindStringSubmatch(lines[i]); m != nil {
			subs[m[1]] = m[2]
		}
	}
	if i == len(lines) {
		return nil, fmt.Errorf("the script has no section (a line \"## REGION: TITLE\")")
	}
	name := regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*)\}|\$([A-Z_][A-Z0-9_]*)`)
	show := func(line string) string {
		return name.ReplaceAllStringFunc(line, func(v string) string {
			n := strings.Trim(v, "${}")
			if value, ok := subs[n]; ok {
				return value
			}
			return v
		})
	}

	regions := map[string]*bytes.Buffer{}
	var out *bytes.Buffer
	step := 0
	var prose, code []string
	flush := func() {
		if len(prose) > 0 {
			out.WriteString(strings.Join(prose, "\n") + "\n\n")
			prose = nil
		}
		if len(code) > 0 {
			out.WriteString("```\n" + strings.Join(code, "\n") + "\n```\n\n")
			code = nil
		}
	}
	for ; i < len(lines); i++ {
		line := lines[i]
		if m := sectionLine.FindStringSubmatch(line); m != nil {
			if out != nil {
				flush()
			}
			if regions[m[1]] == nil {
				regions[m[1]] = &bytes.Buffer{}
			}
			out = regions[m[1]]
			if m[2] != "" {
				step++
				fmt.Fprintf(out, "### %d. %s\n\n", step, m[2])
			}
			continue
		}
		switch {
		case line == "" || line == "#":
			flush()
		case strings.HasPrefix(line, "# "):
			if len(code) > 0 {
				flush()
			}
			prose = append(prose, strings.TrimPrefix(line, "# "))
		case strings.HasPrefix(line, "#"):
			return nil, fmt.Errorf("line %d: a comment takes a space after #: %q", i+1, line)
		default:
			if len(prose) > 0 {
				flush()
			}
			code = append(code, show(line))
		}
	}
	flush()
	text := map[string]string{}
	for r, b := range regions {
		text[r] = strings.TrimRight(b.String(), "\n") + "\n"
	}
	return text, nil
}

// Begin and End are the lines around a region of the script named script (its path,
// deploy/floor-setup.sh) on a page.
func Begin(script, region string) string {
	return "<!-- " + script + " " + region + ": made by go generate ./deploy, do not edit -->"
}

// End is the line after a region: see Begin.
func End(script, region string) string {
	return "<!-- end of " + script + " " + region + " -->"
}

var markerLine = regexp.MustCompile(`(?m)^<!-- (deploy/[a-z0-9.-]+) ([a-z0-9-]+): made by go generate ./deploy, do not edit -->$`)

// Splice returns page with each region of scripts (its path to its regions) between its
// lines put in place, and the regions it holds ("script region"). A region the page
// names that a script lacks, or a region without its end, is an error.
func Splice(page string, scripts map[string]map[string]string) (string, []string, error) {
	var b strings.Builder
	var held []string
	rest := page
	for {
		loc := markerLine.FindStringSubmatchIndex(rest)
		if loc == nil {
			b.WriteString(rest)
			return b.String(), held, nil
		}
		script, region := rest[loc[2]:loc[3]], rest[loc[4]:loc[5]]
		text, ok := scripts[script][region]
		if !ok {
			return "", nil, fmt.Errorf("the page names %s %s, which no script has", script, region)
		}
		end := End(script, region)
		j := strings.Index(rest[loc[1]:], "\n"+end+"\n")
		if j < 0 {
			return "", nil, fmt.Errorf("%s %s has no line %q after it", script, region, end)
		}
		b.WriteString(rest[:loc[1]] + "\n\n" + text + "\n" + end + "\n")
		rest = rest[loc[1]+j+len(end)+2:]
		held = append(held, script+" "+region)
	}
}

// Scripts are the deploy scripts whose steps the pages show, and Pages the pages that
// show them, each a path from the repository's root.
var (
	Scripts = []string{"deploy/floor-setup.sh", "deploy/floor-add-table.sh"}
	Pages   = []string{"docs/deploy.md", "docs/archive.md", "docs/console.md"}
)

// Generate makes each page of Pages from Scripts, under root (the repository's root
// seen from where it runs), and calls write for each page that differs from its file.
// Every region of every script must be on a page, once.
func Generate(root string, write func(path string, data []byte, perm os.FileMode) error) error {
	scripts := map[string]map[string]string{}
	want := map[string]bool{}
	for _, s := range Scripts {
		b, err := os.ReadFile(filepath.Join(root, s))
		if err != nil {
			return err
		}
		regions, err := Render(string(b))
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		scripts[s] = regions
		for r := range regions {
			want[s+" "+r] = true
		}
	}
	seen := map[string]string{}
	for _, p := range Pages {
		path := filepath.Join(root, p)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		page, held, err := Splice(string(b), scripts)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, h := range held {
			if other, ok := seen[h]; ok {
				return fmt.Errorf("%s and %s both hold %s", other, p, h)
			}
			seen[h] = p
		}
		if page != string(b) {
			if err := write(path, []byte(page), 0o644); err != nil {
				return err
			}
		}
	}
	for _, w := range slices.Sorted(maps.Keys(want)) {
		if _, ok := seen[w]; !ok {
			return fmt.Errorf("no page holds %s: give one its lines %q and %q", w, Begin(strings.Fields(w)[0], strings.Fields(w)[1]), End(strings.Fields(w)[0], strings.Fields(w)[1]))
		}
	}
	return nil
}
