package journal

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
)

// The on-disk format. docs/journal.md describes it byte by byte; all integers are
// little-endian.
//
// Segment header (segmentHeaderSize bytes):
//
//	0:4   magic "TCJL"
//	4:6   format version (1)
//	6:8   zero
//	8:16  sequence number of the segment's first record
//	16:20 CRC32C of bytes 0:16
//
// Record (recordHeaderSize bytes, then the payload):
//
//	0:4   payload length, 1 to MaxRecordSize
//	4:8   CRC32C of bytes 0:4, 8:16 and the payload
//	8:16  sequence number
//	16:   payload
//
// Snapshot file (snapshotHeaderSize bytes, then the data):
//
//	0:4   magic "TCJS"
//	4:6   format version (1)
//	6:8   zero
//	8:16  sequence number of the last record the snapshot covers
//	16:24 data length
//	24:28 CRC32C of bytes 0:24 and the data
//	28:   data
const (
	segmentMagic       = "TCJL"
	snapshotMagic      = "TCJS"
	formatVersion      = 1
	segmentHeaderSize  = 20
	recordHeaderSize   = 16
	snapshotHeaderSize = 28

	// MaxRecordSize is the largest payload one record may carry. A length field above it
	// is damage, whatever the file holds after it.
	MaxRecordSize = 4 << 20

	segmentSuffix = ".seg"
	segmentDigits = 20
	snapshotName  = "snapshot"
	tempSuffix    = ".tmp"
)

// castagnoli is the CRC32C table used for every checksum in the journal.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// segmentName is the file name of the segment whose first record has sequence number
// first: the number in decimal, zero-padded so that names sort in sequence order.
func segmentName(first uint64) string {
	return fmt.Sprintf("%0*d%s", segmentDigits, first, segmentSuffix)
}

// parseSegmentName returns the first sequence number a segment file name carries, and
// false for a name that is not a segment's.
func parseSegmentName(name string) (uint64, bool) {
	digits, ok := strings.CutSuffix(name, segmentSuffix)
	if !ok || len(digits) != segmentDigits {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	return n, err == nil
}

// appendSegmentHeader appends the header of a segment starting at sequence number first.
func appendSegmentHeader(dst []byte, first uint64) []byte {
	start := len(dst)
	dst = append(dst, segmentMagic...)
	dst = binary.LittleEndian.AppendUint16(dst, formatVersion)
	dst = append(dst, 0, 0)
	dst = binary.LittleEndian.AppendUint64(dst, first)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// parseSegmentHeader reads a segment header at the start of b and returns the segment's
// first sequence number, or what is wrong with the header.
func parseSegmentHeader(b []byte) (uint64, string) {
	switch {
	case len(b) < segmentHeaderSize:
		return 0, fmt.Sprintf("segment header: file has %d of its %d bytes", len(b), segmentHeaderSize)
	case string(b[0:4]) != segmentMagic:
		return 0, fmt.Sprintf("segment header: magic %q, want %q", b[0:4], segmentMagic)
	case crc32.Checksum(b[0:16], castagnoli) != binary.LittleEndian.Uint32(b[16:20]):
		return 0, "segment header: checksum mismatch"
	}
	if v := binary.LittleEndian.Uint16(b[4:6]); v != formatVersion {
		return 0, fmt.Sprintf("segment header: format version %d, want %d", v, formatVersion)
	}
	if b[6] != 0 || b[7] != 0 {
		return 0, "segment header: reserved bytes are not zero"
	}
	return binary.LittleEndian.Uint64(b[8:16]), ""
}

// appendRecord appends the framed record of payload p with sequence number seq.
func appendRecord(dst []byte, seq uint64, p []byte) []byte {
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(p)))
	dst = append(dst, 0, 0, 0, 0) // checksum, filled in below
	dst = binary.LittleEndian.AppendUint64(dst, seq)
	dst = append(dst, p...)
	rec := dst[start:]
	binary.LittleEndian.PutUint32(rec[4:8], recordCRC(rec[0:4], rec[8:]))
	return dst
}

// recordCRC is the checksum of a record: over its length field, then its sequence
// number and payload.
func recordCRC(length, seqAndPayload []byte) uint32 {
	return crc32.Update(crc32.Checksum(length, castagnoli), castagnoli, seqAndPayload)
}

// problemKind says why the bytes at an offset are not a whole valid record.
type problemKind uint8

const (
	fine problemKind = iota
	shortHeader
	zeroLength
	overLimit
	pastEnd
	badChecksum
)

