package journal

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The fault-injection tests: a torn write can leave any prefix of the last records, and
// a damaged card can change any byte. Each case must be recovered or reported exactly as
// docs/journal.md specifies, never panic, never lose a record before the damage and never
// return a record that was not written.

// TestTruncateAtEveryOffset cuts a copy of the last segment at every byte offset (its
// header included) and opens it: a cut inside a record is a torn tail that Open truncates
// and reports, keeping every whole record before it; a cut on a record boundary is a clean
// end; a cut inside the segment header is corruption.
func TestTruncateAtEveryOffset(t *testing.T) {
	t.Parallel()
	files, lay := buildJournal(t, 12, 440)
	lastFile := lay[len(lay)-1].file
	if lastFile == segmentName(1) || lay[len(lay)-3].file != lastFile {
		t.Fatal("the test journal should span several segments, the last one holding at least 3 records")
	}
	full := files[lastFile]
	sc := newScratchDir(t)
	for cut := 0; cut < len(full); cut++ {
		cutFiles := maps.Clone(files)
		cutFiles[lastFile] = full[:cut]

		// Whole records that survive the cut, and the partial one it leaves.
		kept, tornAt := 0, int64(-1)
		for _, l := range lay {
			if l.file != lastFile || l.end <= int64(cut) {
				kept = int(l.seq)
			} else if l.start < int64(cut) {
				tornAt = l.start
			}
		}

		// Read-only: reported, nothing changed.
		dir := sc.put(cutFiles)
		j, rep, err := Open(dir, Options{ReadOnly: true})
		if cut < segmentHeaderSize {
			ce := asCorrupt(t, err, "cut in the header")
			if ce.File != lastFile || ce.Offset != 0 {
				t.Fatalf("cut at %d: got %+v, want damage at %s byte 0", cut, ce, lastFile)
			}
			if rep.Records != countBefore(lay, lastFile) {
				t.Fatalf("cut at %d: report lost records before the damage: %+v", cut, rep)
			}
			sameFiles(t, dir, cutFiles, "corrupt, read-only")
			if _, _, err := Open(dir, Options{}); err == nil {
				t.Fatalf("cut at %d: Open for writing accepted a cut segment header", cut)
			}
			sameFiles(t, dir, cutFiles, "corrupt, writable")
			continue
		}
		if err != nil {
			t.Fatalf("cut at %d: read-only Open: %v", cut, err)
		}
		checkTorn(t, rep.Torn, lastFile, tornAt, int64(cut)-tornAt, false)
		checkRecords(t, readAll(t, j, 1), 1, kept)
		sameFiles(t, dir, cutFiles, "read-only open with a torn tail")
		j.Close()

		// Writable: truncated to the last whole record, then appending goes on.
		sc.changed()
		j, rep = mustOpen(t, dir, Options{SegmentSize: 300})
		checkTorn(t, rep.Torn, lastFile, tornAt, int64(cut)-tornAt, true)
		if rep.LastSeq != uint64(kept) || rep.NextSeq != uint64(kept+1) {
			t.Fatalf("cut at %d: report says last %d next %d, want %d %d", cut, rep.LastSeq, rep.NextSeq, kept, kept+1)
		}
		wantSize := int64(cut)
		if tornAt >= 0 {
			wantSize = tornAt
		}
		if st, err := os.Stat(filepath.Join(dir, lastFile)); err != nil || st.Size() != wantSize {
			t.Fatalf("cut at %d: after Open the segment has %v bytes (%v), want %d", cut, st.Size(), err, wantSize)
		}
		appendAll(t, j, kept+1, kept+2)
		j.Close()
		j, rep = mustOpen(t, dir, Options{SegmentSize: 300})
		if rep.Torn != nil {
			t.Fatalf("cut at %d: torn tail again after repair: %+v", cut, rep.Torn)
		}
		checkRecords(t, readAll(t, j, 1), 1, kept+2)
		j.Close()
	}
}

// TestFlipEveryByte changes one byte of a copy of a small journal at every offset of
// every segment, with three different bit masks (with -short, one of them in turn: the
// emulated ARM tests take that). Damage in the last record of the last
// segment is a torn tail; damage anywhere else is a *CorruptError naming the file, the
// byte where the damaged record (or header) starts and its sequence number, with nothing
// changed on disk.
func TestFlipEveryByte(t *testing.T) {
	t.Parallel()
	files, lay := buildJournal(t, 9, 440)
	names := slices.Sorted(maps.Keys(files))
	if len(names) < 3 {
		t.Fatalf("the test journal should span at least 3 segments, has %v", names)
	}
	last := lay[len(lay)-1]
	if lay[len(lay)-3].file != last.file {
		t.Fatal("the last segment should hold at least 3 records, so that damage before its last record is tested")
	}
	cases := 0
	sc := newScratchDir(t)
	for _, name := range names {
		for off := range files[name] {
			masks := []byte{0x01, 0x80, 0xff}
			if testing.Short() {
				masks = masks[off%3 : off%3+1]
			}
			for _, mask := range masks {
				cases++
				damaged := maps.Clone(files)
				b := slices.Clone(files[name])
				b[off] ^= mask
				damaged[name] = b
				checkFlip(t, sc, damaged, lay, last, name, int64(off), mask)
			}
		}
	}
	t.Logf("%d damaged journals checked", cases)
}

