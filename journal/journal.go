// Package journal is the table's durable append-only log: opaque records, each framed
// with its length, a CRC32C checksum and a sequence number, appended to segment files and
// synced to disk before Append returns; plus one snapshot file written by the
// temporary-file, sync, rename and directory-sync sequence. Open tells a torn tail left by
// a power cut (truncated and reported) from corruption (a *CorruptError, nothing
// skipped). It knows nothing of baccarat: the controller stores each event's encoding.
// docs/journal.md describes the format and the guarantees.
package journal

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Journal is an open journal. Its methods are safe for concurrent use.
//
// After a failed write or sync the state of the file on disk is unknown, so the Journal
// refuses every later write with the same error: close it and Open the directory again,
// which repairs a torn tail.
type Journal struct {
	dir      string
	opt      Options
	log      *slog.Logger
	readOnly bool
	lock     *dirLock           // held while open for writing: one writer at a time
	key      ed25519.PrivateKey // signs snapshots (nil: unsigned)
	pub      ed25519.PublicKey  // checks the snapshot's signature (nil: not checked)

	mu      sync.Mutex
	segs    []segment
	f       *os.File // the last segment, open for appending (nil when read-only)
	next    uint64   // sequence number of the next record
	head    Hash     // chain hash of the last record (the chain-in of an empty journal)
	synced  uint64   // sequence number of the last record known to be on disk
	snapSeq uint64
	hasSnap bool
	buf     []byte
	failed  error
	closed  bool
	stats   Stats
}

// Stats counts what a Journal wrote since Open.
type Stats struct {
	// Records is the number of records appended.
	Records int64
	// Bytes is the number of bytes written to segment files: record framing and segment
	// headers included.
	Bytes int64
	// SnapshotBytes is the number of bytes written to snapshot files, headers included.
	SnapshotBytes int64
	// Syncs is the number of file fsyncs; DirSyncs the number of directory fsyncs.
	Syncs, DirSyncs int64
}

// Record is one record read back from the journal.
type Record struct {
	// Seq is its sequence number: 1 for the first record ever appended, then each next.
	Seq uint64
	// Data is its payload, as appended. It is the caller's to keep.
	Data []byte
	// Hash is its chain hash, which stands for every record up to it. It is zero for a
	// record of a format 1 segment, which has no chain.
	Hash Hash
}

// Append writes rec as the next record and syncs it to disk before returning its
// sequence number. rec must hold 1 to MaxRecordSize bytes; the journal keeps no reference
// to it.
func (j *Journal) Append(rec []byte) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	seq, err := j.appendLocked(rec)
	if err != nil {
		return 0, err
	}
	if err := j.syncLocked(); err != nil {
		return 0, err
	}
	return seq, nil
}

// AppendNoSync writes rec as the next record without syncing it: it is durable only
// once Sync (or a later Append) returns. Use it to write a batch with one sync; nothing
// that depends on the record may be published before that sync.
func (j *Journal) AppendNoSync(rec []byte) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.appendLocked(rec)
}

// Sync makes every record appended so far durable.
func (j *Journal) Sync() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.writable(); err != nil {
		return err
	}
	return j.syncLocked()
}

// Head returns the sequence number of the last record and its chain hash: the value a
// signed checkpoint vouches for. With no record yet, seq is 0.
func (j *Journal) Head() (seq uint64, h Hash) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.next - 1, j.head
}

// LastSeq returns the sequence number of the last record appended or found by Open, 0
// when there is none.
func (j *Journal) LastSeq() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.next - 1
}

// Stats returns what the Journal wrote since Open.
func (j *Journal) Stats() Stats {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stats
}

// Close syncs what was appended and closes the journal. Closing twice is not an error.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	j.closed = true
	if j.f == nil {
		return nil
	}
	var err error
	if j.failed == nil && j.synced+1 != j.next {
		if serr := j.f.Sync(); serr != nil {
			err = fmt.Errorf("journal: sync on close: %w", serr)
		}
	}
	if cerr := j.f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("journal: close: %w", cerr)
	}
	j.f = nil
	j.lock.release()
	return err
}

// Records returns the records from sequence number from (1 or 0 for the first) to the
// last one appended when the iteration starts, in order. Every record is checked again
// as it is read; an error ends the iteration. Records before the first segment left by
// Compact cannot be read: the snapshot stands for them.
func (j *Journal) Records(from uint64) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		j.mu.Lock()
		segs, next, closed := slices.Clone(j.segs), j.next, j.closed
		j.mu.Unlock()
		if closed {
			yield(Record{}, ErrClosed)
			return
		}
		from = max(from, 1)
		if len(segs) > 0 && from < segs[0].first {
			yield(Record{}, fmt.Errorf("journal: records before %d were compacted away: start from the snapshot", segs[0].first))
			return
		}
		for i, s := range segs {
			end := next
			if i+1 < len(segs) {
				end = segs[i+1].first
			}
			if end <= from {
				continue
			}
			if !j.readSegment(s, end, from, yield) {
				return
			}
		}
	}
}