// problem is what is wrong with the bytes at an offset; it is a value, so checking
// every offset of a damaged tail allocates nothing.
type problem struct {
	kind   problemKind
	length uint32 // the length field, when it was read
	have   int    // bytes present from the offset to the end of the file
}

func (p problem) String() string {
	switch p.kind {
	case fine:
		return "valid record"
	case shortHeader:
		return fmt.Sprintf("short record header: %d of %d bytes", p.have, recordHeaderSize)
	case zeroLength:
		return "record length 0"
	case overLimit:
		return fmt.Sprintf("record length %d over the limit of %d", p.length, MaxRecordSize)
	case pastEnd:
		return fmt.Sprintf("record length %d runs past the end of the file (%d payload bytes present)",
			p.length, p.have-recordHeaderSize)
	case badChecksum:
		return "record checksum mismatch"
	}
	return "unknown problem"
}

// decodeRecord reads the record at the start of b. It returns its sequence number,
// payload (a sub-slice of b) and total size, or the problem that makes it invalid.
func decodeRecord(b []byte) (seq uint64, payload []byte, size int, bad problem) {
	if len(b) < recordHeaderSize {
		return 0, nil, 0, problem{kind: shortHeader, have: len(b)}
	}
	length := binary.LittleEndian.Uint32(b[0:4])
	switch {
	case length == 0:
		return 0, nil, 0, problem{kind: zeroLength, have: len(b)}
	case length > MaxRecordSize:
		return 0, nil, 0, problem{kind: overLimit, length: length, have: len(b)}
	case int(length) > len(b)-recordHeaderSize:
		return 0, nil, 0, problem{kind: pastEnd, length: length, have: len(b)}
	}
	size = recordHeaderSize + int(length)
	if recordCRC(b[0:4], b[8:size]) != binary.LittleEndian.Uint32(b[4:8]) {
		return 0, nil, 0, problem{kind: badChecksum, length: length, have: len(b)}
	}
	return binary.LittleEndian.Uint64(b[8:16]), b[recordHeaderSize:size], size, problem{}
}

// validRecordFrom returns the offset of the first whole record with a good checksum at
// or after from in b, and false if there is none.
func validRecordFrom(b []byte, from int) (int, bool) {
	for off := from; off+recordHeaderSize < len(b); off++ {
		if _, _, _, bad := decodeRecord(b[off:]); bad.kind == fine {
			return off, true
		}
	}
	return 0, false
}

// allZero reports whether b holds only zero bytes.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// appendSnapshot appends the snapshot file of data covering records up to seq.
func appendSnapshot(dst []byte, seq uint64, data []byte) []byte {
	start := len(dst)
	dst = append(dst, snapshotMagic...)
	dst = binary.LittleEndian.AppendUint16(dst, formatVersion)
	dst = append(dst, 0, 0)
	dst = binary.LittleEndian.AppendUint64(dst, seq)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(data)))
	crc := crc32.Update(crc32.Checksum(dst[start:], castagnoli), castagnoli, data)
	dst = binary.LittleEndian.AppendUint32(dst, crc)
	return append(dst, data...)
}

// parseSnapshot reads a snapshot file and returns the sequence number it covers and its
// data (a sub-slice of b), or what is wrong with it and at which byte offset.
func parseSnapshot(b []byte) (seq uint64, data []byte, off int64, bad string) {
	if len(b) < snapshotHeaderSize {
		return 0, nil, int64(len(b)), fmt.Sprintf("snapshot header: file has %d of its %d bytes", len(b), snapshotHeaderSize)
	}
	if string(b[0:4]) != snapshotMagic {
		return 0, nil, 0, fmt.Sprintf("snapshot header: magic %q, want %q", b[0:4], snapshotMagic)
	}
	if v := binary.LittleEndian.Uint16(b[4:6]); v != formatVersion || b[6] != 0 || b[7] != 0 {
		return 0, nil, 4, fmt.Sprintf("snapshot header: format version %d/%d/%d, want %d/0/0", v, b[6], b[7], formatVersion)
	}
	n := binary.LittleEndian.Uint64(b[16:24])
	if n != uint64(len(b)-snapshotHeaderSize) {
		return 0, nil, 16, fmt.Sprintf("snapshot length %d, but the file holds %d data bytes", n, len(b)-snapshotHeaderSize)
	}
	data = b[snapshotHeaderSize:]
	if crc32.Update(crc32.Checksum(b[0:24], castagnoli), castagnoli, data) != binary.LittleEndian.Uint32(b[24:28]) {
		return 0, nil, 24, "snapshot checksum mismatch"
	}
	return binary.LittleEndian.Uint64(b[8:16]), data, 0, ""
}