func checkFlip(t *testing.T, sc *scratchDir, files map[string][]byte, lay []layout, last layout, name string, off int64, mask byte) {
	t.Helper()
	var hit layout
	inHeader := off < segmentHeaderSize
	for _, l := range lay {
		if l.file == name && l.start <= off && off < l.end {
			hit = l
		}
	}
	for _, readOnly := range []bool{true, false} {
		dir := sc.put(files)
		j, rep, err := Open(dir, Options{ReadOnly: readOnly, SegmentSize: 300})
		if !inHeader && hit == last {
			if err != nil {
				t.Fatalf("%s byte %d ^%#x (last record), read-only %v: %v", name, off, mask, readOnly, err)
			}
			checkTorn(t, rep.Torn, name, last.start, last.end-last.start, !readOnly)
			checkRecords(t, readAll(t, j, 1), 1, int(last.seq)-1)
			if !readOnly {
				if seq, err := j.Append(payload(int(last.seq))); err != nil || seq != last.seq {
					t.Fatalf("%s byte %d: append after repair: %d %v", name, off, seq, err)
				}
			}
			j.Close()
			if readOnly {
				sameFiles(t, dir, files, "read-only open with a torn tail")
			} else {
				sc.changed() // repaired and appended to
			}
			continue
		}
		ce := asCorrupt(t, err, "flip")
		want := CorruptError{File: name}
		if !inHeader {
			want.Offset, want.Seq = hit.start, hit.seq
		}
		if ce.File != want.File || ce.Offset != want.Offset || ce.Seq != want.Seq {
			t.Fatalf("%s byte %d ^%#x, read-only %v: got %v, want damage at %s byte %d record %d",
				name, off, mask, readOnly, ce, want.File, want.Offset, want.Seq)
		}
		// Every record before the damage was found.
		before := uint64(countBefore(lay, name))
		if !inHeader {
			before = hit.seq - 1
		}
		if rep.Records != int(before) || (before > 0 && rep.LastSeq != before) {
			t.Fatalf("%s byte %d: report has %d records up to %d, want %d", name, off, rep.Records, rep.LastSeq, before)
		}
		sameFiles(t, dir, files, "corrupt journal")
	}
}

// TestFlipEverySnapshotByte damages the snapshot file at every offset: Open and
// Snapshot both report a *CorruptError naming it, and nothing changes on disk.
func TestFlipEverySnapshotByte(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{})
	appendAll(t, j, 1, 3)
	if err := j.WriteSnapshot(2, []byte(`{"shoe":"A17","round":2}`)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	files := dirFiles(t, dir)
	snap := files[snapshotName]
	for off := range snap {
		damaged := maps.Clone(files)
		b := slices.Clone(snap)
		b[off] ^= 0x10
		damaged[snapshotName] = b
		ddir := writeDir(t, damaged)
		_, _, err := Open(ddir, Options{})
		if ce := asCorrupt(t, err, "snapshot flip"); ce.File != snapshotName {
			t.Fatalf("snapshot byte %d: damage reported in %s", off, ce.File)
		}
		sameFiles(t, ddir, damaged, "damaged snapshot")
	}
}

func checkTorn(t *testing.T, torn *TornTail, file string, offset, bytes int64, truncated bool) {
	t.Helper()
	if offset < 0 {
		if torn != nil {
			t.Fatalf("clean end reported as a torn tail: %+v", torn)
		}
		return
	}
	if torn == nil {
		t.Fatalf("no torn tail reported, want one at %s byte %d", file, offset)
	}
	if torn.File != file || torn.Offset != offset || torn.Bytes != bytes || torn.Truncated != truncated || torn.Reason == "" {
		t.Fatalf("torn tail %+v, want %s at byte %d, %d bytes, truncated %v", torn, file, offset, bytes, truncated)
	}
}

// countBefore is the number of records in the segments before file.
func countBefore(lay []layout, file string) int {
	n := 0
	for _, l := range lay {
		if l.file < file {
			n++
		}
	}
	return n
}
