package roadmap

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The golden files in testdata/*.txt are worked examples written out by hand from the
// rules (docs/roadmap.md, roadmap R1 to R7; each file names the rules it shows). Each is a list of sections, a header "name:" followed by its
// lines (or with its content on the same line); "#" starts a comment.
//
//	rows: N, bead rows: N, derived rows: N, straight drop: blue   settings
//	input:                        the result tokens
//	bead plate:, big road:,       a grid, one line per row, cells as BeadText,
//	big eye boy:, small road:,    BigRoadText and MarkText write them, "." for an
//	cockroach pig:                empty cell; an empty section is an empty road
//	big eye boy marks: ...        a derived road's marks in the order they were added
//	next banker: / next player:   the three predictions, "-" for none
//	stats: key=value ...          the statistics named

type golden struct {
	sections map[string][]string
	order    []string
}

var headerRE = regexp.MustCompile(`^([a-z ]+):\s*(.*)$`)

func readGolden(t *testing.T, path string) golden {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g := golden{sections: map[string][]string{}}
	cur := ""
	for n, line := range strings.Split(string(data), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if m := headerRE.FindStringSubmatch(line); m != nil {
			cur = m[1]
			if _, dup := g.sections[cur]; dup {
				t.Fatalf("%s:%d: section %q given twice", path, n+1, cur)
			}
			g.sections[cur] = nil
			g.order = append(g.order, cur)
			if m[2] != "" {
				g.sections[cur] = append(g.sections[cur], m[2])
			}
			continue
		}
		if cur == "" {
			t.Fatalf("%s:%d: text before the first section", path, n+1)
		}
		g.sections[cur] = append(g.sections[cur], line)
	}
	return g
}

// gridOf reads a drawn grid into its cells.
func gridOf(lines []string) map[Pos]string {
	cells := map[Pos]string{}
	for row, line := range lines {
		for col, tok := range strings.Fields(line) {
			if tok != "." {
				cells[Pos{Col: col, Row: row}] = tok
			}
		}
	}
	return cells
}

// drawCells draws cells the way the golden files do, for failure messages.
func drawCells(cells map[Pos]string) string {
	cols, rows, width := 0, 0, 1
	for p, s := range cells {
		cols, rows, width = max(cols, p.Col+1), max(rows, p.Row+1), max(width, len(s))
	}
	var b strings.Builder
	for row := range rows {
		for col := range cols {
			s, ok := cells[Pos{Col: col, Row: row}]
			if !ok {
				s = "."
			}
			fmt.Fprintf(&b, "%-*s ", width, s)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func compareGrid(t *testing.T, name string, want, got map[Pos]string) {
	t.Helper()
	same := len(want) == len(got)
	for p, s := range want {
		if got[p] != s {
			same = false
		}
	}
	if !same {
		t.Errorf("%s: got\n%swant\n%s", name, drawCells(got), drawCells(want))
	}
}

// put records cell p in grid g, failing if two entries share a cell.
func put(t *testing.T, name string, g map[Pos]string, p Pos, s string) {
	t.Helper()
	if old, taken := g[p]; taken {
		t.Errorf("%s: cell %v holds both %q and %q", name, p, old, s)
	}
	g[p] = s
}

func markOf(t *testing.T, s string) Mark {
	t.Helper()
	switch s {
	case "R":
		return Red
	case "B":
		return Blue
	case "-":
		return NoMark
	}
	t.Fatalf("mark %q is not R, B or -", s)
	return NoMark
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 8 {
		t.Fatalf("found %d golden files, want at least 8", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) { runGolden(t, path) })
	}
}

func runGolden(t *testing.T, path string) {
	g := readGolden(t, path)
	var set Settings
	for name, field := range map[string]*int{"rows": &set.Rows, "bead rows": &set.BeadRows, "derived rows": &set.DerivedRows} {
		if v, ok := g.sections[name]; ok {
			n, err := strconv.Atoi(strings.Join(v, ""))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			*field = n
		}
	}
	if v, ok := g.sections["straight drop"]; ok {
		set.StraightDropBlue = strings.Join(v, "") == "blue"
	}
	in, ok := g.sections["input"]
	if !ok {
		t.Fatal("no input section")
	}
	if _, ok := g.sections["big road"]; !ok {
		t.Fatal("no big road section")
	}
	m := mustMap(t, set, strings.Join(in, "\n"))

	checked := 0
	for _, name := range g.order {
		lines := g.sections[name]
		got := map[Pos]string{}
		switch name {
		case "rows", "bead rows", "derived rows", "straight drop", "input":
			continue
		case "bead plate":
			for _, c := range m.BeadPlate() {
				put(t, name, got, c.Pos, BeadText(c.Round))
			}
			compareGrid(t, name, gridOf(lines), got)
		case "big road":
			for _, c := range m.BigRoad() {
				put(t, name, got, c.Pos, BigRoadText(c))
			}
			compareGrid(t, name, gridOf(lines), got)
		case "big eye boy", "small road", "cockroach pig":
			for _, c := range m.Derived(roadNamed(t, name)) {
				put(t, name, got, c.Pos, MarkText(c.Mark))
			}
			compareGrid(t, name, gridOf(lines), got)
		case "big eye boy marks", "small road marks", "cockroach pig marks":
			var gotMarks []string
			for _, c := range m.Derived(roadNamed(t, strings.TrimSuffix(name, " marks"))) {
				gotMarks = append(gotMarks, MarkText(c.Mark))
			}
			if want := strings.Fields(strings.Join(lines, " ")); !slices.Equal(gotMarks, want) {
				t.Errorf("%s: got %v, want %v", name, gotMarks, want)
			}
		case "next banker", "next player":
			want := strings.Fields(strings.Join(lines, " "))
			if len(want) != 3 {
				t.Fatalf("%s: want three marks, got %q", name, want)
			}
			p := m.Predictions()
			gotMarks := p.Banker
			if name == "next player" {
				gotMarks = p.Player
			}
			for i, w := range want {
				if gotMarks[i] != markOf(t, w) {
					t.Errorf("%s, %s: got %v, want %s", name, Road(i).Title(), gotMarks[i], w)
				}
			}
		case "stats":
			checkStats(t, m.Stats(), strings.Fields(strings.Join(lines, " ")))
		default:
			t.Fatalf("unknown section %q", name)
		}
		checked++
	}
	if checked < 4 {
		t.Fatalf("only %d sections checked", checked)
	}
}

func roadNamed(t *testing.T, name string) Road {
	t.Helper()
	for i := range 3 {
		if strings.EqualFold(Road(i).Title(), name) {
			return Road(i)
		}
	}
	t.Fatalf("no road %q", name)
	return 0
}

func checkStats(t *testing.T, s Stats, kv []string) {
	t.Helper()
	fields := map[string]int{
		"rounds": s.Rounds, "banker": s.Banker, "player": s.Player, "tie": s.Tie,
		"banker_pairs": s.BankerPairs, "player_pairs": s.PlayerPairs, "naturals": s.Naturals,
		"longest_banker": s.LongestBanker, "longest_player": s.LongestPlayer,
		"cards_remaining": s.CardsRemaining,
	}
	for _, f := range kv {
		k, v, ok := strings.Cut(f, "=")
		want, err := strconv.Atoi(v)
		got, known := fields[k]
		if !ok || err != nil || !known {
			t.Fatalf("stats: bad field %q", f)
		}
		if got != want {
			t.Errorf("stats %s: got %d, want %d", k, got, want)
		}
	}
}
