package journal

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
)

// The on-disk format. docs/journal.md describes it byte by byte; all integers are
// little-endian. Format 2 adds the hash chain; format 1 segments (no chain) are still read.
//
// Segment header (segmentHeaderSize bytes; format 1: segmentHeaderSizeV1, no chain-in):
//
//	0:4   magic "TCJL"
//	4:6   format version (2)
//	6:8   zero
//	8:16  sequence number of the segment's first record
//	16:48 chain-in: the chain hash of the record before the first (zero before record 1)
//	48:52 CRC32C of bytes 0:48
//
// Record (recordHeaderSize bytes, then the payload; format 1: recordHeaderSizeV1, no hash):
//
//	0:4   payload length, 1 to MaxRecordSize
//	4:8   CRC32C of bytes 0:4, then 8: to the end of the payload
//	8:16  sequence number
//	16:48 chain hash: SHA-256 of the previous record's chain hash, the sequence number
//	      (8 bytes) and the payload
//	48:   payload
//
// Snapshot file (snapshotHeaderSize bytes, then the data; format 2 has neither digest nor
// signature, format 1 no hash either):
//
//	0:4     magic "TCJS"
//	4:6     format version (3)
//	6:8     zero
//	8:16    sequence number of the last record the snapshot covers
//	16:48   that record's chain hash
//	48:80   SHA-256 of the data
//	80:144  Ed25519 signature of snapshotMessage (zero: unsigned)
//	144:152 data length
//	152:156 CRC32C of bytes 0:152 and the data
//	156:    data
const (
	segmentMagic  = "TCJL"
	snapshotMagic = "TCJS"
	formatV1      = 1
	formatV2      = 2
	formatV3      = 3        // snapshots only: the data's SHA-256 and a signature
	formatVersion = formatV2 // the version new segments are written in

	// snapshotVersion is the version new snapshots are written in.
	snapshotVersion = formatV3

	segmentHeaderSizeV1  = 20
	recordHeaderSizeV1   = 16
	snapshotHeaderSizeV1 = 28
	snapshotHeaderSizeV2 = 60
	segmentHeaderSize    = 52
	recordHeaderSize     = 48
	snapshotHeaderSize   = 156

	// MaxRecordSize is the largest payload one record may carry. A length field above it
	// is damage, whatever the file holds after it.
	MaxRecordSize = 4 << 20

	segmentSuffix = ".seg"
	segmentDigits = 20
	snapshotName  = "snapshot"
	tempSuffix    = ".tmp"
)

// HashSize is the size of a chain hash.
const HashSize = sha256.Size

// Hash is a chain hash: the SHA-256 of the previous record's chain hash, the record's
// sequence number and its payload. The chain hash of the last record stands for the whole
// journal up to it.
type Hash [HashSize]byte

// String returns the hash in hexadecimal.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// ParseHash reads a hash written by Hash.String.
func ParseHash(s string) (Hash, error) {
	var h Hash
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != HashSize {
		return h, fmt.Errorf("chain hash %q: want %d hexadecimal digits", s, 2*HashSize)
	}
	copy(h[:], b)
	return h, nil
}

// chainHash is the chain hash of the record with sequence number seq and payload p after
// a record whose chain hash is prev.
func chainHash(prev Hash, seq uint64, p []byte) Hash {
	// Most records are small: hashed from one buffer on the stack, with no digest to
	// allocate; the hash is the same.
	const small = 320
	if len(p) <= small-len(prev)-8 {
		var b [small]byte
		n := copy(b[:], prev[:])
		binary.LittleEndian.PutUint64(b[n:], seq)
		n += 8
		n += copy(b[n:], p)
		return sha256.Sum256(b[:n])
	}
	d := sha256.New()
	d.Write(prev[:])
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], seq)
	d.Write(n[:])
	d.Write(p)
	var h Hash
	d.Sum(h[:0])
	return h
}

// recordHeaderSizeOf is the record header size of segments in format version v.
func recordHeaderSizeOf(v uint16) int {
	if v == formatV1 {
		return recordHeaderSizeV1
	}
	return recordHeaderSize
}

// segmentHeaderSizeOf is the segment header size in format version v.
func segmentHeaderSizeOf(v uint16) int {
	if v == formatV1 {
		return segmentHeaderSizeV1
	}
	return segmentHeaderSize
}

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

