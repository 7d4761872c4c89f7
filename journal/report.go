package journal

import (
	"errors"
	"fmt"
)

// Report is what Open found in a journal directory. Open returns it even with an error,
// filled in up to the damage.
type Report struct {
	// Dir is the journal directory.
	Dir string
	// Created is true when Open made a new, empty journal.
	Created bool
	// Segments are the segment files in sequence order, each up to its last whole record.
	Segments []SegmentReport
	// Records is the number of whole records in the segments.
	Records int
	// FirstSeq and LastSeq are the sequence numbers of the first and last record present;
	// both are meaningful only when Records > 0.
	FirstSeq, LastSeq uint64
	// NextSeq is the sequence number the next appended record gets.
	NextSeq uint64
	// Snapshot describes the snapshot file, nil when there is none.
	Snapshot *SnapshotReport
	// Torn is the partial record found at the end of the last segment, nil when the
	// journal ended cleanly.
	Torn *TornTail
	// LastCheckpoint is the record the heads file's last signed checkpoint vouches for (0
	// when there is none). Open reads that entry alone; Checkpoints reads them all.
	LastCheckpoint uint64
	// Head is the chain hash of the last record (zero when the journal has no chained
	// segment and its format 1 records were compacted away).
	Head Hash
	// TempFiles are temporary files left by an interrupted segment creation or snapshot;
	// Open removes them unless it is read-only.
	TempFiles []string
}

// SegmentReport describes one segment file.
type SegmentReport struct {
	// File is the segment's file name inside the journal directory.
	File string
	// FirstSeq is the sequence number of its first record (from its header).
	FirstSeq uint64
	// Records is the number of whole records it holds.
	Records int
	// Bytes is its size up to the end of its last whole record, header included.
	Bytes int64
	// Chained is true for a format 2 segment, whose records carry the hash chain; false
	// for one written before the chain (format 1).
	Chained bool
	// Unchecked is true for a sealed segment that a Quick open checked by its header
	// alone: Records and Bytes come from the next segment's name and the file's size.
	Unchecked bool
}

// SnapshotReport describes the snapshot file.
type SnapshotReport struct {
	// Seq is the sequence number of the last record the snapshot covers.
	Seq uint64
	// Bytes is the size of the snapshot's data.
	Bytes int64
	// Chained is true when the snapshot names the chain hash of the record it covers.
	Chained bool
	// Signed is true when it carries a signature (format 3, written with a key); Verified
	// when that signature was checked with the key given to Open and holds.
	Signed, Verified bool
	// Ignored, when not empty, says why the journal does not use the snapshot (a key was
	// given and its signature does not verify with it, or it has none): Snapshot then
	// reports none, and the records it covers are to be replayed.
	Ignored string
}

// TornTail is a partial record at the end of the last segment: the trace of a write that
// a power cut interrupted before it was synced. Nothing after it is valid.
type TornTail struct {
	// File is the last segment's file name.
	File string
	// Offset is where the partial record starts; the segment's whole records end there.
	Offset int64
	// Bytes is the number of bytes from Offset to the end of the file.
	Bytes int64
	// Reason says what is incomplete, e.g. "short record header: 7 of 16 bytes".
	Reason string
	// Truncated is true when Open cut the file back to Offset (and synced it); a
	// read-only Open leaves it as it is.
	Truncated bool
}

// CorruptError is damage that a power cut cannot explain: a bad record with valid ones
// after it, a bad segment or snapshot header, a gap or repeat in the sequence numbers, a
// partial record in a segment other than the last, or missing records. Open returns it
// and changes nothing on disk; nothing is skipped.
type CorruptError struct {
	// File is the damaged file's name inside the journal directory.
	File string
	// Offset is the byte offset in File where the damage starts.
	Offset int64
	// Seq is the sequence number expected at Offset, 0 when the damage is not at a record.
	Seq uint64
	// Reason says what was wrong.
	Reason string
}

// Error names the file, the byte offset, the record and what was wrong.
func (e *CorruptError) Error() string {
	if e.Seq != 0 {
		return fmt.Sprintf("journal corrupt: %s at byte %d (record %d): %s", e.File, e.Offset, e.Seq, e.Reason)
	}
	return fmt.Sprintf("journal corrupt: %s at byte %d: %s", e.File, e.Offset, e.Reason)
}

// Errors returned by a Journal's methods.
var (
	// ErrClosed is returned by the methods of a closed Journal.
	ErrClosed = errors.New("journal closed")
	// ErrReadOnly is returned by the writing methods of a Journal opened read-only.
	ErrReadOnly = errors.New("journal opened read-only")
)
