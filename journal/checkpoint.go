package journal

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// A checkpoint is the chain head (a record's sequence number and chain hash) signed with
// the table's Ed25519 key. The table signs one at each round's end, keeps it in the
// journal directory's heads file and publishes it, so that a witness off the table holds
// what the journal said then. docs/journal.md describes the threat model.
//
// Heads file entry (headEntrySize bytes, appended and synced one at a time):
//
//	0:8     sequence number of the record
//	8:40    its chain hash
//	40:104  Ed25519 signature of headMessage(seq, hash)
//	104:108 CRC32C of bytes 0:104
const (
	headsName     = "heads"
	headEntrySize = 108
	headContext   = "tablectl journal head\x00"
	// tableHeadContext begins the message of a head that names its table (Checkpoint
	// Table): the context, the table id's length (one byte) and the id, then the
	// sequence number and the chain hash as for an unnamed head.
	tableHeadContext = "tablectl table head\x00"
)

// MaxTableLen is the longest table id a head names, in bytes.
const MaxTableLen = 64

// Checkpoint is a signed chain head. A head that names its table (Table set) is signed
// over the table id too, so it vouches for that table's records alone: the head the
// table signs for each batch it ships to the floor's archive names the table. The
// heads file holds unnamed heads only.
type Checkpoint struct {
	// Table is the id of the table whose chain the head is; "" for an unnamed head
	// (the heads file's).
	Table string `json:"table,omitempty"`
	// Seq is the sequence number of the record the checkpoint vouches for.
	Seq uint64 `json:"seq"`
	// Hash is that record's chain hash, which stands for every record up to it.
	Hash Hash `json:"hash"`
	// Sig is the Ed25519 signature of the head.
	Sig []byte `json:"sig"`
}

// headMessage is the message a checkpoint's signature covers: a fixed context string, the
// sequence number (8 bytes, little-endian) and the chain hash.
func headMessage(seq uint64, h Hash) []byte {
	m := append([]byte(headContext), make([]byte, 8)...)
	binary.LittleEndian.PutUint64(m[len(headContext):], seq)
	return append(m, h[:]...)
}

// tableHeadMessage is the message a named head's signature covers:
// tableHeadContext, the table id's length (one byte) and the id, the sequence number
// (8 bytes, little-endian) and the chain hash. The context differs from an unnamed
// head's, so neither signature can stand for the other.
func tableHeadMessage(table string, seq uint64, h Hash) []byte {
	m := make([]byte, 0, len(tableHeadContext)+1+len(table)+8+len(h))
	m = append(m, tableHeadContext...)
	m = append(m, byte(len(table)))
	m = append(m, table...)
	m = binary.LittleEndian.AppendUint64(m, seq)
	return append(m, h[:]...)
}

// message is the message c's signature covers.
func (c Checkpoint) message() []byte {
	if c.Table != "" {
		return tableHeadMessage(c.Table, c.Seq, c.Hash)
	}
	return headMessage(c.Seq, c.Hash)
}

// Sign returns the checkpoint of record seq with chain hash h, signed with key.
func Sign(key ed25519.PrivateKey, seq uint64, h Hash) Checkpoint {
	return Checkpoint{Seq: seq, Hash: h, Sig: ed25519.Sign(key, headMessage(seq, h))}
}

// SignTable returns the head of table's record seq with chain hash h, naming the table,
// signed with key. The table id must be 1 to MaxTableLen bytes.
func SignTable(key ed25519.PrivateKey, table string, seq uint64, h Hash) (Checkpoint, error) {
	if table == "" || len(table) > MaxTableLen {
		return Checkpoint{}, fmt.Errorf("journal: a head names a table of 1 to %d bytes, not %q", MaxTableLen, table)
	}
	return Checkpoint{Table: table, Seq: seq, Hash: h, Sig: ed25519.Sign(key, tableHeadMessage(table, seq, h))}, nil
}

