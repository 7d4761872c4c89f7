package journal

import (
	"bytes"
	"testing"
)

// FuzzOpenTail appends arbitrary bytes after three whole records of the last segment.
// Whatever the bytes, Open must not panic, must keep the three records, and must either
// open (the bytes being whole records, or a torn tail it truncates so that a second Open
// finds a clean end) or return a *CorruptError placed after the three records, changing
// nothing.
func FuzzOpenTail(f *testing.F) {
	seg := appendSegmentHeader(nil, 1, Hash{})
	var h Hash
	for i := 1; i <= 3; i++ {
		seg, h = appendRecord(seg, uint64(i), h, payload(i))
	}
	prefix := len(seg)
	rec4, h4 := appendRecord(nil, 4, h, payload(4))
	rec6, _ := appendRecord(nil, 6, h4, payload(6))
	unchained, _ := appendRecord(nil, 4, Hash{}, payload(4))
	f.Add([]byte{})
	f.Add(make([]byte, 40))
	f.Add(rec4)
	f.Add(rec4[:52])
	f.Add(append([]byte("junk"), rec4...))
	f.Add(append(bytes.Clone(rec4), rec6...))
	f.Add(unchained)
	f.Fuzz(func(t *testing.T, tail []byte) {
		files := map[string][]byte{segmentName(1): append(bytes.Clone(seg), tail...)}
		for _, readOnly := range []bool{true, false} {
			dir := writeDir(t, files)
			j, rep, err := Open(dir, Options{ReadOnly: readOnly})
			if err != nil {
				ce := asCorrupt(t, err, "fuzzed tail")
				if ce.File != segmentName(1) || ce.Offset < int64(prefix) || rep.Records < 3 {
					t.Fatalf("damage after the third record reported as %v with %d records", ce, rep.Records)
				}
				sameFiles(t, dir, files, "corrupt")
				continue
			}
			recs := readAll(t, j, 1)
			checkRecords(t, recs[:3], 1, 3)
			for k, r := range recs {
				if r.Seq != uint64(k+1) {
					t.Fatalf("record %d has sequence number %d", k, r.Seq)
				}
			}
			j.Close()
			if readOnly {
				sameFiles(t, dir, files, "read-only")
				continue
			}
			j, rep = mustOpen(t, dir, Options{})
			if rep.Torn != nil || rep.Records != len(recs) {
				t.Fatalf("second open: torn %+v, %d records, want %d", rep.Torn, rep.Records, len(recs))
			}
			j.Close()
		}
	})
}
