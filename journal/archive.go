package journal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ArchiveReport says what Archive moved.
type ArchiveReport struct {
	// Segments are the segment files moved, oldest first.
	Segments []string
	// FirstSeq and LastSeq are the records they hold (both 0 when nothing was moved).
	FirstSeq, LastSeq uint64
	// Bytes is their size.
	Bytes int64
}

// Archive moves sealed segments of the journal in dir to the directory dest, oldest
// first, so that a table's storage does not fill: each segment whose records all come at
// or before record upTo and are covered by the snapshot, never the last segment. Before a
// segment is moved, every record of it is checked (checksums, sequence numbers and hash
// chain) and its chain is checked into the segment after it; its copy in dest is written,
// synced and read back before the original is removed. The archive is a journal
// directory in its own right (`tablectl journal verify DEST`), and the journal left
// behind still opens: its snapshot stands for the records moved, and its first segment's
// chain-in is the archive's last chain hash.
//
// Archive may run beside the table: it takes no lock and moves only segments the table no
// longer writes or reads (those before the snapshot's).
func Archive(dir, dest string, upTo uint64) (ArchiveReport, error) {
	var ar ArchiveReport
	j, _, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		return ar, fmt.Errorf("journal archive: %w", err)
	}
	defer j.Close()
	j.mu.Lock()
	segs, hasSnap, snapSeq := append([]segment(nil), j.segs...), j.hasSnap, j.snapSeq
	j.mu.Unlock()
	if !hasSnap {
		return ar, errors.New("journal archive: the journal has no snapshot: nothing is covered, nothing can be moved")
	}
	if err := os.MkdirAll(dest, 0o750); err != nil {
		return ar, fmt.Errorf("journal archive: %w", err)
	}
	if err := checkArchiveDest(dest, segs); err != nil {
		return ar, err
	}
	for i := 0; i+1 < len(segs); i++ {
		s, next := segs[i], segs[i+1]
		last := next.first - 1
		if last > upTo || last > snapSeq {
			break
		}
		// Check every record of the segment and that it chains into the next one.
		var head Hash
		for r, err := range j.readRange(s, next.first) {
			if err != nil {
				return ar, fmt.Errorf("journal archive: %s: %w", s.name, err)
			}
			head = r.Hash
		}
		if s.version != formatV1 && next.version != formatV1 && head != next.chainIn {
			return ar, &CorruptError{File: next.name, Offset: 16, Seq: next.first,
				Reason: fmt.Sprintf("segment does not chain: its chain-in is not the hash of record %d in %s", last, s.name)}
		}
		if err := moveFile(filepath.Join(dir, s.name), filepath.Join(dest, s.name), s.size); err != nil {
			return ar, fmt.Errorf("journal archive: move %s: %w", s.name, err)
		}
		if ar.FirstSeq == 0 {
			ar.FirstSeq = s.first
		}
		ar.LastSeq, ar.Bytes = last, ar.Bytes+s.size
		ar.Segments = append(ar.Segments, s.name)
	}
	if len(ar.Segments) > 0 {
		if err := errors.Join(syncDir(dest), syncDir(dir)); err != nil {
			return ar, fmt.Errorf("journal archive: %w", err)
		}
	}
	return ar, nil
}

// checkArchiveDest refuses a destination that holds segments which do not end where the
// journal's first segment starts: an archive grows at its end only.
func checkArchiveDest(dest string, segs []segment) error {
	have, _, _, err := listDir(dest)
	if err != nil || len(have) == 0 || len(segs) == 0 {
		return err
	}
	d, _, err := openDir(dest, Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("journal archive: the archive in %s: %w", dest, err)
	}
	defer d.Close()
	if d.next != segs[0].first {
		return fmt.Errorf("journal archive: the archive in %s ends at record %d, but the journal starts at record %d",
			dest, d.next-1, segs[0].first)
	}
	return nil
}

// readRange reads the records of segment s up to (not including) end, checked as Records
// checks them.
func (j *Journal) readRange(s segment, end uint64) func(func(Record, error) bool) {
	return func(yield func(Record, error) bool) { j.readSegment(s, end, s.first, yield) }
}

// moveFile copies the first size bytes of from to a new file to, syncs it, reads it back
// and compares, then removes from.
func moveFile(from, to string, size int64) error {
	b, err := readPrefix(from, size)
	if err != nil {
		return err
	}
	if _, err := os.Stat(to); err == nil {
		return fmt.Errorf("%s exists already", to)
	}
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.Join(err, os.Remove(to))
	}
	back, err := os.Open(to)
	if err != nil {
		return err
	}
	got, err := io.ReadAll(back)
	back.Close()
	if err != nil {
		return err
	}
	if string(got) != string(b) {
		return fmt.Errorf("the copy in %s does not read back as written", to)
	}
	return os.Remove(from)
}
