package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Tail reads a journal's records in order, each call going on from where the last one
// stopped: it reads only the bytes written since, so a reader that follows a growing
// journal reads each record once. Records are checked as Records checks them. A Tail
// takes the journal's lock only to look at its segments, never while it reads: the
// table's appends do not wait on it. A Tail is for one goroutine.
type Tail struct {
	j     *Journal
	next  uint64 // the next record to yield
	seg   string // the segment the position is in ("": not positioned)
	ver   uint16
	off   int64 // the offset of record next in seg
	chain Hash  // the chain hash of the record before next
}

// Tail returns a Tail at record from (1 or 0 for the first).
func (j *Journal) Tail(from uint64) *Tail { return &Tail{j: j, next: max(from, 1)} }

// Seek moves the Tail to record from: the next Read reads its segment from the start.
func (t *Tail) Seek(from uint64) {
	if from = max(from, 1); from != t.next {
		t.next, t.seg = from, ""
	}
}

// Next is the record the next Read starts at.
func (t *Tail) Next() uint64 { return t.next }

// Read yields the records from Next up to upTo (included) or the last appended, in
// order, until yield returns false. The Tail then stands at the record after the last
// one yielded, also when an error reading or checking a record ends the Read.
func (t *Tail) Read(upTo uint64, yield func(Record) bool) error {
	t.j.mu.Lock()
	segs, next, closed := slices.Clone(t.j.segs), t.j.next, t.j.closed
	t.j.mu.Unlock()
	if closed {
		return ErrClosed
	}
	end := min(upTo+1, next)
	if len(segs) > 0 && t.next < segs[0].first {
		return fmt.Errorf("journal: records before %d were compacted away: start from the snapshot", segs[0].first)
	}
	for i, s := range segs {
		segEnd := next
		if i+1 < len(segs) {
			segEnd = segs[i+1].first
		}
		if t.next >= segEnd || t.next < s.first {
			continue
		}
		if t.next >= end {
			return nil
		}
		more, err := t.readSegment(s, min(end, segEnd), yield)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// readSegment yields the records of s from t.next up to (not including) end. more is
// false when yield stopped.
func (t *Tail) readSegment(s segment, end uint64, yield func(Record) bool) (more bool, err error) {
	path := filepath.Join(t.j.dir, s.name)
	if t.seg != s.name {
		n := s.size
		if t.next == s.first {
			n = min(n, int64(segmentHeaderSize)) // the header alone
		}
		b, err := readPrefix(path, n)
		if err != nil {
			return false, err
		}
		h, bad := parseSegmentHeader(b)
		if bad != "" {
			return false, &CorruptError{File: s.name, Reason: bad}
		}
		t.seg, t.ver, t.off, t.chain = s.name, h.version, int64(segmentHeaderSizeOf(h.version)), h.chainIn
		for seq := s.first; seq < t.next; seq++ {
			d, err := t.decode(b[t.off:], seq)
			if err != nil {
				t.seg = ""
				return false, err
			}
			t.off, t.chain = t.off+int64(d.size), d.hash
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("journal: read segment: %w", err)
	}
	defer f.Close()
	b := make([]byte, s.size-t.off)
	if _, err := f.ReadAt(b, t.off); err != nil {
		return false, fmt.Errorf("journal: read segment %s: %w", s.name, err)
	}
	off := 0
	for t.next < end {
		d, err := t.decode(b[off:], t.next)
		if err != nil {
			return false, err
		}
		off += d.size
		t.off, t.chain = t.off+int64(d.size), d.hash
		t.next++
		if !yield(Record{Seq: d.seq, Data: slices.Clone(d.payload), Hash: d.hash}) {
			return false, nil
		}
	}
	return true, nil
}

// decode reads record seq at the start of b, which follows the chain hash t.chain.
func (t *Tail) decode(b []byte, seq uint64) (decoded, error) {
	d, p := decodeRecord(b, t.ver)
	var reason string
	switch {
	case p.kind != fine:
		reason = p.String()
	case d.seq != seq:
		reason = fmt.Sprintf("record has sequence number %d, want %d", d.seq, seq)
	case t.ver != formatV1 && chainHash(t.chain, seq, d.payload) != d.hash:
		reason = "record does not chain: its hash is not that of the record before it and its contents"
	}
	if reason != "" {
		return d, &CorruptError{File: t.seg, Offset: t.off, Seq: seq, Reason: reason + " (changed since Open)"}
	}
	return d, nil
}