// appendSegmentHeader appends the header of a segment starting at sequence number first,
// whose chain starts from chainIn.
func appendSegmentHeader(dst []byte, first uint64, chainIn Hash) []byte {
	start := len(dst)
	dst = append(dst, segmentMagic...)
	dst = binary.LittleEndian.AppendUint16(dst, formatVersion)
	dst = append(dst, 0, 0)
	dst = binary.LittleEndian.AppendUint64(dst, first)
	dst = append(dst, chainIn[:]...)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// segmentHeader is a parsed segment header.
type segmentHeader struct {
	version uint16
	first   uint64 // sequence number of the first record
	chainIn Hash   // format 2 only
}

// parseSegmentHeader reads a segment header at the start of b, or says what is wrong
// with it.
func parseSegmentHeader(b []byte) (segmentHeader, string) {
	if len(b) < 6 || string(b[0:4]) != segmentMagic {
		if len(b) < segmentHeaderSizeV1 {
			return segmentHeader{}, fmt.Sprintf("segment header: file has %d of its %d bytes", len(b), segmentHeaderSizeV1)
		}
		return segmentHeader{}, fmt.Sprintf("segment header: magic %q, want %q", b[0:4], segmentMagic)
	}
	v := binary.LittleEndian.Uint16(b[4:6])
	if v != formatV1 && v != formatV2 {
		return segmentHeader{}, fmt.Sprintf("segment header: format version %d, want %d or %d", v, formatV1, formatV2)
	}
	size := segmentHeaderSizeOf(v)
	if len(b) < size {
		return segmentHeader{}, fmt.Sprintf("segment header: file has %d of its %d bytes", len(b), size)
	}
	if crc32.Checksum(b[0:size-4], castagnoli) != binary.LittleEndian.Uint32(b[size-4:size]) {
		return segmentHeader{}, "segment header: checksum mismatch"
	}
	if b[6] != 0 || b[7] != 0 {
		return segmentHeader{}, "segment header: reserved bytes are not zero"
	}
	h := segmentHeader{version: v, first: binary.LittleEndian.Uint64(b[8:16])}
	if v == formatV2 {
		copy(h.chainIn[:], b[16:48])
	}
	return h, ""
}

// appendRecord appends the framed record of payload p with sequence number seq, chained
// after a record whose chain hash is prev, and returns the record's own chain hash.
func appendRecord(dst []byte, seq uint64, prev Hash, p []byte) ([]byte, Hash) {
	h := chainHash(prev, seq, p)
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(p)))
	dst = append(dst, 0, 0, 0, 0) // checksum, filled in below
	dst = binary.LittleEndian.AppendUint64(dst, seq)
	dst = append(dst, h[:]...)
	dst = append(dst, p...)
	rec := dst[start:]
	binary.LittleEndian.PutUint32(rec[4:8], recordCRC(rec[0:4], rec[8:]))
	return dst, h
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
	header int    // the record header size of the segment's format
}

func (p problem) String() string {
	switch p.kind {
	case fine:
		return "valid record"
	case shortHeader:
		return fmt.Sprintf("short record header: %d of %d bytes", p.have, p.header)
	case zeroLength:
		return "record length 0"
	case overLimit:
		return fmt.Sprintf("record length %d over the limit of %d", p.length, MaxRecordSize)
	case pastEnd:
		return fmt.Sprintf("record length %d runs past the end of the file (%d payload bytes present)",
			p.length, p.have-p.header)
	case badChecksum:
		return "record checksum mismatch"
	}
	return "unknown problem"
}

// decoded is one record read from a segment.
type decoded struct {
	seq     uint64
	hash    Hash   // the chain hash the record carries (format 2 only)
	payload []byte // a sub-slice of the segment's bytes
	size    int    // header and payload
}

// decodeRecord reads the record of format version v at the start of b, or returns the
// problem that makes it invalid. It checks the framing and the checksum, not the chain.
func decodeRecord(b []byte, v uint16) (decoded, problem) {
	hdr := recordHeaderSizeOf(v)
	if len(b) < hdr {
		return decoded{}, problem{kind: shortHeader, have: len(b), header: hdr}
	}
	length := binary.LittleEndian.Uint32(b[0:4])
	switch {
	case length == 0:
		return decoded{}, problem{kind: zeroLength, have: len(b)}
	case length > MaxRecordSize:
		return decoded{}, problem{kind: overLimit, length: length, have: len(b)}
	case int(length) > len(b)-hdr:
		return decoded{}, problem{kind: pastEnd, length: length, have: len(b), header: hdr}
	}
	size := hdr + int(length)
	if recordCRC(b[0:4], b[8:size]) != binary.LittleEndian.Uint32(b[4:8]) {
		return decoded{}, problem{kind: badChecksum, length: length, have: len(b)}
	}
	d := decoded{seq: binary.LittleEndian.Uint64(b[8:16]), payload: b[hdr:size], size: size}
	if v != formatV1 {
		copy(d.hash[:], b[16:48])
	}
	return d, problem{}
}

