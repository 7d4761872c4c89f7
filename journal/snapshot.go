package journal

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteSnapshot stores data as the state after record seq, replacing the previous
// snapshot. seq must be a record already synced, and not before the previous snapshot's.
// The file is written whole to a temporary file, synced, renamed into place and made
// durable by a directory sync: a power cut leaves either the old snapshot or the new one.
func (j *Journal) WriteSnapshot(seq uint64, data []byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.writable(); err != nil {
		return err
	}
	switch {
	case seq == 0 || seq > j.synced:
		return fmt.Errorf("journal: snapshot at record %d: want a synced record, 1 to %d", seq, j.synced)
	case j.hasSnap && seq < j.snapSeq:
		return fmt.Errorf("journal: snapshot at record %d: the current snapshot is already at record %d", seq, j.snapSeq)
	}
	h, err := j.hashAt(seq)
	if err != nil {
		return fmt.Errorf("journal: snapshot at record %d: %w", seq, err)
	}
	if err := j.writeFileAtomic(snapshotName, appendSnapshot(nil, seq, h, data, j.key), &j.stats.SnapshotBytes); err != nil {
		return fmt.Errorf("journal: write snapshot at record %d: %w", seq, err)
	}
	j.snapSeq, j.hasSnap = seq, true
	return nil
}

// Snapshot returns the current snapshot: the sequence number of the last record it
// covers and its data. ok is false when there is none, and when the journal does not use
// the one there (SnapshotReport.Ignored); a damaged snapshot file is a *CorruptError, and
// so is one changed since Open (another record, or a signature that no longer holds).
func (j *Journal) Snapshot() (seq uint64, data []byte, ok bool, err error) {
	j.mu.Lock()
	closed, has, want := j.closed, j.hasSnap, j.snapSeq
	j.mu.Unlock()
	if closed {
		return 0, nil, false, ErrClosed
	}
	if !has {
		return 0, nil, false, nil
	}
	b, err := os.ReadFile(filepath.Join(j.dir, snapshotName))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, false, nil
	}
	if err != nil {
		return 0, nil, false, fmt.Errorf("journal: read snapshot: %w", err)
	}
	sf, off, bad := parseSnapshot(b)
	switch {
	case bad != "":
		return 0, nil, false, &CorruptError{File: snapshotName, Offset: off, Reason: bad}
	case sf.seq != want:
		return 0, nil, false, &CorruptError{File: snapshotName, Offset: 8, Seq: sf.seq,
			Reason: fmt.Sprintf("snapshot covers records up to %d, but covered up to %d when the journal was opened (changed since Open)", sf.seq, want)}
	case j.pub != nil && sf.signed() && !sf.verify(j.pub):
		return 0, nil, false, &CorruptError{File: snapshotName, Offset: 80, Seq: sf.seq,
			Reason: "snapshot signature does not verify with the table's key (changed since Open)"}
	}
	return sf.seq, sf.data, true, nil
}

// SetSigningKey sets the key that signs the snapshots written from now on, for a journal
// opened before its table's key was made.
func (j *Journal) SetSigningKey(key ed25519.PrivateKey) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.key = key
	if key != nil {
		j.pub = key.Public().(ed25519.PublicKey)
	}
}

// hashAt returns the chain hash of record seq, read back from its segment unless it is the
// last record. The caller holds j.mu.
func (j *Journal) hashAt(seq uint64) (Hash, error) {
	if seq == j.next-1 {
		return j.head, nil
	}
	i := len(j.segs) - 1
	for i > 0 && j.segs[i].first > seq {
		i--
	}
	s := j.segs[i]
	end := j.next
	if i+1 < len(j.segs) {
		end = j.segs[i+1].first
	}
	var h Hash
	var failed error
	j.readSegment(s, end, seq, func(r Record, err error) bool {
		h, failed = r.Hash, err
		return false
	})
	return h, failed
}

// Compact removes the segment files whose records are all covered by the snapshot,
// oldest first, and returns how many it removed. The last segment is always kept.
// Records before the first remaining segment can no longer be read.
func (j *Journal) Compact() (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.writable(); err != nil {
		return 0, err
	}
	if !j.hasSnap {
		return 0, nil
	}
	removed := 0
	for len(j.segs) > 1 && j.segs[1].first <= j.snapSeq+1 {
		if err := os.Remove(filepath.Join(j.dir, j.segs[0].name)); err != nil {
			err = fmt.Errorf("journal: compact: %w", err)
			if removed > 0 {
				err = errors.Join(err, j.syncDir())
			}
			return removed, err
		}
		j.segs = j.segs[1:]
		removed++
	}
	if removed > 0 {
		if err := j.syncDir(); err != nil {
			return removed, fmt.Errorf("journal: compact: %w", err)
		}
		j.log.Info("journal: compacted", "removed", removed, "first", j.segs[0].first)
	}
	return removed, nil
}

// SnapshotVerifies reports whether the snapshot file carries a signature that verifies
// with pub. A journal opened without a key reads any snapshot; this checks it afterwards,
// against each key a journal was signed with over its years.
func (j *Journal) SnapshotVerifies(pub ed25519.PublicKey) (bool, error) {
	b, err := os.ReadFile(filepath.Join(j.dir, snapshotName))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("journal: read snapshot: %w", err)
	}
	sf, off, bad := parseSnapshot(b)
	if bad != "" {
		return false, &CorruptError{File: snapshotName, Offset: off, Reason: bad}
	}
	return sf.verify(pub), nil
}
