package simulator

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/tablectl/tablectl/drivers/shoe"
)

var scenarioErr = regexp.MustCompile(`^scenario line (\d+): `)

// FuzzParseScenario reads arbitrary bytes as a scenario file. Whatever the bytes, the
// reader must not panic; an error names a line of the file; a scenario it accepts has
// settings in their ranges and its steps on lines of the file, in the file's order.
func FuzzParseScenario(f *testing.F) {
	files, _ := filepath.Glob("testdata/scenarios/*")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("protocol ascii\ndecks 6\ncut 20\nseed 7\nshuffle\nround PB 5\n"))
	f.Add([]byte("deal 3\nseed 1\n"))
	f.Add([]byte("noise ff 00 zz\nfault 7 jammed # comment\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScenario(bytes.NewReader(data))
		lines := bytes.Count(data, []byte("\n")) + 1
		if err != nil {
			m := scenarioErr.FindStringSubmatch(err.Error())
			if m == nil {
				if sc != nil || !regexp.MustCompile(`^read scenario: `).MatchString(err.Error()) {
					t.Fatalf("error %q names no line", err)
				}
				return
			}
			if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
				t.Fatalf("error %q: the file has %d lines", err, lines)
			}
			return
		}
		if !slices.Contains(shoe.Formats, sc.Protocol) || sc.Decks < 1 || sc.Decks > 16 || sc.Cut < 0 || sc.Cut > 416 {
			t.Fatalf("accepted settings out of range: protocol %q, %d decks, cut %d", sc.Protocol, sc.Decks, sc.Cut)
		}
		for i, st := range sc.Steps {
			if st.Line < 1 || st.Line > lines || i > 0 && st.Line < sc.Steps[i-1].Line {
				t.Fatalf("step %d (%s) on line %d of %d, after line %d", i, st.Op, st.Line, lines, sc.Steps[max(i-1, 0)].Line)
			}
		}
	})
}
