package journal

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"
)

// TestRecordLayout checks a record's bytes against the layout docs/journal.md documents,
// with the checksum and the chain hash computed independently.
func TestRecordLayout(t *testing.T) {
	t.Parallel()
	p := []byte(`{"kind":"card","card":"TH"}`)
	var prev Hash
	copy(prev[:], bytes.Repeat([]byte{0xab}, HashSize))
	b, h := appendRecord([]byte("prefix"), 0x0102030405060708, prev, p)
	if string(b[:6]) != "prefix" {
		t.Fatalf("appendRecord overwrote the buffer's start: %q", b[:6])
	}
	rec := b[6:]
	if len(rec) != 48+len(p) {
		t.Fatalf("record is %d bytes, want %d", len(rec), 48+len(p))
	}
	if got := binary.LittleEndian.Uint32(rec[0:4]); got != uint32(len(p)) {
		t.Errorf("length field %d, want %d", got, len(p))
	}
	if got := rec[8:16]; !bytes.Equal(got, []byte{8, 7, 6, 5, 4, 3, 2, 1}) {
		t.Errorf("sequence number bytes % x, want little-endian", got)
	}
	want := sha256.Sum256(append(append(bytes.Repeat([]byte{0xab}, 32), 8, 7, 6, 5, 4, 3, 2, 1), p...))
	if !bytes.Equal(rec[16:48], want[:]) || h != Hash(want) {
		t.Errorf("chain hash % x (returned %s), want SHA-256 of previous hash, sequence number and payload % x", rec[16:48], h, want)
	}
	if !bytes.Equal(rec[48:], p) {
		t.Errorf("payload %q", rec[48:])
	}
	covered := append(append(append([]byte(nil), rec[0:4]...), rec[8:48]...), p...)
	if got, want := binary.LittleEndian.Uint32(rec[4:8]), crc32.Checksum(covered, crc32.MakeTable(crc32.Castagnoli)); got != want {
		t.Errorf("checksum %#x, want CRC32C %#x", got, want)
	}
	d, bad := decodeRecord(append(rec, "next record"...), formatV2)
	if bad.kind != fine || d.seq != 0x0102030405060708 || !bytes.Equal(d.payload, p) || d.size != len(rec) || d.hash != h {
		t.Errorf("decodeRecord: %+v problem %v", d, bad)
	}
}

// TestFormat1Record: a record of a segment written before the chain is still read.
func TestFormat1Record(t *testing.T) {
	t.Parallel()
	p := []byte("old")
	rec := binary.LittleEndian.AppendUint32(nil, uint32(len(p)))
	rec = append(rec, 0, 0, 0, 0)
	rec = binary.LittleEndian.AppendUint64(rec, 9)
	rec = append(rec, p...)
	binary.LittleEndian.PutUint32(rec[4:8], recordCRC(rec[0:4], rec[8:]))
	d, bad := decodeRecord(rec, formatV1)
	if bad.kind != fine || d.seq != 9 || string(d.payload) != "old" || d.size != 19 || d.hash != (Hash{}) {
		t.Errorf("decodeRecord: %+v problem %v", d, bad)
	}
}

func TestDecodeRecordProblems(t *testing.T) {
	t.Parallel()
	good, _ := appendRecord(nil, 7, Hash{}, []byte("hello"))
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
		{"empty", nil, shortHeader, "short record header: 0 of 48 bytes"},
		{"short header", good[:47], shortHeader, "short record header: 47 of 48 bytes"},
		{"header only", good[:48], pastEnd, "record length 5 runs past the end of the file (0 payload bytes present)"},
		{"short payload", good[:51], pastEnd, "record length 5 runs past the end of the file (3 payload bytes present)"},
		{"zero length", withLength(0), zeroLength, "record length 0"},
		{"over limit", withLength(MaxRecordSize + 1), overLimit, "record length 4194305 over the limit of 4194304"},
		{"length changed", withLength(4), badChecksum, "record checksum mismatch"},
		{"payload changed", flipped, badChecksum, "record checksum mismatch"},
		{"zeros", make([]byte, 64), zeroLength, "record length 0"},
	} {
		_, bad := decodeRecord(tc.b, formatV2)
		if bad.kind != tc.kind || bad.String() != tc.want {
			t.Errorf("%s: got %d %q, want %d %q", tc.name, bad.kind, bad, tc.kind, tc.want)
		}
	}
}

