package journal

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"maps"
	"strings"
	"testing"
)

// The tamper tests: a person who changes the journal and makes every checksum and
// sequence number consistent again is caught by the hash chain (a change that does not
// recompute the chain), by the signed checkpoints (one that does, without the table's
// key) or by a witness's copy of the checkpoints (one made with the key).

// testKey is a fixed Ed25519 key, so that failures can be reproduced.
func testKey(seed byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
}

// reframe rewrites a record's checksum after its bytes were changed, as a person with
// docs/journal.md in hand would.
func reframe(rec []byte) []byte {
	binary.LittleEndian.PutUint32(rec[4:8], recordCRC(rec[0:4], rec[8:]))
	return rec
}

// recordBytes returns the framed records of a one-segment journal built by buildJournal.
func recordBytes(files map[string][]byte, lay []layout) [][]byte {
	var recs [][]byte
	for _, l := range lay {
		recs = append(recs, bytes.Clone(files[l.file][l.start:l.end]))
	}
	return recs
}

// withSeq returns rec renumbered to seq, checksum recomputed.
func withSeq(rec []byte, seq uint64) []byte {
	rec = bytes.Clone(rec)
	binary.LittleEndian.PutUint64(rec[8:16], seq)
	return reframe(rec)
}

// signedJournal writes n records in one segment, with a checkpoint signed by key after
// every third record and after the last, and returns its files and layout.
func signedJournal(t *testing.T, n int, key ed25519.PrivateKey) (map[string][]byte, []layout, []Checkpoint) {
	t.Helper()
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{})
	var heads []Checkpoint
	for i := 1; i <= n; i++ {
		appendAll(t, j, i, i)
		if i%3 == 0 || i == n {
			c, err := j.Checkpoint(key)
			if err != nil {
				t.Fatal(err)
			}
			heads = append(heads, c)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	files := dirFiles(t, dir)
	var lay []layout
	off := int64(segmentHeaderSize)
	for i := 1; i <= n; i++ {
		size := int64(recordHeaderSize + len(payload(i)))
		lay = append(lay, layout{file: segmentName(1), start: off, end: off + size, seq: uint64(i)})
		off += size
	}
	if int64(len(files[segmentName(1)])) != off {
		t.Fatalf("segment is %d bytes, want %d", len(files[segmentName(1)]), off)
	}
	return files, lay, heads
}

// openDamaged opens files read-only and returns the *CorruptError Open gives.
func openDamaged(t *testing.T, files map[string][]byte, what string) *CorruptError {
	t.Helper()
	j, _, err := Open(writeDir(t, files), Options{ReadOnly: true})
	if err == nil {
		j.Close()
		t.Fatalf("%s: Open found nothing wrong", what)
	}
	return asCorrupt(t, err, what)
}

// TestTamperAtEveryRecord changes, removes and swaps each record of a journal with every
// checksum and sequence number made consistent again, and drops the last record: Open
// names the first record that does not chain (or the checkpoint that no longer holds).
func TestTamperAtEveryRecord(t *testing.T) {
	t.Parallel()
	const n = 8
	files, lay, _ := signedJournal(t, n, testKey(1))
	seg := segmentName(1)
	header := files[seg][:segmentHeaderSize]
	recs := recordBytes(files, lay)
	build := func(rs [][]byte) map[string][]byte {
		f := maps.Clone(files)
		f[seg] = append(bytes.Clone(header), bytes.Join(rs, nil)...)
		return f
	}
	for k := range n {
		seq := uint64(k + 1)

		changed := slicesClone(recs)
		changed[k] = bytes.Clone(recs[k])
		i := bytes.Index(changed[k], []byte(`"card":"`)) + len(`"card":"`)
		changed[k][i] ^= 0x01 // one card for another: 'T' to 'U', '9' to '8'...
		reframe(changed[k])
		if ce := openDamaged(t, build(changed), "changed card"); ce.Seq != seq || ce.Offset != lay[k].start ||
			!strings.Contains(ce.Reason, "does not chain") {
			t.Errorf("record %d changed: got %v", seq, ce)
		}

		removed := slicesClone(recs[:k])
		for m := k + 1; m < n; m++ {
			removed = append(removed, withSeq(recs[m], uint64(m)))
		}
		if k == n-1 {
			if ce := openDamaged(t, build(removed), "last record dropped"); ce.File != headsName ||
				!strings.Contains(ce.Reason, "the last checkpoint signed record 8, but the journal ends at record 7") {
				t.Errorf("last record dropped: got %v", ce)
			}
		} else if ce := openDamaged(t, build(removed), "record removed"); ce.Seq != seq || !strings.Contains(ce.Reason, "does not chain") {
			t.Errorf("record %d removed, the rest renumbered: got %v", seq, ce)
		}

		if k+1 < n {
			swapped := slicesClone(recs)
			swapped[k], swapped[k+1] = withSeq(recs[k+1], seq), withSeq(recs[k], seq+1)
			if ce := openDamaged(t, build(swapped), "swapped"); ce.Seq != seq || !strings.Contains(ce.Reason, "does not chain") {
				t.Errorf("records %d and %d swapped: got %v", seq, seq+1, ce)
			}
		}
	}
}

func slicesClone(rs [][]byte) [][]byte { return append([][]byte(nil), rs...) }

// TestRewriteWithTheKey: a journal rewritten from its first record, chain recomputed and
// every checkpoint signed again with the table's own key, passes Open and its own heads,
// but not a witness that recorded the checkpoints as they were published.
func TestRewriteWithTheKey(t *testing.T) {
	t.Parallel()
	key := testKey(2)
	pub := key.Public().(ed25519.PublicKey)
	_, _, witnessed := signedJournal(t, 7, key)

	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{})
	for i := 1; i <= 7; i++ {
		p := payload(i)
		if i == 4 {
			p = bytes.Replace(p, []byte(`"card":"`), []byte(`"card":"9`), 1)
		}
		if _, err := j.Append(p); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 || i == 7 {
			if _, err := j.Checkpoint(key); err != nil {
				t.Fatal(err)
			}
		}
	}
	j.Close()

	j, _, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("a consistent rewrite should open: %v", err)
	}
	defer j.Close()
	own, err := j.Checkpoints()
	if err != nil || len(own) != 3 {
		t.Fatalf("heads: %d checkpoints, %v", len(own), err)
	}
	if probs, _, err := j.CheckHeads(pub, "heads", own); err != nil || len(probs) != 0 {
		t.Fatalf("own heads: %v %v", probs, err)
	}
	probs, _, err := j.CheckHeads(pub, "witness", witnessed)
	if err != nil {
		t.Fatal(err)
	}
	// Records 1 to 3 were not changed; 6 and 7 chain over the changed record 4.
	if len(probs) != 2 || probs[0].Checkpoint.Seq != 6 || probs[1].Checkpoint.Seq != 7 ||
		!strings.Contains(probs[0].String(), "witness: checkpoint of record 6: record 6's chain hash is") {
		t.Fatalf("witness problems: %v", probs)
	}
}

