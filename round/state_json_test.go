package round

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStateKeepsSnapshotNames: the card numbers kept in State are written and read under
// the names snapshots have always given them (LastSeq, Seqs), so a table restarts from a
// snapshot written before their fields were named for card numbers.
func TestStateKeepsSnapshotNames(t *testing.T) {
	var st State
	if err := json.Unmarshal([]byte(`{"Phase":"dealing","LastSeq":41,"Seqs":[37,38,39,40,0,0]}`), &st); err != nil {
		t.Fatal(err)
	}
	if st.LastCardNo != 41 || st.CardNos != [6]uint64{37, 38, 39, 40, 0, 0} {
		t.Errorf("read LastCardNo %d, CardNos %v: want 41 and [37 38 39 40 0 0]", st.LastCardNo, st.CardNos)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"LastSeq":41`, `"Seqs":[37,38,39,40,0,0]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("snapshot state %s: want %s", b, want)
		}
	}
}
