package journal

import (
	"crypto/ed25519"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// archivedJournal writes 12 records in segments of three with a snapshot at record 8 and
// a checkpoint at the end, and returns its directory.
func archivedJournal(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{SegmentSize: 440})
	appendAll(t, j, 1, 12)
	if err := j.WriteSnapshot(8, []byte("state after 8")); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Checkpoint(testKey(7)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	return dir
}

// TestArchive moves sealed, snapshot-covered segments out in two steps; the journal left
// opens and reads on from the snapshot, the archive opens as a journal of its own, and
// together they hold every record once, chained.
func TestArchive(t *testing.T) {
	t.Parallel()
	dir := archivedJournal(t)
	dest := filepath.Join(t.TempDir(), "archive")

	ar, err := Archive(dir, dest, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ar.Segments) != 1 || ar.FirstSeq != 1 || ar.LastSeq != 3 {
		t.Fatalf("first archive: %+v", ar)
	}
	// Up to record 10 asks for more than the snapshot covers: only 4 to 6 go.
	if ar, err = Archive(dir, dest, 10); err != nil || len(ar.Segments) != 1 || ar.FirstSeq != 4 || ar.LastSeq != 6 {
		t.Fatalf("second archive: %+v %v", ar, err)
	}

	j, rep := mustOpen(t, dir, Options{})
	if rep.FirstSeq != 7 || rep.LastSeq != 12 {
		t.Fatalf("journal left: records %d to %d", rep.FirstSeq, rep.LastSeq)
	}
	checkRecords(t, readAll(t, j, 7), 7, 12)
	heads, err := j.Checkpoints()
	if err != nil {
		t.Fatal(err)
	}
	probs, elsewhere, err := j.CheckHeads(testKey(7).Public().(ed25519.PublicKey), "heads", heads)
	if err != nil || len(probs) != 0 || elsewhere != 0 {
		t.Fatalf("heads after archiving: %v %d %v", probs, elsewhere, err)
	}
	firstChainIn := j.segs[0].chainIn
	j.Close()

	a, arep := mustOpen(t, dest, Options{ReadOnly: true})
	defer a.Close()
	checkRecords(t, readAll(t, a, 1), 1, 6)
	if arep.Head != firstChainIn {
		t.Fatalf("the archive's head %s is not the journal's chain-in %s", arep.Head, firstChainIn)
	}
}

func TestArchiveRefuses(t *testing.T) {
	t.Parallel()
	dir := archivedJournal(t)
	files := dirFiles(t, dir)

	// Damage inside a segment that would be moved: nothing is moved.
	damaged := maps.Clone(files)
	first := []byte(string(files[segmentName(1)]))
	first[segmentHeaderSize+recordHeaderSize+5] ^= 0x01
	reframe(first[segmentHeaderSize : segmentHeaderSize+recordHeaderSize+len(payload(1))])
	damaged[segmentName(1)] = first
	ddir := writeDir(t, damaged)
	if _, err := Archive(ddir, filepath.Join(t.TempDir(), "a"), 10); err == nil || !strings.Contains(err.Error(), "does not chain") {
		t.Fatalf("damaged segment: %v", err)
	}
	sameFiles(t, ddir, damaged, "damaged journal")

	// No snapshot: nothing is covered.
	noSnap := maps.Clone(files)
	delete(noSnap, snapshotName)
	if _, err := Archive(writeDir(t, noSnap), filepath.Join(t.TempDir(), "a"), 10); err == nil || !strings.Contains(err.Error(), "no snapshot") {
		t.Fatalf("no snapshot: %v", err)
	}

	// An archive that does not end where the journal starts.
	dest := filepath.Join(t.TempDir(), "a")
	if _, err := Archive(dir, dest, 3); err != nil {
		t.Fatal(err)
	}
	other := archivedJournal(t)
	if _, err := Archive(other, dest, 6); err == nil || !strings.Contains(err.Error(), "ends at record 3, but the journal starts at record 1") {
		t.Fatalf("wrong archive: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, segmentName(1))); err != nil {
		t.Fatalf("a segment was moved to the wrong archive: %v", err)
	}
}