// readSegment yields the records of segment s from sequence number from up to (not
// including) end. It returns false when the iteration must stop.
func (j *Journal) readSegment(s segment, end, from uint64, yield func(Record, error) bool) bool {
	b, err := readPrefix(filepath.Join(j.dir, s.name), s.size)
	if err != nil {
		yield(Record{}, err)
		return false
	}
	h, bad := parseSegmentHeader(b)
	if bad != "" {
		yield(Record{}, &CorruptError{File: s.name, Reason: bad})
		return false
	}
	off, chain := segmentHeaderSizeOf(h.version), h.chainIn
	for seq := s.first; seq < end; seq++ {
		d, p := decodeRecord(b[off:], h.version)
		var reason string
		switch {
		case p.kind != fine:
			reason = p.String()
		case d.seq != seq:
			reason = fmt.Sprintf("record has sequence number %d, want %d", d.seq, seq)
		case h.version != formatV1 && chainHash(chain, seq, d.payload) != d.hash:
			reason = "record does not chain: its hash is not that of the record before it and its contents"
		}
		if reason != "" {
			yield(Record{}, &CorruptError{File: s.name, Offset: int64(off), Seq: seq, Reason: reason + " (changed since Open)"})
			return false
		}
		off += d.size
		chain = d.hash
		if seq >= from && !yield(Record{Seq: seq, Data: d.payload, Hash: d.hash}, nil) {
			return false
		}
	}
	return true
}

// readPrefix reads the first n bytes of the file at path.
func readPrefix(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("journal: read segment: %w", err)
	}
	defer f.Close()
	b := make([]byte, n)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("journal: read segment %s: %d bytes expected: %w", filepath.Base(path), n, err)
	}
	return b, nil
}

// writable returns why the journal cannot be written to, or nil.
func (j *Journal) writable() error {
	switch {
	case j.closed:
		return ErrClosed
	case j.readOnly:
		return ErrReadOnly
	case j.failed != nil:
		return fmt.Errorf("journal: an earlier write failed, reopen to recover: %w", j.failed)
	}
	return nil
}

// fail records err as the journal's sticky failure and returns it.
func (j *Journal) fail(err error) error {
	j.failed = err
	j.log.Error("journal: write failed; no more writes until it is reopened", "err", err)
	return err
}

func (j *Journal) appendLocked(rec []byte) (uint64, error) {
	if err := j.writable(); err != nil {
		return 0, err
	}
	if len(rec) == 0 || len(rec) > MaxRecordSize {
		return 0, fmt.Errorf("journal: append: record of %d bytes: want 1 to %d", len(rec), MaxRecordSize)
	}
	last := &j.segs[len(j.segs)-1]
	size := int64(recordHeaderSize + len(rec))
	if last.size > int64(segmentHeaderSizeOf(last.version)) && last.size+size > j.opt.SegmentSize {
		if err := j.rotate(); err != nil {
			return 0, err
		}
		last = &j.segs[len(j.segs)-1]
	}
	var h Hash
	j.buf, h = appendRecord(j.buf[:0], j.next, j.head, rec)
	n, err := j.f.Write(j.buf)
	j.stats.Bytes += int64(n)
	if err != nil {
		return 0, j.fail(fmt.Errorf("journal: append record %d to %s: %w", j.next, last.name, err))
	}
	last.size += int64(n)
	seq := j.next
	j.next++
	j.head = h
	j.stats.Records++
	return seq, nil
}

func (j *Journal) syncLocked() error {
	if j.synced+1 == j.next {
		return nil
	}
	if err := j.f.Sync(); err != nil {
		return j.fail(fmt.Errorf("journal: sync %s: %w", j.segs[len(j.segs)-1].name, err))
	}
	j.stats.Syncs++
	j.synced = j.next - 1
	return nil
}

// rotate syncs the current segment, then starts a new one at the next sequence number.
// The old segment is synced first so that a power cut can never leave a partial record
// in a segment that is not the last.
func (j *Journal) rotate() error {
	if err := j.syncLocked(); err != nil {
		return err
	}
	if err := j.createSegment(j.next); err != nil {
		return j.fail(err)
	}
	name := j.segs[len(j.segs)-1].name
	f, err := os.OpenFile(filepath.Join(j.dir, name), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return j.fail(fmt.Errorf("journal: open new segment: %w", err))
	}
	old := j.f
	j.f = f
	if err := old.Close(); err != nil {
		return j.fail(fmt.Errorf("journal: close full segment: %w", err))
	}
	j.log.Info("journal: new segment", "segment", name)
	return nil
}

// createSegment writes a new segment file starting at sequence number first, chained on
// from the journal's head: its header goes to a temporary file, which is synced, renamed
// into place and made durable by a directory sync, so a segment file always has a whole
// header.
func (j *Journal) createSegment(first uint64) error {
	name := segmentName(first)
	if err := j.writeFileAtomic(name, appendSegmentHeader(nil, first, j.head), &j.stats.Bytes); err != nil {
		return fmt.Errorf("journal: create segment %s: %w", name, err)
	}
	j.segs = append(j.segs, segment{name: name, first: first, size: segmentHeaderSize, version: formatVersion, chainIn: j.head})
	return nil
}

// writeFileAtomic replaces the file name in the journal directory by one holding b: it
// writes name.tmp, syncs it, renames it to name and syncs the directory. The bytes
// written are added to *count.
func (j *Journal) writeFileAtomic(name string, b []byte, count *int64) error {
	tmp := filepath.Join(j.dir, name+tempSuffix)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	n, err := f.Write(b)
	*count += int64(n)
	if err == nil {
		err = f.Sync()
		j.stats.Syncs++
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(j.dir, name))
	}
	if err != nil {
		return errors.Join(err, removeIfExists(tmp))
	}
	return j.syncDir()
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// syncDir fsyncs the journal directory and counts it.
func (j *Journal) syncDir() error {
	j.stats.DirSyncs++
	return syncDir(j.dir)
}