// Verify reports whether the checkpoint's signature is pub's: over the table id too for
// a head that names one.
func (c Checkpoint) Verify(pub ed25519.PublicKey) bool {
	return len(pub) == ed25519.PublicKeySize && len(c.Sig) == ed25519.SignatureSize &&
		len(c.Table) <= MaxTableLen && ed25519.Verify(pub, c.message(), c.Sig)
}

// MarshalText writes the hash in hexadecimal, for JSON.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText reads a hash written by MarshalText.
func (h *Hash) UnmarshalText(b []byte) error {
	v, err := ParseHash(string(b))
	if err != nil {
		return err
	}
	*h = v
	return nil
}

// MarshalJSON writes the checkpoint as {"seq":N,"hash":"HEX","sig":"BASE64"}, with
// "table" first for a head that names its table.
func (c Checkpoint) MarshalJSON() ([]byte, error) {
	type plain Checkpoint
	return json.Marshal(struct {
		plain
		Sig string `json:"sig"`
	}{plain(c), base64.StdEncoding.EncodeToString(c.Sig)})
}

// UnmarshalJSON reads a checkpoint written by MarshalJSON.
func (c *Checkpoint) UnmarshalJSON(b []byte) error {
	var v struct {
		Table string  `json:"table"`
		Seq   *uint64 `json:"seq"`
		Hash  *Hash   `json:"hash"`
		Sig   *string `json:"sig"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if v.Seq == nil || v.Hash == nil || v.Sig == nil {
		return errors.New(`checkpoint: want "seq", "hash" and "sig"`)
	}
	sig, err := base64.StdEncoding.DecodeString(*v.Sig)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("checkpoint of record %d: sig: want %d bytes in base64", *v.Seq, ed25519.SignatureSize)
	}
	if len(v.Table) > MaxTableLen {
		return fmt.Errorf("checkpoint of record %d: table: at most %d bytes", *v.Seq, MaxTableLen)
	}
	*c = Checkpoint{Table: v.Table, Seq: *v.Seq, Hash: *v.Hash, Sig: sig}
	return nil
}

// appendHeadEntry appends the heads file entry of c.
func appendHeadEntry(dst []byte, c Checkpoint) []byte {
	start := len(dst)
	dst = binary.LittleEndian.AppendUint64(dst, c.Seq)
	dst = append(dst, c.Hash[:]...)
	dst = append(dst, c.Sig...)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// Checkpoint signs the journal's head (its last synced record) with key, appends the
// checkpoint to the heads file, syncs it and returns it. A journal with no record yet has
// nothing to sign.
func (j *Journal) Checkpoint(key ed25519.PrivateKey) (Checkpoint, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.writable(); err != nil {
		return Checkpoint{}, err
	}
	if err := j.syncLocked(); err != nil {
		return Checkpoint{}, err
	}
	if j.synced == 0 {
		return Checkpoint{}, errors.New("journal: checkpoint: no record to sign yet")
	}
	c := Sign(key, j.synced, j.head)
	if err := j.appendHead(c); err != nil {
		return Checkpoint{}, j.fail(fmt.Errorf("journal: checkpoint of record %d: %w", c.Seq, err))
	}
	return c, nil
}

// appendHead appends c's entry to the heads file and syncs it. A partial entry left at
// its end by a power cut is cut off first, so entries stay whole.
func (j *Journal) appendHead(c Checkpoint) error {
	path := filepath.Join(j.dir, headsName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err == nil && st.Size()%headEntrySize != 0 {
		err = f.Truncate(st.Size() - st.Size()%headEntrySize)
	}
	var n int
	if err == nil {
		n, err = f.WriteAt(appendHeadEntry(nil, c), st.Size()-st.Size()%headEntrySize)
		j.stats.Bytes += int64(n)
	}
	if err == nil {
		err = f.Sync()
		j.stats.Syncs++
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && st.Size() == 0 {
		err = j.syncDir()
	}
	return err
}

// Checkpoints returns the checkpoints of the heads file in the order they were written.
// A partial entry at the end (a power cut during the write) is left out; a damaged entry
// before it is a *CorruptError.
func (j *Journal) Checkpoints() ([]Checkpoint, error) {
	return ReadHeads(filepath.Join(j.dir, headsName))
}

// ReadHeads reads the heads file at path as Checkpoints does: the checkpoints in the order
// they were written, up to any damaged entry, which is a *CorruptError. A missing file
// holds none.
func ReadHeads(path string) ([]Checkpoint, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: read heads: %w", err)
	}
	var cs []Checkpoint
	for off := 0; off+headEntrySize <= len(b); off += headEntrySize {
		e := b[off : off+headEntrySize]
		if crc32.Checksum(e[:104], castagnoli) != binary.LittleEndian.Uint32(e[104:]) {
			return cs, &CorruptError{File: headsName, Offset: int64(off), Reason: "checkpoint checksum mismatch"}
		}
		c := Checkpoint{Seq: binary.LittleEndian.Uint64(e[0:8]), Sig: append([]byte(nil), e[40:104]...)}
		copy(c.Hash[:], e[8:40])
		if len(cs) > 0 && c.Seq < cs[len(cs)-1].Seq {
			return cs, &CorruptError{File: headsName, Offset: int64(off), Seq: c.Seq,
				Reason: fmt.Sprintf("checkpoint of record %d after one of record %d", c.Seq, cs[len(cs)-1].Seq)}
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// lastCheckpoint reads the last whole entry of the heads file in dir, without reading the
// rest: nil when there is none.
func lastCheckpoint(dir string) (*Checkpoint, error) {
	f, err := os.Open(filepath.Join(dir, headsName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: read heads: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("journal: read heads: %w", err)
	}
	whole := st.Size() - st.Size()%headEntrySize
	if whole == 0 {
		return nil, nil
	}
	e := make([]byte, headEntrySize)
	if _, err := f.ReadAt(e, whole-headEntrySize); err != nil {
		return nil, fmt.Errorf("journal: read heads: %w", err)
	}
	if crc32.Checksum(e[:104], castagnoli) != binary.LittleEndian.Uint32(e[104:]) {
		return nil, &CorruptError{File: headsName, Offset: whole - headEntrySize, Reason: "checkpoint checksum mismatch"}
	}
	c := Checkpoint{Seq: binary.LittleEndian.Uint64(e[0:8]), Sig: e[40:104]}
	copy(c.Hash[:], e[8:40])
	return &c, nil
}

// HeadProblem is a checkpoint that the journal does not bear out.
type HeadProblem struct {
	// Checkpoint is the checkpoint in question.
	Checkpoint Checkpoint
	// Source says where it came from: "heads" (the journal's own file) or the witness.
	Source string
	// Reason says what is wrong: a bad signature, a record missing, or a record whose
	// chain hash is not the one signed.
	Reason string
}

func (p HeadProblem) String() string {
	return fmt.Sprintf("%s: checkpoint of record %d: %s", p.Source, p.Checkpoint.Seq, p.Reason)
}

// CheckHeads checks checkpoints against the journal: each must be signed by pub (when pub
// is not nil), and the journal must hold its record with exactly the chain hash signed.
// It reads every record once and returns one HeadProblem per checkpoint that fails, and
// the number of checkpoints of records no longer in the journal (archived or compacted
// away), whose signatures alone are checked; an error reading the journal ends the check.
func (j *Journal) CheckHeads(pub ed25519.PublicKey, source string, heads []Checkpoint) (problems []HeadProblem, elsewhere int, err error) {
	hc := j.NewHeadCheck(heads)
	for r, err := range j.Records(hc.From()) {
		if err != nil {
			return nil, 0, err
		}
		hc.See(r)
	}
	problems, elsewhere = hc.Problems(pub, source, heads)
	return problems, elsewhere, nil
}

// HeadCheck is CheckHeads for a caller that reads the records itself, to check several
// sets of checkpoints, or to do more with the records, in the one reading: it is handed
// every record from From on, in order, then gives each set's problems.
type HeadCheck struct {
	from  uint64
	seqs  []uint64 // the records the checkpoints name, sorted, each once
	found []Hash   // the chain hash of each, by index in seqs
	have  []bool   // whether it was found
	next  int      // the index in seqs of the next record to look out for
}

// NewHeadCheck prepares the check of the checkpoints of every set given.
func (j *Journal) NewHeadCheck(sets ...[]Checkpoint) *HeadCheck {
	hc := &HeadCheck{from: 1}
	for _, heads := range sets {
		for _, c := range heads {
			hc.seqs = append(hc.seqs, c.Seq)
		}
	}
	slices.Sort(hc.seqs)
	hc.seqs = slices.Compact(hc.seqs)
	hc.found, hc.have = make([]Hash, len(hc.seqs)), make([]bool, len(hc.seqs))
	j.mu.Lock()
	segs := slices.Clone(j.segs)
	j.mu.Unlock()
	if len(segs) > 0 {
		hc.from = segs[0].first
	}
	for _, s := range segs {
		if i, ok := slices.BinarySearch(hc.seqs, s.first-1); ok && s.version != formatV1 {
			hc.found[i], hc.have[i] = s.chainIn, true // the last record before the chain's first segment
		}
	}
	return hc
}

// From is the first record the check must be handed: the journal's first.
func (hc *HeadCheck) From() uint64 { return hc.from }

// See takes the next record read, in order of sequence number.
func (hc *HeadCheck) See(r Record) {
	for hc.next < len(hc.seqs) && hc.seqs[hc.next] < r.Seq {
		hc.next++
	}
	if hc.next < len(hc.seqs) && hc.seqs[hc.next] == r.Seq && r.Hash != (Hash{}) {
		hc.found[hc.next], hc.have[hc.next] = r.Hash, true
	}
}

// Problems checks heads, one of the sets the check was made for, from source, against
// the records seen, as CheckHeads does.
func (hc *HeadCheck) Problems(pub ed25519.PublicKey, source string, heads []Checkpoint) (problems []HeadProblem, elsewhere int) {
	for _, c := range heads {
		i, ok := slices.BinarySearch(hc.seqs, c.Seq)
		ok = ok && hc.have[i]
		switch {
		case pub != nil && !c.Verify(pub):
			problems = append(problems, HeadProblem{c, source, "signature does not verify with the table's public key"})
		case !ok && c.Seq < hc.from:
			elsewhere++
		case !ok:
			problems = append(problems, HeadProblem{c, source, fmt.Sprintf("the journal has no chained record %d", c.Seq)})
		case hc.found[i] != c.Hash:
			problems = append(problems, HeadProblem{c, source,
				fmt.Sprintf("record %d's chain hash is %s, the checkpoint signed %s", c.Seq, hc.found[i], c.Hash)})
		}
	}
	return problems, elsewhere
}

// LastCheckpoint returns the last whole checkpoint of the heads file, nil when there is
// none; a damaged last entry is a *CorruptError. It reads that entry alone.
func (j *Journal) LastCheckpoint() (*Checkpoint, error) {
	c, err := lastCheckpoint(j.dir)
	if c != nil {
		c.Sig = append([]byte(nil), c.Sig...)
	}
	return c, err
}

// HashAt returns the chain hash of record seq, reading it back from its segment (every
// record of the segment up to it is checked on the way) unless it is the last record. A
// record compacted or archived away, or not yet written, is an error.
func (j *Journal) HashAt(seq uint64) (Hash, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.closed:
		return Hash{}, ErrClosed
	case seq == 0 || seq >= j.next:
		return Hash{}, fmt.Errorf("journal: no record %d: the journal ends at record %d", seq, j.next-1)
	case len(j.segs) > 0 && seq < j.segs[0].first:
		return Hash{}, fmt.Errorf("journal: record %d was archived or compacted away (the first left is %d)", seq, j.segs[0].first)
	}
	return j.hashAt(seq)
}