func TestValidRecordFrom(t *testing.T) {
	t.Parallel()
	rec, _ := appendRecord(nil, 3, Hash{}, []byte("three"))
	b := append([]byte("garbage!"), rec...)
	if off, ok := validRecordFrom(b, 0, formatV2); !ok || off != 8 {
		t.Errorf("got %d %v, want the record at byte 8", off, ok)
	}
	if _, ok := validRecordFrom(b, 9, formatV2); ok {
		t.Error("found a record that starts past the only one")
	}
	if _, ok := validRecordFrom(make([]byte, 100), 0, formatV2); ok {
		t.Error("found a record in zeros")
	}
}

func TestSegmentHeader(t *testing.T) {
	t.Parallel()
	var in Hash
	in[0], in[31] = 0x11, 0x99
	h := appendSegmentHeader(nil, 42, in)
	if len(h) != segmentHeaderSize || string(h[0:4]) != "TCJL" || binary.LittleEndian.Uint16(h[4:6]) != 2 ||
		binary.LittleEndian.Uint64(h[8:16]) != 42 || !bytes.Equal(h[16:48], in[:]) ||
		binary.LittleEndian.Uint32(h[48:52]) != crc32.Checksum(h[:48], castagnoli) {
		t.Fatalf("header % x does not follow the documented layout", h)
	}
	if got, bad := parseSegmentHeader(h); bad != "" || got.first != 42 || got.version != 2 || got.chainIn != in {
		t.Fatalf("parse: %+v %q", got, bad)
	}
	v1 := []byte("TCJL\x01\x00\x00\x00")
	v1 = binary.LittleEndian.AppendUint64(v1, 7)
	v1 = binary.LittleEndian.AppendUint32(v1, crc32.Checksum(v1, castagnoli))
	if got, bad := parseSegmentHeader(v1); bad != "" || got.first != 7 || got.version != 1 {
		t.Fatalf("format 1 header: %+v %q", got, bad)
	}
	damage := func(i int, v byte) []byte {
		b := bytes.Clone(h)
		b[i] = v
		return b
	}
	version3 := bytes.Clone(h)
	binary.LittleEndian.PutUint16(version3[4:6], 3)
	binary.LittleEndian.PutUint32(version3[48:52], crc32.Checksum(version3[:48], castagnoli))
	for _, tc := range []struct {
		b    []byte
		want string
	}{
		{h[:51], "file has 51 of its 52 bytes"},
		{h[:19], "file has 19 of its 52 bytes"},
		{damage(0, 'X'), `magic "XCJL"`},
		{damage(9, 1), "checksum mismatch"},
		{damage(20, 1), "checksum mismatch"},
		{version3, "format version 3, want 1 or 2"},
	} {
		if _, bad := parseSegmentHeader(tc.b); !strings.Contains(bad, tc.want) {
			t.Errorf("% x: got %q, want %q", tc.b, bad, tc.want)
		}
	}
}

