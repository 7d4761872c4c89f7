package table

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tablectl/tablectl/api"
)

// TestNoteArchive: the status carries the archive's lag; it is asked for again when the
// archive becomes late or is no longer, and when it holds everything after a status said
// it did not; not at every change of the lag.
func TestNoteArchive(t *testing.T) {
	j := openJournal(t, t.TempDir())
	defer j.Close()
	h, err := start(testConfig("classic"), j)
	if err != nil {
		t.Fatal(err)
	}
	statuses := func() []string {
		t.Helper()
		var out []string
		for _, m := range h.Ready().Messages {
			if m.Topic != api.TopicStatus {
				continue
			}
			var s api.Status
			if err := json.Unmarshal(m.Payload, &s); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%+v", *s.Archive))
		}
		h.Advance()
		return out
	}
	step := func(held, behind uint64, late bool, want ...string) {
		t.Helper()
		lag := api.ArchiveLag{Held: held, Behind: behind}
		if behind > 0 {
			lag.Since = t0
		}
		h.NoteArchive(&lag, late, t0)
		if got := statuses(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("held %d behind %d late %v: statuses %q, want %q", held, behind, late, got, want)
		}
	}
	h.SetArchive(&api.ArchiveLag{Held: 4}, t0)
	statuses()
	step(4, 2, false)
	step(6, 0, false)
	step(6, 3, false)
	step(6, 5, true, fmt.Sprintf("%+v", api.ArchiveLag{Held: 6, Behind: 5, Since: t0}))
	step(9, 2, true)
	step(11, 0, false, fmt.Sprintf("%+v", api.ArchiveLag{Held: 11}))
	// A status asked for another reason while the archive was behind is made good.
	step(11, 1, false)
	h.status(t0) // a status for another reason
	if got, want := statuses(), fmt.Sprintf("%+v", api.ArchiveLag{Held: 11, Behind: 1, Since: t0}); len(got) != 1 || got[0] != want {
		t.Fatalf("statuses %q, want %q", got, want)
	}
	step(12, 0, false, fmt.Sprintf("%+v", api.ArchiveLag{Held: 12}))
	step(12, 0, false)
}
