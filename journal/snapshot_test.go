package journal

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"maps"
	"path/filepath"
	"strings"
	"testing"
)

// forgeSnapshot edits a format 3 snapshot's data as a person with docs/journal.md in
// hand would: old replaced by new, the SHA-256 and the checksum recomputed. Only the
// signature, made with the table's key, still tells.
func forgeSnapshot(t *testing.T, snap []byte, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(snap, []byte(old)) {
		t.Fatalf("snapshot %q holds no %q", snap, old)
	}
	b := bytes.Replace(bytes.Clone(snap), []byte(old), []byte(new), 1)
	data := b[snapshotHeaderSize:]
	binary.LittleEndian.PutUint64(b[144:152], uint64(len(data)))
	d := sha256.Sum256(data)
	copy(b[48:80], d[:])
	binary.LittleEndian.PutUint32(b[152:156], crc32.Update(crc32.Checksum(b[:152], castagnoli), castagnoli, data))
	return b
}

// signedSnapshotJournal writes 6 records in segments of three, a snapshot signed with key
// at record 4 and a checkpoint at the end.
func signedSnapshotJournal(t *testing.T, key ed25519.PrivateKey) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{SegmentSize: 440, SigningKey: key})
	appendAll(t, j, 1, 6)
	if err := j.WriteSnapshot(4, []byte(`{"state":{"Shoe":1,"Round":50}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Checkpoint(key); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return dirFiles(t, dir)
}

// TestForgedSnapshotIsNeverUsed: a snapshot whose data was edited with its SHA-256 and
// checksum made good again is refused by its signature: the journal opened with the
// table's key says why and does not hand it out, so the records are replayed instead.
// Opened without a key, nothing can tell it from the table's own.
func TestForgedSnapshotIsNeverUsed(t *testing.T) {
	t.Parallel()
	key := testKey(11)
	files := signedSnapshotJournal(t, key)

	j, rep := mustOpen(t, writeDir(t, files), Options{ReadOnly: true, PublicKey: key.Public().(ed25519.PublicKey)})
	if s := rep.Snapshot; s == nil || !s.Signed || !s.Verified || s.Ignored != "" {
		t.Fatalf("the table's own snapshot: %+v", rep.Snapshot)
	}
	if seq, data, ok, err := j.Snapshot(); !ok || err != nil || seq != 4 || !strings.Contains(string(data), `"Shoe":1`) {
		t.Fatalf("Snapshot() = %d %q %v %v", seq, data, ok, err)
	}
	j.Close()

	forged := maps.Clone(files)
	forged[snapshotName] = forgeSnapshot(t, files[snapshotName], `"Shoe":1`, `"Shoe":7`)
	for _, opt := range []Options{{ReadOnly: true, PublicKey: key.Public().(ed25519.PublicKey)}, {SigningKey: key}} {
		j, rep := mustOpen(t, writeDir(t, forged), opt)
		if s := rep.Snapshot; s == nil || !s.Signed || s.Verified || !strings.Contains(s.Ignored, "signature does not verify") {
			t.Fatalf("forged snapshot: %+v", rep.Snapshot)
		}
		if _, data, ok, err := j.Snapshot(); ok || err != nil {
			t.Fatalf("the forged snapshot is handed out: %q %v", data, err)
		}
		checkRecords(t, readAll(t, j, 1), 1, 6)
		if !opt.ReadOnly {
			// A new snapshot may be written, at any record: the forged one stands for none.
			if err := j.WriteSnapshot(2, []byte(`{"state":{"Shoe":1,"Round":49}}`)); err != nil {
				t.Fatal(err)
			}
			if seq, _, ok, err := j.Snapshot(); !ok || err != nil || seq != 2 {
				t.Fatalf("after a new snapshot: %d %v %v", seq, ok, err)
			}
		}
		j.Close()
	}
	// Without the key the signature cannot be checked: the data's SHA-256 holds.
	j, rep = mustOpen(t, writeDir(t, forged), Options{ReadOnly: true})
	if s := rep.Snapshot; s == nil || !s.Signed || s.Verified || s.Ignored != "" {
		t.Fatalf("forged snapshot opened without a key: %+v", rep.Snapshot)
	}
	j.Close()

	// Signed with another key: not the table's.
	other := signedSnapshotJournal(t, testKey(12))
	j, rep = mustOpen(t, writeDir(t, other), Options{ReadOnly: true, PublicKey: key.Public().(ed25519.PublicKey)})
	if rep.Snapshot.Verified || rep.Snapshot.Ignored == "" {
		t.Fatalf("a snapshot signed with another key: %+v", rep.Snapshot)
	}
	j.Close()

	// The data edited, only the checksum fixed: the SHA-256 no longer holds, whatever key.
	crcOnly := maps.Clone(files)
	b := bytes.Replace(bytes.Clone(files[snapshotName]), []byte(`"Shoe":1`), []byte(`"Shoe":7`), 1)
	binary.LittleEndian.PutUint32(b[152:156], crc32.Update(crc32.Checksum(b[:152], castagnoli), castagnoli, b[snapshotHeaderSize:]))
	crcOnly[snapshotName] = b
	if ce := openDamaged(t, crcOnly, "data edited, checksum fixed"); ce.File != snapshotName || ce.Offset != 48 ||
		!strings.Contains(ce.Reason, "SHA-256") {
		t.Fatalf("data edited, checksum fixed: %v", ce)
	}
}

// TestUnsignedSnapshot: with the table's key, a snapshot written without one (as before
// snapshots were signed) is not used while its records are all there; once they are
// archived it is the only account of them and is used.
func TestUnsignedSnapshot(t *testing.T) {
	t.Parallel()
	key := testKey(13)
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{SegmentSize: 440})
	appendAll(t, j, 1, 12)
	if err := j.WriteSnapshot(8, []byte("state after 8")); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Checkpoint(key); err != nil {
		t.Fatal(err)
	}
	j.Close()

	j, rep := mustOpen(t, dir, Options{ReadOnly: true, PublicKey: key.Public().(ed25519.PublicKey)})
	if s := rep.Snapshot; s.Signed || !strings.Contains(s.Ignored, "unsigned") {
		t.Fatalf("unsigned snapshot: %+v", s)
	}
	if _, _, ok, _ := j.Snapshot(); ok {
		t.Fatal("an unsigned snapshot is used")
	}
	j.Close()

	if _, err := Archive(dir, filepath.Join(t.TempDir(), "archive"), 6); err != nil {
		t.Fatal(err)
	}
	j, rep = mustOpen(t, dir, Options{ReadOnly: true, PublicKey: key.Public().(ed25519.PublicKey)})
	defer j.Close()
	if s := rep.Snapshot; s.Ignored != "" || rep.FirstSeq != 7 {
		t.Fatalf("unsigned snapshot standing for archived records: %+v, first record %d", s, rep.FirstSeq)
	}
	if seq, _, ok, err := j.Snapshot(); !ok || err != nil || seq != 8 {
		t.Fatalf("Snapshot() = %d %v %v", seq, ok, err)
	}
}

// TestForgedSnapshotOfArchivedRecords: a forged snapshot standing for archived records
// cannot be passed over, so the journal is refused, naming it.
func TestForgedSnapshotOfArchivedRecords(t *testing.T) {
	t.Parallel()
	key := testKey(14)
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{SegmentSize: 440, SigningKey: key})
	appendAll(t, j, 1, 12)
	if err := j.WriteSnapshot(8, []byte(`{"state":{"Shoe":1}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Checkpoint(key); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if _, err := Archive(dir, filepath.Join(t.TempDir(), "archive"), 6); err != nil {
		t.Fatal(err)
	}
	files := dirFiles(t, dir)
	files[snapshotName] = forgeSnapshot(t, files[snapshotName], `"Shoe":1`, `"Shoe":7`)
	_, _, err := Open(writeDir(t, files), Options{ReadOnly: true, PublicKey: key.Public().(ed25519.PublicKey)})
	if ce := asCorrupt(t, err, "forged snapshot of archived records"); ce.File != snapshotName ||
		!strings.Contains(ce.Reason, "archived") || !strings.Contains(ce.Reason, "signature does not verify") {
		t.Fatalf("got %v", ce)
	}
}
