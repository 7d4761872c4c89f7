package journal

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
)

// quickJournal writes n records in segments of segSize bytes, with payloads made by p, and
// a checkpoint after the last record, so that a Quick open reads only the last segment
// record by record. It returns the files and each record's place.
func quickJournal(t *testing.T, n int, segSize int64, p func(int) []byte) (map[string][]byte, []layout) {
	t.Helper()
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{SegmentSize: segSize})
	for i := 1; i <= n; i++ {
		if _, err := j.Append(p(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := j.Checkpoint(testKey(9)); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	files := dirFiles(t, dir)
	var lay []layout
	file, off := segmentName(1), int64(segmentHeaderSize)
	for i := 1; i <= n; i++ {
		size := int64(recordHeaderSize + len(p(i)))
		if off > segmentHeaderSize && off+size > segSize {
			file, off = segmentName(uint64(i)), segmentHeaderSize
		}
		lay = append(lay, layout{file: file, start: off, end: off + size, seq: uint64(i)})
		off += size
	}
	return files, lay
}

// segmentsOf returns the segment file names of files in order.
func segmentsOf(files map[string][]byte) []string {
	var names []string
	for name := range files {
		if _, ok := parseSegmentName(name); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// quickDamaged opens files read-only with Quick and returns the *CorruptError it gives.
func quickDamaged(t *testing.T, files map[string][]byte, what string) *CorruptError {
	t.Helper()
	j, _, err := Open(writeDir(t, files), Options{ReadOnly: true, Quick: true})
	if err == nil {
		j.Close()
		t.Fatalf("%s: a Quick open found nothing wrong", what)
	}
	return asCorrupt(t, err, what)
}

// otherPayload is the i-th record of another table's journal.
func otherPayload(i int) []byte {
	return bytes.Replace(payload(i), []byte(`"kind":"card"`), []byte(`"kind":"cord"`), 1)
}

// TestQuickOpenChecksEverySegmentBoundary: a Quick open, which reads sealed segments at
// their ends only, refuses a segment copied in from another table's journal under the same
// name, and a sealed segment whose chain was recomputed after a card was changed in it.
func TestQuickOpenChecksEverySegmentBoundary(t *testing.T) {
	t.Parallel()
	const n, segSize = 24, 600
	files, lay := quickJournal(t, n, segSize, payload)
	segs := segmentsOf(files)
	if len(segs) < 4 {
		t.Fatalf("want at least 4 segments, have %d", len(segs))
	}
	// The journal as it is opens quickly, its sealed segments unchecked inside.
	j, rep, err := Open(writeDir(t, files), Options{ReadOnly: true, Quick: true})
	if err != nil {
		t.Fatalf("quick open of an intact journal: %v", err)
	}
	if !rep.Segments[1].Unchecked || rep.Records != n {
		t.Fatalf("report %+v", rep)
	}
	j.Close()

	// Another table's journal of the same shape: its second segment copied in.
	other, _ := quickJournal(t, n, segSize, otherPayload)
	if !slices.Equal(segmentsOf(other), segs) {
		t.Fatalf("the other journal's segments %v, ours %v", segmentsOf(other), segs)
	}
	for _, k := range []int{1, 2} {
		foreign := maps.Clone(files)
		foreign[segs[k]] = other[segs[k]]
		ce := quickDamaged(t, foreign, "foreign segment")
		if ce.File != segs[k] || ce.Offset != 16 || !strings.Contains(ce.Reason, "segment does not chain") {
			t.Errorf("segment %s copied from another journal: got %v", segs[k], ce)
		}
	}

	// A card changed in the middle of the second segment, every later hash and checksum of
	// the segment recomputed: the segment is whole in itself, but its last record no
	// longer carries the next segment's chain-in.
	var inSecond []layout
	for _, l := range lay {
		if l.file == segs[1] {
			inSecond = append(inSecond, l)
		}
	}
	if len(inSecond) < 3 {
		t.Fatalf("want at least 3 records in %s, have %d", segs[1], len(inSecond))
	}
	hdr, _ := parseSegmentHeader(files[segs[1]])
	seg := appendSegmentHeader(nil, inSecond[0].seq, hdr.chainIn)
	h := hdr.chainIn
	for _, l := range inSecond {
		p := payload(int(l.seq))
		if l == inSecond[1] {
			p = bytes.Replace(p, []byte(`"card":"`), []byte(`"card":"9`), 1)
		}
		seg, h = appendRecord(seg, l.seq, h, p)
	}
	rechained := maps.Clone(files)
	rechained[segs[1]] = seg
	ce := quickDamaged(t, rechained, "chain recomputed in a sealed segment")
	if ce.File != segs[2] || ce.Offset != 16 || !strings.Contains(ce.Reason, "segment does not chain") {
		t.Errorf("chain recomputed inside %s: got %v", segs[1], ce)
	}

	// The same with the next segment's chain-in rewritten to match: its first record no
	// longer chains.
	next := bytes.Clone(files[segs[2]])
	hdr2, _ := parseSegmentHeader(next)
	copy(next, appendSegmentHeader(nil, hdr2.first, h))
	rechained[segs[2]] = next
	ce = quickDamaged(t, rechained, "chain recomputed and the next chain-in with it")
	if ce.File != segs[2] || ce.Offset != segmentHeaderSize || !strings.Contains(ce.Reason, "does not chain") {
		t.Errorf("next chain-in rewritten too: got %v", ce)
	}

	// The last sealed segment's chain recomputed: the segment read record by record (the
	// checkpoint's) no longer follows it.
	lastSealed := len(segs) - 2
	var inLast []layout
	for _, l := range lay {
		if l.file == segs[lastSealed] {
			inLast = append(inLast, l)
		}
	}
	hdrL, _ := parseSegmentHeader(files[segs[lastSealed]])
	seg, h = appendSegmentHeader(nil, inLast[0].seq, hdrL.chainIn), hdrL.chainIn
	for _, l := range inLast {
		p := payload(int(l.seq))
		if l == inLast[0] {
			p = bytes.Replace(p, []byte(`"card":"`), []byte(`"card":"9`), 1)
		}
		seg, h = appendRecord(seg, l.seq, h, p)
	}
	beforeScanned := maps.Clone(files)
	beforeScanned[segs[lastSealed]] = seg
	ce = quickDamaged(t, beforeScanned, "chain recomputed before the segment read in full")
	if ce.File != segs[len(segs)-1] || !strings.Contains(ce.Reason, "segment does not chain") {
		t.Errorf("chain recomputed in the last sealed segment: got %v", ce)
	}

	// Bytes added after a sealed segment's last record.
	grown := maps.Clone(files)
	grown[segs[1]] = append(bytes.Clone(files[segs[1]]), unchainedRecord(99)...)
	ce = quickDamaged(t, grown, "bytes after a sealed segment's last record")
	if ce.File != segs[1] || !strings.Contains(ce.Reason, "no whole record") {
		t.Errorf("a record appended to a sealed segment: got %v", ce)
	}

	// A record changed between the two ends with its chain left broken is not read by a
	// Quick open: verify (a full open) finds it.
	middle := maps.Clone(files)
	b := bytes.Clone(files[segs[1]])
	l := inSecond[1]
	rec := b[l.start:l.end]
	i := bytes.Index(rec, []byte(`"card":"`)) + len(`"card":"`)
	rec[i] ^= 0x01
	reframe(rec)
	middle[segs[1]] = b
	j, _, err = Open(writeDir(t, middle), Options{ReadOnly: true, Quick: true})
	if err != nil {
		t.Fatalf("a change inside a sealed segment, chain left broken, stops a Quick open: %v", err)
	}
	j.Close()
	if ce := openDamaged(t, middle, "full open"); ce.File != segs[1] || ce.Seq != l.seq || !strings.Contains(ce.Reason, "does not chain") {
		t.Errorf("full open of a changed record inside a sealed segment: got %v", ce)
	}
}