// validRecordFrom returns the offset of the first whole record with a good checksum at
// or after from in b, and false if there is none.
func validRecordFrom(b []byte, from int, v uint16) (int, bool) {
	for off := from; off+recordHeaderSizeOf(v) < len(b); off++ {
		if _, bad := decodeRecord(b[off:], v); bad.kind == fine {
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

// snapshotContext starts the message a snapshot's signature covers.
const snapshotContext = "tablectl journal snapshot\x00"

// snapshotMessage is the message a snapshot's signature covers: a fixed context string,
// the sequence number of the last record covered (8 bytes, little-endian), that record's
// chain hash and the SHA-256 of the snapshot's data.
func snapshotMessage(seq uint64, h Hash, digest [sha256.Size]byte) []byte {
	m := append([]byte(snapshotContext), make([]byte, 8)...)
	binary.LittleEndian.PutUint64(m[len(snapshotContext):], seq)
	m = append(m, h[:]...)
	return append(m, digest[:]...)
}

// appendSnapshot appends the snapshot file of data covering records up to seq, whose
// chain hash is h, signed with key (unsigned, its signature zero, when key is nil).
func appendSnapshot(dst []byte, seq uint64, h Hash, data []byte, key ed25519.PrivateKey) []byte {
	digest := sha256.Sum256(data)
	var sig [ed25519.SignatureSize]byte
	if key != nil {
		copy(sig[:], ed25519.Sign(key, snapshotMessage(seq, h, digest)))
	}
	return encodeSnapshot(dst, seq, h, digest, sig, data)
}

// encodeSnapshot appends the snapshot file of the given fields (format 3).
func encodeSnapshot(dst []byte, seq uint64, h Hash, digest [sha256.Size]byte, sig [ed25519.SignatureSize]byte, data []byte) []byte {
	start := len(dst)
	dst = append(dst, snapshotMagic...)
	dst = binary.LittleEndian.AppendUint16(dst, snapshotVersion)
	dst = append(dst, 0, 0)
	dst = binary.LittleEndian.AppendUint64(dst, seq)
	dst = append(dst, h[:]...)
	dst = append(dst, digest[:]...)
	dst = append(dst, sig[:]...)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(data)))
	crc := crc32.Update(crc32.Checksum(dst[start:], castagnoli), castagnoli, data)
	dst = binary.LittleEndian.AppendUint32(dst, crc)
	return append(dst, data...)
}

// snapshotFile is a parsed snapshot file.
type snapshotFile struct {
	version uint16
	seq     uint64                      // the last record covered
	hash    Hash                        // that record's chain hash (format 2 and 3)
	digest  [sha256.Size]byte           // the SHA-256 of data (format 3)
	sig     [ed25519.SignatureSize]byte // its signature, zero when unsigned (format 3)
	data    []byte                      // a sub-slice of the file's bytes
}

// signed reports whether the snapshot carries a signature.
func (s snapshotFile) signed() bool {
	return s.version >= formatV3 && s.sig != [ed25519.SignatureSize]byte{}
}

// verify reports whether the snapshot's signature is pub's.
func (s snapshotFile) verify(pub ed25519.PublicKey) bool {
	return s.signed() && len(pub) == ed25519.PublicKeySize &&
		ed25519.Verify(pub, snapshotMessage(s.seq, s.hash, s.digest), s.sig[:])
}

// parseSnapshot reads a snapshot file, or says what is wrong with it and at which byte
// offset. It checks the framing, the checksum and (format 3) that the data is what the
// header's SHA-256 says; the signature and the chain are the caller's to check.
func parseSnapshot(b []byte) (snapshotFile, int64, string) {
	if len(b) < 8 || string(b[0:4]) != snapshotMagic {
		if len(b) < snapshotHeaderSizeV1 {
			return snapshotFile{}, int64(len(b)), fmt.Sprintf("snapshot header: file has %d of its %d bytes", len(b), snapshotHeaderSizeV1)
		}
		return snapshotFile{}, 0, fmt.Sprintf("snapshot header: magic %q, want %q", b[0:4], snapshotMagic)
	}
	v := binary.LittleEndian.Uint16(b[4:6])
	if (v != formatV1 && v != formatV2 && v != formatV3) || b[6] != 0 || b[7] != 0 {
		return snapshotFile{}, 4, fmt.Sprintf("snapshot header: format version %d/%d/%d, want %d/0/0", v, b[6], b[7], snapshotVersion)
	}
	hdr, lenAt := snapshotHeaderSize, 144
	switch v {
	case formatV1:
		hdr, lenAt = snapshotHeaderSizeV1, 16
	case formatV2:
		hdr, lenAt = snapshotHeaderSizeV2, 48
	}
	if len(b) < hdr {
		return snapshotFile{}, int64(len(b)), fmt.Sprintf("snapshot header: file has %d of its %d bytes", len(b), hdr)
	}
	n := binary.LittleEndian.Uint64(b[lenAt : lenAt+8])
	if n != uint64(len(b)-hdr) {
		return snapshotFile{}, int64(lenAt), fmt.Sprintf("snapshot length %d, but the file holds %d data bytes", n, len(b)-hdr)
	}
	s := snapshotFile{version: v, seq: binary.LittleEndian.Uint64(b[8:16]), data: b[hdr:]}
	if crc32.Update(crc32.Checksum(b[0:hdr-4], castagnoli), castagnoli, s.data) != binary.LittleEndian.Uint32(b[hdr-4:hdr]) {
		return snapshotFile{}, int64(hdr - 4), "snapshot checksum mismatch"
	}
	if v != formatV1 {
		copy(s.hash[:], b[16:48])
	}
	if v == formatV3 {
		copy(s.digest[:], b[48:80])
		copy(s.sig[:], b[80:144])
		if sha256.Sum256(s.data) != s.digest {
			return snapshotFile{}, 48, "snapshot data does not match the SHA-256 in its header"
		}
	}
	return s, 0, ""
}
