package journal

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"
)

// TestRecordLayout checks a record's bytes against the layout docs/journal.md documents,
// with the checksum computed independently over length, sequence number and payload.
func TestRecordLayout(t *testing.T) {
	p := []byte(`{"kind":"card","card":"TH"}`)
	b := appendRecord([]byte("prefix"), 0x0102030405060708, p)
	if string(b[:6]) != "prefix" {
		t.Fatalf("appendRecord overwrote the buffer's start: %q", b[:6])
	}
	rec := b[6:]
	if len(rec) != 16+len(p) {
		t.Fatalf("record is %d bytes, want %d", len(rec), 16+len(p))
	}
	if got := binary.LittleEndian.Uint32(rec[0:4]); got != uint32(len(p)) {
		t.Errorf("length field %d, want %d", got, len(p))
	}
	if got := rec[8:16]; !bytes.Equal(got, []byte{8, 7, 6, 5, 4, 3, 2, 1}) {
		t.Errorf("sequence number bytes % x, want little-endian", got)
	}
	if !bytes.Equal(rec[16:], p) {
		t.Errorf("payload %q", rec[16:])
	}
	covered := append(append(append([]byte(nil), rec[0:4]...), rec[8:16]...), p...)
	if got, want := binary.LittleEndian.Uint32(rec[4:8]), crc32.Checksum(covered, crc32.MakeTable(crc32.Castagnoli)); got != want {
		t.Errorf("checksum %#x, want CRC32C %#x", got, want)
	}
	seq, payload, size, bad := decodeRecord(append(rec, "next record"...))
	if bad.kind != fine || seq != 0x0102030405060708 || !bytes.Equal(payload, p) || size != len(rec) {
		t.Errorf("decodeRecord: seq %#x payload %q size %d problem %v", seq, payload, size, bad)
	}
}

func TestDecodeRecordProblems(t *testing.T) {
	good := appendRecord(nil, 7, []byte("hello"))
	withLength := func(n uint32) []byte {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint32(b[0:4], n)
		return b
	}
	flipped := bytes.Clone(good)
	flipped[len(flipped)-1] ^= 1
	for _, tc := range []struct {
		name string
		b    []byte
		kind problemKind
		want string
	}{
		{"empty", nil, shortHeader, "short record header: 0 of 16 bytes"},
		{"short header", good[:15], shortHeader, "short record header: 15 of 16 bytes"},
		{"header only", good[:16], pastEnd, "record length 5 runs past the end of the file (0 payload bytes present)"},
		{"short payload", good[:19], pastEnd, "record length 5 runs past the end of the file (3 payload bytes present)"},
		{"zero length", withLength(0), zeroLength, "record length 0"},
		{"over limit", withLength(MaxRecordSize + 1), overLimit, "record length 4194305 over the limit of 4194304"},
		{"length changed", withLength(4), badChecksum, "record checksum mismatch"},
		{"payload changed", flipped, badChecksum, "record checksum mismatch"},
		{"zeros", make([]byte, 64), zeroLength, "record length 0"},
	} {
		_, _, _, bad := decodeRecord(tc.b)
		if bad.kind != tc.kind || bad.String() != tc.want {
			t.Errorf("%s: got %d %q, want %d %q", tc.name, bad.kind, bad, tc.kind, tc.want)
		}
	}
}

func TestValidRecordFrom(t *testing.T) {
	rec := appendRecord(nil, 3, []byte("three"))
	b := append([]byte("garbage!"), rec...)
	if off, ok := validRecordFrom(b, 0); !ok || off != 8 {
		t.Errorf("got %d %v, want the record at byte 8", off, ok)
	}
	if _, ok := validRecordFrom(b, 9); ok {
		t.Error("found a record that starts past the only one")
	}
	if _, ok := validRecordFrom(make([]byte, 100), 0); ok {
		t.Error("found a record in zeros")
	}
}

func TestSegmentHeader(t *testing.T) {
	h := appendSegmentHeader(nil, 42)
	if len(h) != segmentHeaderSize || string(h[0:4]) != "TCJL" || binary.LittleEndian.Uint16(h[4:6]) != 1 ||
		binary.LittleEndian.Uint64(h[8:16]) != 42 {
		t.Fatalf("header % x does not follow the documented layout", h)
	}
	if first, bad := parseSegmentHeader(h); bad != "" || first != 42 {
		t.Fatalf("parse: %d %q", first, bad)
	}
	damage := func(i int, v byte) []byte {
		b := bytes.Clone(h)
		b[i] = v
		return b
	}
	version2 := bytes.Clone(h)
	binary.LittleEndian.PutUint16(version2[4:6], 2)
	binary.LittleEndian.PutUint32(version2[16:20], crc32.Checksum(version2[:16], castagnoli))
	for _, tc := range []struct {
		b    []byte
		want string
	}{
		{h[:19], "file has 19 of its 20 bytes"},
		{damage(0, 'X'), `magic "XCJL"`},
		{damage(9, 1), "checksum mismatch"},
		{version2, "format version 2, want 1"},
	} {
		if _, bad := parseSegmentHeader(tc.b); !strings.Contains(bad, tc.want) {
			t.Errorf("% x: got %q, want %q", tc.b, bad, tc.want)
		}
	}
}

func TestSegmentName(t *testing.T) {
	if got := segmentName(1234); got != "00000000000000001234.seg" {
		t.Errorf("segmentName(1234) = %q", got)
	}
	if n, ok := parseSegmentName(segmentName(1<<64 - 1)); !ok || n != 1<<64-1 {
		t.Errorf("largest sequence number: %d %v", n, ok)
	}
	for _, name := range []string{"1234.seg", "0000000000000000123x.seg", "00000000000000001234.seg.tmp",
		"00000000000000001234.log", "99999999999999999999.seg", "snapshot"} {
		if _, ok := parseSegmentName(name); ok {
			t.Errorf("%q taken for a segment name", name)
		}
	}
}

func TestSnapshotFormat(t *testing.T) {
	data := []byte(`{"round":12}`)
	b := appendSnapshot(nil, 77, data)
	if len(b) != snapshotHeaderSize+len(data) || string(b[0:4]) != "TCJS" || binary.LittleEndian.Uint64(b[8:16]) != 77 ||
		binary.LittleEndian.Uint64(b[16:24]) != uint64(len(data)) {
		t.Fatalf("snapshot % x does not follow the documented layout", b)
	}
	seq, got, _, bad := parseSnapshot(b)
	if bad != "" || seq != 77 || !bytes.Equal(got, data) {
		t.Fatalf("parse: %d %q %q", seq, got, bad)
	}
	for _, tc := range []struct {
		b    []byte
		off  int64
		want string
	}{
		{b[:27], 27, "file has 27 of its 28 bytes"},
		{b[:len(b)-1], 16, "snapshot length 12, but the file holds 11 data bytes"},
		{append(bytes.Clone(b), 0), 16, "snapshot length 12, but the file holds 13 data bytes"},
		{append([]byte("XCJS"), b[4:]...), 0, `magic "XCJS"`},
		{append(bytes.Clone(b[:len(b)-1]), '!'), 24, "checksum mismatch"},
	} {
		if _, _, off, bad := parseSnapshot(tc.b); !strings.Contains(bad, tc.want) || off != tc.off {
			t.Errorf("got %q at %d, want %q at %d", bad, off, tc.want, tc.off)
		}
	}
}
