package journal

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// A Quick open reads a sealed segment (one before the segment of the last checkpoint or
// snapshot) at its two ends only, so that start-up takes as long after years of play as
// after a day, and still checks every boundary between segments:
//
//   - its header: magic, version, checksum, and a first sequence number that agrees with
//     its file name and with the end of the segment before it;
//   - its chain-in: the chain hash the last record of the segment before it carries;
//   - its first record: whole, numbered as the header says, and chained from the chain-in;
//   - its last record: whole, numbered one before the next segment's first, ending
//     exactly at the end of the file; the chain hash it carries is what the next
//     segment's chain-in must be.
//
// A segment copied in from another journal, or one whose chain was recomputed after a
// change, fails at one of its ends. A change inside a sealed segment that leaves both ends
// alone necessarily leaves a record that does not chain between them: `tablectl journal
// verify`, and any read that reaches it, finds it.

// tailWindow is how many bytes from the end of a sealed segment are read first to find
// its last record; a longer record makes the window grow up to the largest record.
const tailWindow = 16 << 10

// sealedEnds is what the two ends of a sealed segment say.
type sealedEnds struct {
	hdr      segmentHeader
	lastHash Hash // the chain hash the last record carries (zero in format 1)
}

// sealedSegment checks a sealed segment by its ends (see above): it must start at
// record want, with the chain-in prev when prevKnown, and its records run to the next
// segment's first, end.
func sealedSegment(dir, name string, want, end uint64, prev Hash, prevKnown bool) (SegmentReport, sealedEnds, *CorruptError) {
	sr := SegmentReport{File: name, FirstSeq: want, Unchecked: true}
	var se sealedEnds
	corrupt := func(off int64, seq uint64, format string, args ...any) (SegmentReport, sealedEnds, *CorruptError) {
		return sr, se, &CorruptError{File: name, Offset: off, Seq: seq, Reason: fmt.Sprintf(format, args...)}
	}
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return corrupt(0, 0, "%v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return corrupt(0, 0, "%v", err)
	}
	size := st.Size()
	b, err := readAt(f, 0, min(size, segmentHeaderSize))
	if err != nil {
		return corrupt(0, 0, "%v", err)
	}
	hdr, bad := parseSegmentHeader(b)
	se.hdr = hdr
	nameSeq, _ := parseSegmentName(name)
	switch {
	case bad != "":
		return corrupt(0, 0, "%s", bad)
	case hdr.first != nameSeq || hdr.first != want:
		return corrupt(8, want, "segment starts at record %d (file name: %d), want %d", hdr.first, nameSeq, want)
	}
	sr.Chained, sr.Records, sr.Bytes = hdr.version != formatV1, int(end-want), size
	if sr.Chained && prevKnown && hdr.chainIn != prev {
		return corrupt(16, want, "segment does not chain: its chain-in is not the hash of record %d before it", want-1)
	}

	// The first record, right after the header.
	hsize := int64(segmentHeaderSizeOf(hdr.version))
	first, err := recordAt(f, hsize, size, hdr.version)
	if err != nil {
		return corrupt(hsize, want, "%v", err)
	}
	d, p := decodeRecord(first, hdr.version)
	switch {
	case p.kind != fine:
		return corrupt(hsize, want, "%s in a segment that is not the last", p)
	case d.seq != want:
		return corrupt(hsize, want, "record has sequence number %d, want %d: %s", d.seq, want, gapOrRepeat(d.seq, want))
	case sr.Chained && chainHash(hdr.chainIn, want, d.payload) != d.hash:
		return corrupt(hsize, want, "record does not chain: its hash is not that of the record before it and its contents")
	}
	firstEnd := hsize + int64(d.size)
	if end-want == 1 {
		if firstEnd != size {
			return corrupt(firstEnd, want+1, "%d bytes after the segment's last record %d, in a segment that is not the last", size-firstEnd, want)
		}
		se.lastHash = d.hash
		return sr, se, nil
	}

	// The last record, found from the end: the record numbered end-1 whose length makes it
	// end exactly at the end of the file.
	last := end - 1
	off, d, err := lastRecord(f, firstEnd, size, last, hdr.version)
	if err != nil {
		return corrupt(firstEnd, last, "%v", err)
	}
	if off < 0 {
		return corrupt(size, last, "no whole record %d ends the segment, as it must in a segment that is not the last", last)
	}
	se.lastHash = d.hash
	return sr, se, nil
}

// recordAt reads the whole record starting at off (its header, then as much of its
// payload as its length says and the file holds).
func recordAt(f *os.File, off, size int64, v uint16) ([]byte, error) {
	hdr := int64(recordHeaderSizeOf(v))
	b, err := readAt(f, off, min(size-off, hdr))
	if err != nil || int64(len(b)) < hdr {
		return b, err
	}
	n := int64(binary.LittleEndian.Uint32(b[0:4]))
	if n == 0 || n > MaxRecordSize {
		return b, nil
	}
	return readAt(f, off, min(size-off, hdr+n))
}

// lastRecord finds the record numbered seq that ends exactly at size, searching back from
// the end no further than from: its offset and contents, or offset -1 when there is none.
func lastRecord(f *os.File, from, size int64, seq uint64, v uint16) (int64, decoded, error) {
	hdr := recordHeaderSizeOf(v)
	limit := min(size-from, int64(hdr+MaxRecordSize))
	for window := min(int64(tailWindow), limit); ; window = min(window*8, limit) {
		b, err := readAt(f, size-window, window)
		if err != nil {
			return 0, decoded{}, err
		}
		for o := len(b) - hdr - 1; o >= 0; o-- {
			if int(binary.LittleEndian.Uint32(b[o:o+4])) != len(b)-o-hdr || binary.LittleEndian.Uint64(b[o+8:o+16]) != seq {
				continue
			}
			if d, p := decodeRecord(b[o:], v); p.kind == fine {
				return size - window + int64(o), d, nil
			}
		}
		if window == limit {
			return -1, decoded{}, nil
		}
	}
}

// readAt reads n bytes of f at off.
func readAt(f *os.File, off, n int64) ([]byte, error) {
	b := make([]byte, n)
	if got, err := f.ReadAt(b, off); err != nil && (err != io.EOF || got < len(b)) {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(f.Name()), err)
	}
	return b, nil
}
