package journal

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// payload is the i-th test record: a card event's JSON, of varying length.
func payload(i int) []byte {
	cards := []string{"TH", "AS", "9D", "KC", "5H", "QS", "2C"}
	return fmt.Appendf(nil, `{"kind":"card","at":"2026-03-01T20:15:%02d.%dZ","card":"%s","seq":%d}`,
		i%60, i*7919%1000, cards[i%len(cards)], i)
}

// mustOpen opens dir for writing and fails the test on any error.
func mustOpen(t testing.TB, dir string, opt Options) (*Journal, Report) {
	t.Helper()
	j, rep, err := Open(dir, opt)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return j, rep
}

// appendAll appends payload(first) to payload(last) and fails the test on any error or
// on a sequence number other than the payload's index.
func appendAll(t testing.TB, j *Journal, first, last int) {
	t.Helper()
	for i := first; i <= last; i++ {
		seq, err := j.Append(payload(i))
		if err != nil {
			t.Fatalf("Append(%d): %v", i, err)
		}
		if seq != uint64(i) {
			t.Fatalf("Append(%d) got sequence number %d", i, seq)
		}
	}
}

// readAll returns every record from sequence number from, failing the test on an error.
func readAll(t testing.TB, j *Journal, from uint64) []Record {
	t.Helper()
	var recs []Record
	for r, err := range j.Records(from) {
		if err != nil {
			t.Fatalf("Records(%d): %v", from, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// checkRecords fails the test unless recs are exactly payload(first) to payload(last).
func checkRecords(t testing.TB, recs []Record, first, last int) {
	t.Helper()
	if got, want := len(recs), last-first+1; got != want {
		t.Fatalf("got %d records, want %d (%d to %d)", got, want, first, last)
	}
	for k, r := range recs {
		i := first + k
		if r.Seq != uint64(i) || string(r.Data) != string(payload(i)) {
			t.Fatalf("record %d: got seq %d %q, want seq %d %q", k, r.Seq, r.Data, i, payload(i))
		}
	}
}

// dirFiles returns the contents of every file in dir by name.
func dirFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := make(map[string][]byte)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// writeDir writes files into a new temporary directory and returns it.
func writeDir(t testing.TB, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// scratchDir is one directory that holds a journal's files for one case after another,
// so that a case costs the files it changes rather than a directory of its own.
type scratchDir struct {
	t    testing.TB
	dir  string
	held map[string][]byte // what dir holds; nil when something other than put may have changed it
}

func newScratchDir(t testing.TB) *scratchDir {
	return &scratchDir{t: t, dir: t.TempDir(), held: map[string][]byte{}}
}

// put makes the directory hold exactly files, writing only the files that differ from
// what it holds and removing the others, and returns it.
func (s *scratchDir) put(files map[string][]byte) string {
	s.t.Helper()
	if s.held == nil {
		s.held = dirFiles(s.t, s.dir)
	}
	for name := range s.held {
		if _, ok := files[name]; !ok {
			if err := os.Remove(filepath.Join(s.dir, name)); err != nil {
				s.t.Fatal(err)
			}
		}
	}
	for name, b := range files {
		if old, ok := s.held[name]; ok && bytes.Equal(old, b) {
			continue
		}
		if err := os.WriteFile(filepath.Join(s.dir, name), b, 0o640); err != nil {
			s.t.Fatal(err)
		}
	}
	s.held = maps.Clone(files)
	return s.dir
}

// changed says that the directory may no longer hold what put last wrote: the next put
// reads it first.
func (s *scratchDir) changed() { s.held = nil }

// sameFiles fails the test unless dir holds exactly files.
func sameFiles(t testing.TB, dir string, files map[string][]byte, what string) {
	t.Helper()
	got := dirFiles(t, dir)
	if !maps.EqualFunc(got, files, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Fatalf("%s: the directory changed: files %v, were %v", what, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(files)))
	}
}

// asCorrupt returns err as a *CorruptError, failing the test when it is not one.
func asCorrupt(t testing.TB, err error, what string) *CorruptError {
	t.Helper()
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("%s: got error %v, want a *CorruptError", what, err)
	}
	return ce
}

// layout is where each record of a journal built by buildJournal lies.
type layout struct {
	file       string
	start, end int64
	seq        uint64
}

// buildJournal writes records payload(1) to payload(n) with segment size segSize into a
// new directory, closes it, and returns the directory's files and each record's place,
// computed from the documented format rather than read back.
func buildJournal(t testing.TB, n int, segSize int64) (map[string][]byte, []layout) {
	t.Helper()
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{SegmentSize: segSize})
	appendAll(t, j, 1, n)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	var lay []layout
	file, off := segmentName(1), int64(segmentHeaderSize)
	for i := 1; i <= n; i++ {
		size := int64(recordHeaderSize + len(payload(i)))
		if off > segmentHeaderSize && off+size > segSize {
			file, off = segmentName(uint64(i)), segmentHeaderSize
		}
		lay = append(lay, layout{file: file, start: off, end: off + size, seq: uint64(i)})
		off += size
	}
	files := dirFiles(t, dir)
	for _, l := range lay {
		if int64(len(files[l.file])) < l.end {
			t.Fatalf("record %d should end at byte %d of %s, which has %d bytes", l.seq, l.end, l.file, len(files[l.file]))
		}
	}
	return files, lay
}

// unchainedRecord is the framed record payload(i) with sequence number i, chained after a
// zero hash: whole and with a good checksum, but not chained to any real journal.
func unchainedRecord(i int) []byte {
	b, _ := appendRecord(nil, uint64(i), Hash{}, payload(i))
	return b
}