// TestCheckpointSignatures: checkpoints verify against the table's public key and fail
// against another, and survive their JSON form.
func TestCheckpointSignatures(t *testing.T) {
	t.Parallel()
	key, other := testKey(3), testKey(4)
	_, _, heads := signedJournal(t, 4, key)
	for _, c := range heads {
		if !c.Verify(key.Public().(ed25519.PublicKey)) {
			t.Errorf("checkpoint %d does not verify with its key", c.Seq)
		}
		if c.Verify(other.Public().(ed25519.PublicKey)) {
			t.Errorf("checkpoint %d verifies with another key", c.Seq)
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back Checkpoint
		if err := json.Unmarshal(b, &back); err != nil || back.Seq != c.Seq || back.Hash != c.Hash || !bytes.Equal(back.Sig, c.Sig) {
			t.Fatalf("JSON %s read back as %+v, %v", b, back, err)
		}
		forged := c
		forged.Seq++
		if forged.Verify(key.Public().(ed25519.PublicKey)) {
			t.Errorf("a checkpoint moved to record %d still verifies", forged.Seq)
		}
	}
	for _, bad := range []string{`{}`, `{"seq":1,"hash":"00","sig":""}`, `{"seq":1,"hash":"` + strings.Repeat("0", 64) + `","sig":"AA=="}`} {
		var c Checkpoint
		if err := json.Unmarshal([]byte(bad), &c); err == nil {
			t.Errorf("%s read as a checkpoint", bad)
		}
	}
	j, _, err := Open(writeDir(t, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Checkpoint(key); err == nil {
		t.Error("an empty journal signed a head")
	}
}

// TestChainAcrossSegments: each segment's header carries the chain in, so a segment
// replaced by another that is whole in itself is caught where it joins.
func TestChainAcrossSegments(t *testing.T) {
	t.Parallel()
	files, lay := buildJournal(t, 9, 440)
	second := lay[3].file
	if second == segmentName(1) {
		t.Fatal("want several segments")
	}
	// Rewrite the second segment from scratch, chained from zero, with a changed card.
	var h Hash
	seg := appendSegmentHeader(nil, lay[3].seq, h)
	for _, l := range lay {
		if l.file == second {
			p := payload(int(l.seq))
			if l.seq == lay[3].seq {
				p = bytes.Replace(p, []byte(`"card":"`), []byte(`"card":"9`), 1)
			}
			seg, h = appendRecord(seg, l.seq, h, p)
		}
	}
	damaged := maps.Clone(files)
	damaged[second] = seg
	ce := openDamaged(t, damaged, "segment replaced")
	if ce.File != second || ce.Offset != 16 || !strings.Contains(ce.Reason, "segment does not chain") {
		t.Fatalf("got %v", ce)
	}
}

// format1Journal writes a journal as the format before the chain did: records 1 to n in
// one segment with 20-byte header and 16-byte record headers.
func format1Journal(n int) map[string][]byte {
	seg := []byte("TCJL\x01\x00\x00\x00")
	seg = binary.LittleEndian.AppendUint64(seg, 1)
	seg = binary.LittleEndian.AppendUint32(seg, crc32.Checksum(seg, castagnoli))
	for i := 1; i <= n; i++ {
		p := payload(i)
		start := len(seg)
		seg = binary.LittleEndian.AppendUint32(seg, uint32(len(p)))
		seg = append(seg, 0, 0, 0, 0)
		seg = binary.LittleEndian.AppendUint64(seg, uint64(i))
		seg = append(seg, p...)
		reframe(seg[start:])
	}
	return map[string][]byte{segmentName(1): seg}
}

// TestFormat1JournalIsChainedOn: a journal written before the chain is read as it is;
// opening it for writing starts a chained segment whose chain-in covers the old records,
// so a later change to one of them is caught.
func TestFormat1JournalIsChainedOn(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, format1Journal(4))
	j, rep := mustOpen(t, dir, Options{})
	if len(rep.Segments) != 2 || rep.Segments[0].Chained || !rep.Segments[1].Chained || rep.Segments[1].FirstSeq != 5 {
		t.Fatalf("segments %+v", rep.Segments)
	}
	appendAll(t, j, 5, 6)
	checkRecords(t, readAll(t, j, 1), 1, 6)
	if _, err := j.Checkpoint(testKey(5)); err != nil {
		t.Fatal(err)
	}
	j.Close()

	files := dirFiles(t, dir)
	old := files[segmentName(1)]
	i := bytes.Index(old, []byte(`"card":"`)) + len(`"card":"`)
	old[i] ^= 0x01
	reframe(old[segmentHeaderSizeV1 : segmentHeaderSizeV1+recordHeaderSizeV1+len(payload(1))])
	ce := openDamaged(t, files, "format 1 record changed")
	if ce.File != segmentName(5) || !strings.Contains(ce.Reason, "segment does not chain") {
		t.Fatalf("got %v", ce)
	}
}

// TestQuickOpen: a Quick open reads record by record only from the last checkpoint's
// segment on. Damage inside a sealed segment before it, between the segment's first and
// last records, is left to verify; damage after the checkpoint is caught as by a full open.
func TestQuickOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{SegmentSize: 440})
	appendAll(t, j, 1, 10)
	if _, err := j.Checkpoint(testKey(6)); err != nil {
		t.Fatal(err)
	}
	appendAll(t, j, 11, 11)
	j.Close()
	files := dirFiles(t, dir)
	segs := 0
	for name := range files {
		if _, ok := parseSegmentName(name); ok {
			segs++
		}
	}
	if segs < 3 {
		t.Fatalf("want at least 3 segments, have %d", segs)
	}

	sealed := maps.Clone(files)
	first := bytes.Clone(files[segmentName(1)])
	second := segmentHeaderSize + recordHeaderSize + len(payload(1))
	first[second+recordHeaderSize+3] ^= 0x01 // a payload byte of record 2, between the segment's ends
	sealed[segmentName(1)] = first
	j, rep, err := Open(writeDir(t, sealed), Options{ReadOnly: true, Quick: true})
	if err != nil {
		t.Fatalf("quick open of damage in a sealed segment: %v", err)
	}
	if !rep.Segments[0].Unchecked || rep.Segments[len(rep.Segments)-1].Unchecked || rep.Records != 11 ||
		rep.LastSeq != 11 || rep.LastCheckpoint != 10 {
		t.Fatalf("report %+v", rep)
	}
	next, _ := j.Head()
	if next != 11 {
		t.Fatalf("head at %d", next)
	}
	j.Close()
	openDamaged(t, sealed, "full open of the same")

	last := maps.Clone(files)
	var lastName string
	for name := range files {
		if _, ok := parseSegmentName(name); ok && name > lastName {
			lastName = name
		}
	}
	b := bytes.Clone(files[lastName])
	b[len(b)-2] ^= 0x01
	reframe(b[len(b)-recordHeaderSize-len(payload(11)):])
	last[lastName] = b
	if _, _, err := Open(writeDir(t, last), Options{ReadOnly: true, Quick: true}); err == nil ||
		!strings.Contains(err.Error(), "does not chain") {
		t.Fatalf("quick open of a changed last record: %v", err)
	}
}