func TestSegmentName(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	data := []byte(`{"round":12}`)
	var h Hash
	h[5] = 0x42
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	b := appendSnapshot(nil, 77, h, data, key)
	digest := sha256.Sum256(data)
	if len(b) != snapshotHeaderSize+len(data) || string(b[0:4]) != "TCJS" || binary.LittleEndian.Uint16(b[4:6]) != 3 ||
		binary.LittleEndian.Uint64(b[8:16]) != 77 || !bytes.Equal(b[16:48], h[:]) || !bytes.Equal(b[48:80], digest[:]) ||
		binary.LittleEndian.Uint64(b[144:152]) != uint64(len(data)) ||
		binary.LittleEndian.Uint32(b[152:156]) != crc32.Update(crc32.Checksum(b[:152], castagnoli), castagnoli, data) {
		t.Fatalf("snapshot % x does not follow the documented layout", b)
	}
	// The signature covers the documented message: the context, the record, its hash and
	// the data's SHA-256.
	msg := append([]byte("tablectl journal snapshot\x00"), b[8:16]...)
	msg = append(append(msg, h[:]...), digest[:]...)
	if !ed25519.Verify(key.Public().(ed25519.PublicKey), msg, b[80:144]) {
		t.Fatal("the signature does not cover the documented message")
	}
	sf, _, bad := parseSnapshot(b)
	if bad != "" || sf.seq != 77 || !bytes.Equal(sf.data, data) || sf.hash != h || !sf.signed() ||
		!sf.verify(key.Public().(ed25519.PublicKey)) {
		t.Fatalf("parse: %+v %q", sf, bad)
	}
	if other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{8}, ed25519.SeedSize)); sf.verify(other.Public().(ed25519.PublicKey)) {
		t.Fatal("a snapshot verifies with another key")
	}
	if sf, _, _ := parseSnapshot(appendSnapshot(nil, 77, h, data, nil)); sf.signed() {
		t.Fatal("a snapshot written without a key reads as signed")
	}
	// The data changed with the checksum made good again: its SHA-256 no longer holds.
	forged := bytes.Clone(b)
	forged[len(forged)-3] ^= 0x01
	binary.LittleEndian.PutUint32(forged[152:156], crc32.Update(crc32.Checksum(forged[:152], castagnoli), castagnoli, forged[156:]))
	if _, off, bad := parseSnapshot(forged); off != 48 || !strings.Contains(bad, "does not match the SHA-256") {
		t.Fatalf("data changed, checksum fixed: %q at %d", bad, off)
	}
	for _, tc := range []struct {
		b    []byte
		off  int64
		want string
	}{
		{b[:27], 27, "file has 27 of its 156 bytes"},
		{b[:3], 3, "file has 3 of its 28 bytes"},
		{b[:155], 155, "file has 155 of its 156 bytes"},
		{b[:len(b)-1], 144, "snapshot length 12, but the file holds 11 data bytes"},
		{append(bytes.Clone(b), 0), 144, "snapshot length 12, but the file holds 13 data bytes"},
		{append([]byte("XCJS"), b[4:]...), 0, `magic "XCJS"`},
		{append(bytes.Clone(b[:len(b)-1]), '!'), 152, "checksum mismatch"},
	} {
		if _, off, bad := parseSnapshot(tc.b); !strings.Contains(bad, tc.want) || off != tc.off {
			t.Errorf("got %q at %d, want %q at %d", bad, off, tc.want, tc.off)
		}
	}
}

// TestChainHashAnySize: a record's chain hash is the SHA-256 of the hash before it, its
// sequence number and its payload, however long the payload: small ones hashed from one
// buffer, larger ones streamed.
func TestChainHashAnySize(t *testing.T) {
	t.Parallel()
	var prev Hash
	for i := range prev {
		prev[i] = byte(i * 7)
	}
	p := make([]byte, 700)
	for i := range p {
		p[i] = byte(i*31 + 5)
	}
	for n := 0; n <= len(p); n++ {
		d := sha256.New()
		d.Write(prev[:])
		d.Write(binary.LittleEndian.AppendUint64(nil, uint64(n)*1e9+3))
		d.Write(p[:n])
		var want Hash
		copy(want[:], d.Sum(nil))
		if got := chainHash(prev, uint64(n)*1e9+3, p[:n]); got != want {
			t.Fatalf("payload of %d bytes: chain hash %s, want %s", n, got, want)
		}
	}
}
