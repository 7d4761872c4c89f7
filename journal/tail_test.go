package journal

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTailFollowsTheJournal: a Tail yields every record once, in order, across
// segments, as the journal grows; it stops at upTo and where yield stops; Seek moves it
// back; a record changed on disk is a CorruptError.
func TestTailFollowsTheJournal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{SegmentSize: 200})
	defer j.Close()
	tl := j.Tail(0)
	var got []Record
	collect := func(upTo uint64) {
		t.Helper()
		if err := tl.Read(upTo, func(r Record) bool { got = append(got, r); return true }); err != nil {
			t.Fatal(err)
		}
	}
	collect(100) // nothing yet
	appendAll(t, j, 1, 7)
	collect(5)
	checkRecords(t, got, 1, 5)
	appendAll(t, j, 8, 30)
	collect(1 << 62)
	checkRecords(t, got, 1, 30)
	want := readAll(t, j, 1)
	for i := range want {
		if got[i].Hash != want[i].Hash {
			t.Fatalf("record %d: hash %s, Records gives %s", i+1, got[i].Hash, want[i].Hash)
		}
	}
	if tl.Next() != 31 {
		t.Fatalf("next %d, want 31", tl.Next())
	}
	// yield stopping: the Tail stands after the last record yielded.
	tl.Seek(12)
	got = nil
	n := 0
	if err := tl.Read(1<<62, func(r Record) bool { got = append(got, r); n++; return n < 3 }); err != nil {
		t.Fatal(err)
	}
	checkRecords(t, got, 12, 14)
	collect(20)
	checkRecords(t, got, 12, 20)
	// A record changed on disk since Open.
	segs, _, _, err := listDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	last := filepath.Join(dir, segmentName(segs[len(segs)-1]))
	b, _ := os.ReadFile(last)
	b[len(b)-2] ^= 1
	if err := os.WriteFile(last, b, 0o640); err != nil {
		t.Fatal(err)
	}
	tl.Seek(1)
	err = tl.Read(1<<62, func(Record) bool { return true })
	asCorrupt(t, err, "a changed record")
}
