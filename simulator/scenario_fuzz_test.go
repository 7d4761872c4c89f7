package simulator

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/shoe"
)

var scenarioErr = regexp.MustCompile(`^scenario line (\d+): `)

// FuzzParseScenario reads arbitrary bytes as a scenario file. Whatever the bytes, the
// reader must not panic; an error names a line of the file; a scenario it accepts has
// settings in their ranges and its steps on lines of the file, in the file's order.
func FuzzParseScenario(f *testing.F) {
	files, _ := filepath.Glob("testdata/scenarios/*")
	more, _ := filepath.Glob("testdata/scenarios/*/*")
	for _, name := range append(files, more...) {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("protocol ascii\ndecks 6\ncut 20\nseed 7\nshuffle\nround PB 5\n"))
	f.Add([]byte("deal 3\nseed 1\n"))
	f.Add([]byte("noise ff 00 zz\nfault 7 jammed # comment\n"))
	f.Add([]byte("rules nc-insurance\ninsurance-pause 500ms\ndealer-confirms\nburn\nbets 1:banker:100 2:player:5\n" +
		"draw 4\ninsurance-bet 1:banker_insurance:50\nwait 1s\ninsurance-closed\nconfirm\nend-shoe\n"))
	f.Add([]byte("swap 1 2\nreport wrong_hand dealer the player's card\ndecide 1 continue supervisor\n" +
		"option 2 bet-returned dealer\noption 1 insurance-intended pit_manager player_insurance\n"))
	f.Add([]byte("protocol ascii\nbets\nrules royal\ninsurance-pause -1s\nbets 1:tie:0\nswap 3 3\n"))
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
		if sc.InsurancePause != nil && (*sc.InsurancePause < 0 || *sc.InsurancePause > time.Minute) {
			t.Fatalf("accepted an Insurance pause of %s", *sc.InsurancePause)
		}
		if sc.Rules != "" && !slices.Contains(baccarat.Names, sc.Rules) {
			t.Fatalf("accepted rule set %q", sc.Rules)
		}
		for _, st := range sc.Steps {
			if st.IsTableAction() && (st.Role == "" || !json.Valid(st.Command) || sc.Protocol != shoe.Tablectl) {
				t.Fatalf("table action on line %d: role %q, command %q, protocol %s", st.Line, st.Role, st.Command, sc.Protocol)
			}
		}
		for i, st := range sc.Steps {
			if st.Line < 1 || st.Line > lines || i > 0 && st.Line < sc.Steps[i-1].Line {
				t.Fatalf("step %d (%s) on line %d of %d, after line %d", i, st.Op, st.Line, lines, sc.Steps[max(i-1, 0)].Line)
			}
		}
	})
}
