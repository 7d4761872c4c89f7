package journal

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Options are the settings of Open. The zero value opens for writing with the default
// segment size and no logging.
type Options struct {
	// ReadOnly opens the journal for reading only: Open creates nothing, truncates
	// nothing and removes nothing; a torn tail is reported and left as it is, and the
	// Journal's writing methods return ErrReadOnly.
	ReadOnly bool
	// SegmentSize is the size in bytes past which appending starts a new segment file
	// (0 means DefaultSegmentSize). A segment always takes at least one record.
	SegmentSize int64
	// Logger receives the journal's log (repairs, removed files, new segments); nil means
	// no logging.
	Logger *slog.Logger
	// SigningKey, when set, signs each snapshot written (WriteSnapshot), and its public
	// half checks the snapshot found, as PublicKey does.
	SigningKey ed25519.PrivateKey
	// PublicKey, when set (or SigningKey), checks the snapshot's signature. A snapshot
	// whose signature does not verify with it is never used (Snapshot says there is none,
	// SnapshotReport.Ignored says why); nor is an unsigned one, written with no key,
	// unless it stands for records no longer in the journal. Without a key
	// the signature is not checked.
	PublicKey ed25519.PublicKey
	// Quick checks record by record only the segments from the one that holds the last
	// signed checkpoint's record (or the snapshot's record, when that is earlier) to the
	// end; each sealed segment before it is checked at its ends (its header, its first
	// record chained from its chain-in, its last record carrying the next segment's
	// chain-in: boundary.go), so that opening takes as long after years of play as after
	// a day. `tablectl journal verify` checks every record. Without a checkpoint every
	// segment is checked.
	Quick bool
}

// DefaultSegmentSize is the segment size used when Options.SegmentSize is 0.
const DefaultSegmentSize = 16 << 20

// segment is one segment file of an open journal.
type segment struct {
	name    string
	first   uint64 // sequence number of its first record
	size    int64  // bytes up to the end of its last whole record
	version uint16 // its format version
	chainIn Hash   // the chain hash its first record follows (format 2)
}

// Open opens the journal in directory dir, checks every segment and the snapshot, and
// says what it found in the Report.
//
// A partial record at the very end of the last segment with no valid record after it is
// a torn tail: unless opt.ReadOnly, Open truncates the segment to its last whole record,
// syncs it and reports the tail in Report.Torn. Any other damage is a *CorruptError, and
// Open then changes nothing on disk. Without opt.ReadOnly, Open creates dir and a first
// segment when there is no journal yet, and removes temporary files left by an
// interrupted segment creation or snapshot. The Report is filled in up to the damage even
// when Open fails.
func Open(dir string, opt Options) (*Journal, Report, error) {
	if opt.ReadOnly {
		return openDir(dir, opt)
	}
	created, err := ensureDir(dir, false)
	if err != nil {
		return nil, Report{Dir: dir}, err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, Report{Dir: dir}, err
	}
	j, rep, err := openDir(dir, opt)
	rep.Created = rep.Created || created
	if err != nil {
		lock.release()
		return nil, rep, err
	}
	j.lock = lock
	return j, rep, nil
}

// openDir opens the journal in dir, the lock (if any) already held.
func openDir(dir string, opt Options) (*Journal, Report, error) {
	if opt.SegmentSize <= 0 {
		opt.SegmentSize = DefaultSegmentSize
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.SigningKey != nil {
		opt.PublicKey = opt.SigningKey.Public().(ed25519.PublicKey)
	}
	rep := Report{Dir: dir}
	j := &Journal{dir: dir, opt: opt, log: opt.Logger.With("journal", dir), key: opt.SigningKey, pub: opt.PublicKey}

	created, err := ensureDir(dir, opt.ReadOnly)
	if err != nil {
		return nil, rep, err
	}
	rep.Created = created
	segs, hasSnapshot, temps, err := listDir(dir)
	if err != nil {
		return nil, rep, err
	}
	rep.TempFiles = temps

	var snapSeq uint64
	var snap snapshotFile
	if hasSnapshot {
		b, err := os.ReadFile(filepath.Join(dir, snapshotName))
		if err != nil {
			return nil, rep, fmt.Errorf("journal: read snapshot: %w", err)
		}
		sf, off, bad := parseSnapshot(b)
		if bad != "" {
			return nil, rep, &CorruptError{File: snapshotName, Offset: off, Reason: bad}
		}
		snap = sf
		snapSeq = sf.seq
		rep.Snapshot = &SnapshotReport{Seq: sf.seq, Bytes: int64(len(sf.data)), Chained: sf.version != formatV1,
			Signed: sf.signed()}
		if opt.PublicKey != nil {
			switch {
			case sf.verify(opt.PublicKey):
				rep.Snapshot.Verified = true
			case sf.signed():
				rep.Snapshot.Ignored = "its signature does not verify with the table's key"
			default:
				rep.Snapshot.Ignored = "it is unsigned (written before snapshots were signed)"
			}
		}
		j.snapSeq, j.hasSnap = sf.seq, true
	}

	next := uint64(1)
	switch {
	case len(segs) == 0 && hasSnapshot:
		return nil, rep, &CorruptError{File: snapshotName, Offset: 8,
			Reason: fmt.Sprintf("snapshot covers records up to %d, but there is no segment file", snapSeq)}
	case len(segs) > 0 && segs[0] > 1:
		if !hasSnapshot || snapSeq < segs[0]-1 {
			return nil, rep, &CorruptError{File: segmentName(segs[0]), Seq: snapSeq + 1,
				Reason: fmt.Sprintf("records %d to %d are missing: no segment holds them and %s",
					snapSeq+1, segs[0]-1, coveredBy(hasSnapshot, snapSeq))}
		}
		if rep.Snapshot.Signed && !rep.Snapshot.Verified && opt.PublicKey != nil {
			return nil, rep, &CorruptError{File: snapshotName, Offset: 80, Seq: snapSeq,
				Reason: fmt.Sprintf("records 1 to %d are archived, and the snapshot that stands for them is not the table's: %s",
					segs[0]-1, rep.Snapshot.Ignored)}
		}
		// An unsigned snapshot, written before snapshots were signed, is the only account
		// of the records archived before it: it is used until the next one replaces it.
		rep.Snapshot.Ignored = ""
		next = segs[0]
	}

	lastHead, err := lastCheckpoint(dir)
	if err != nil {
		return nil, rep, err
	}
	if lastHead != nil {
		rep.LastCheckpoint = lastHead.Seq
	}
	scanFrom := 0 // index of the first segment checked record by record
	if opt.Quick && lastHead != nil {
		anchor := lastHead.Seq
		if hasSnapshot && snapSeq < anchor {
			anchor = snapSeq
		}
		for scanFrom+1 < len(segs) && segs[scanFrom+1] <= anchor {
			scanFrom++
		}
	}

	var torn *TornTail
	// The chain is known from record 1 on; a journal compacted while it was in format 1
	// starts its chain at its first format 2 segment.
	chain, chainKnown := Hash{}, next == 1
	for i, first := range segs {
		name := segmentName(first)
		if i < scanFrom {
			sr, se, cerr := sealedSegment(dir, name, next, segs[i+1], chain, chainKnown)
			rep.Records += sr.Records
			if rep.FirstSeq == 0 {
				rep.FirstSeq = sr.FirstSeq
			}
			rep.Segments = append(rep.Segments, sr)
			if cerr != nil {
				return nil, rep, cerr
			}
			next = segs[i+1]
			chain, chainKnown = se.lastHash, sr.Chained
			j.segs = append(j.segs, segment{name: name, first: first, size: sr.Bytes, version: se.hdr.version, chainIn: se.hdr.chainIn})
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, rep, fmt.Errorf("journal: read segment: %w", err)
		}
		sc := segmentScan{name: name, want: next, chain: chain, chainKnown: chainKnown, last: i == len(segs)-1}
		if hasSnapshot && snap.version != formatV1 {
			sc.snapSeq, sc.snapHash = snap.seq, &snap.hash
		}
		if lastHead != nil {
			sc.headSeq, sc.headHash = lastHead.Seq, &lastHead.Hash
		}
		sr, hdr, t, cerr := sc.scan(b)
		if sr.Records > 0 {
			if rep.Records == 0 {
				rep.FirstSeq = sr.FirstSeq
			}
			rep.Records += sr.Records
			rep.LastSeq = sr.FirstSeq + uint64(sr.Records) - 1
		}
		rep.Segments = append(rep.Segments, sr)
		if cerr != nil {
			return nil, rep, cerr
		}
		torn = t
		next = sr.FirstSeq + uint64(sr.Records)
		chain, chainKnown = sc.chain, sc.chainKnown
		j.segs = append(j.segs, segment{name: name, first: sr.FirstSeq, size: sr.Bytes, version: hdr.version, chainIn: hdr.chainIn})
	}
	rep.NextSeq = next
	if hasSnapshot && snapSeq >= next {
		return nil, rep, &CorruptError{File: snapshotName, Offset: 8,
			Reason: fmt.Sprintf("snapshot covers records up to %d, but the journal ends at record %d", snapSeq, next-1)}
	}
	if lastHead != nil && lastHead.Seq >= next {
		return nil, rep, &CorruptError{File: headsName, Seq: lastHead.Seq,
			Reason: fmt.Sprintf("the last checkpoint signed record %d, but the journal ends at record %d", lastHead.Seq, next-1)}
	}
	rep.Torn = torn
	rep.Head = chain
	if rep.Snapshot != nil && rep.Snapshot.Ignored != "" {
		j.hasSnap = false // never used: Snapshot says there is none, and a new one may be written
		j.log.Warn("journal: the snapshot is not used: the records are replayed instead", "covers", snapSeq, "reason", rep.Snapshot.Ignored)
	}
	j.next, j.synced, j.head = next, next-1, chain
	j.readOnly = opt.ReadOnly
	if opt.ReadOnly {
		return j, rep, nil
	}

	// Everything is checked; from here on Open repairs and prepares for appending.
	if torn != nil {
		if err := truncateFile(filepath.Join(dir, torn.File), torn.Offset); err != nil {
			return nil, rep, err
		}
		torn.Truncated = true
		j.log.Warn("journal: truncated a torn tail", "segment", torn.File, "offset", torn.Offset,
			"bytes", torn.Bytes, "reason", torn.Reason)
	}
	if len(temps) > 0 {
		for _, name := range temps {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return nil, rep, fmt.Errorf("journal: remove leftover temporary file: %w", err)
			}
		}
		if err := j.syncDir(); err != nil {
			return nil, rep, err
		}
		j.log.Info("journal: removed leftover temporary files", "files", temps)
	}
	if len(j.segs) == 0 {
		if err := j.createSegment(next); err != nil {
			return nil, rep, err
		}
		rep.Segments = append(rep.Segments, SegmentReport{File: j.segs[0].name, FirstSeq: next, Bytes: segmentHeaderSize, Chained: true})
	}
	if last := j.segs[len(j.segs)-1]; last.version == formatV1 {
		// A journal written before the chain: new records go to a chained segment whose
		// chain-in covers every format 1 record before it. An empty format 1 segment is
		// replaced by a format 2 one of the same name.
		if last.size == segmentHeaderSizeV1 {
			j.segs = j.segs[:len(j.segs)-1]
		}
		if err := j.createSegment(next); err != nil {
			return nil, rep, err
		}
		s := j.segs[len(j.segs)-1]
		rep.Segments = append(rep.Segments, SegmentReport{File: s.name, FirstSeq: next, Bytes: segmentHeaderSize, Chained: true})
		j.log.Info("journal: chained from here on", "segment", s.name, "first", next)
	}
	last := j.segs[len(j.segs)-1]
	f, err := os.OpenFile(filepath.Join(dir, last.name), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, rep, fmt.Errorf("journal: open last segment: %w", err)
	}
	// A writer that stopped without syncing (a crash of the program, not of the machine)
	// may have left records in the page cache only: sync them before anything relies on
	// them.
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, rep, fmt.Errorf("journal: sync last segment %s: %w", last.name, err)
	}
	j.f = f
	j.stats.Syncs++
	j.log.Info("journal: opened", "segments", len(j.segs), "records", rep.Records, "next", next)
	return j, rep, nil
}

func coveredBy(hasSnapshot bool, snapSeq uint64) string {
	if !hasSnapshot {
		return "there is no snapshot"
	}
	return fmt.Sprintf("the snapshot covers records up to %d only", snapSeq)
}

// ensureDir makes sure dir exists, creating it (and syncing its parent) unless readOnly.
// It reports whether it created it.
func ensureDir(dir string, readOnly bool) (bool, error) {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return false, fmt.Errorf("journal: %s is not a directory", dir)
	case err == nil:
		return false, nil
	case !errors.Is(err, fs.ErrNotExist) || readOnly:
		return false, fmt.Errorf("journal: %w", err)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return false, fmt.Errorf("journal: create directory: %w", err)
	}
	if err := syncDir(filepath.Dir(filepath.Clean(dir))); err != nil {
		return false, err
	}
	return true, nil
}

// listDir returns the first sequence numbers of the segment files in dir in order,
// whether a snapshot file exists, and the journal's leftover temporary files. Other
// files are not the journal's and are left alone.
func listDir(dir string) (segs []uint64, snapshot bool, temps []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, nil, fmt.Errorf("journal: list directory: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if first, ok := parseSegmentName(name); ok && e.Type().IsRegular() {
			segs = append(segs, first)
			continue
		}
		if name == snapshotName && e.Type().IsRegular() {
			snapshot = true
			continue
		}
		if base, ok := strings.CutSuffix(name, tempSuffix); ok && e.Type().IsRegular() {
			if _, seg := parseSegmentName(base); seg || base == snapshotName {
				temps = append(temps, name)
			}
		}
	}
	slices.Sort(segs)
	return segs, snapshot, temps, nil
}

// segmentScan checks one segment file against what came before it.
type segmentScan struct {
	name       string
	want       uint64 // the sequence number its first record must have
	chain      Hash   // the chain hash before its first record; after scan, after its last
	chainKnown bool   // whether chain is known (from record 1, or from a chained segment)
	last       bool   // the journal's last segment: a partial record at its end is a torn tail
	snapSeq    uint64 // the record a chained snapshot covers, and its hash (nil: none to check)
	snapHash   *Hash
	headSeq    uint64 // the record of the last checkpoint, and its hash (nil: none to check)
	headHash   *Hash
}

// scan checks the segment's contents b. It returns what the segment holds up to its last
// whole record and its header, and either the torn tail found at its end (only in the last
// segment) or the damage that makes it corrupt: bad framing, a gap or repeat in the
// sequence numbers, or a record that does not chain.
func (sc *segmentScan) scan(b []byte) (SegmentReport, segmentHeader, *TornTail, *CorruptError) {
	name := sc.name
	sr := SegmentReport{File: name, FirstSeq: sc.want}
	hdr, bad := parseSegmentHeader(b)
	if bad != "" {
		return sr, hdr, nil, &CorruptError{File: name, Reason: bad}
	}
	sr.Chained = hdr.version != formatV1
	nameSeq, _ := parseSegmentName(name)
	switch {
	case hdr.first != nameSeq:
		return sr, hdr, nil, &CorruptError{File: name, Offset: 8,
			Reason: fmt.Sprintf("segment header says its first record is %d, its file name says %d", hdr.first, nameSeq)}
	case hdr.first != sc.want:
		return sr, hdr, nil, &CorruptError{File: name, Offset: 8, Seq: sc.want,
			Reason: fmt.Sprintf("segment starts at record %d, want %d: %s", hdr.first, sc.want, gapOrRepeat(hdr.first, sc.want))}
	case sr.Chained && sc.chainKnown && hdr.chainIn != sc.chain:
		return sr, hdr, nil, &CorruptError{File: name, Offset: 16, Seq: sc.want,
			Reason: fmt.Sprintf("segment does not chain: its chain-in is not the hash of record %d before it", sc.want-1)}
	case sr.Chained:
		sc.chain, sc.chainKnown = hdr.chainIn, true
	}
	if sr.Chained && sc.headHash != nil && sc.headSeq == sc.want-1 && hdr.chainIn != *sc.headHash {
		return sr, hdr, nil, &CorruptError{File: headsName, Seq: sc.headSeq,
			Reason: fmt.Sprintf("the last checkpoint signed a hash for record %d that is not the chain-in of %s", sc.headSeq, name)}
	}
	off, seq := segmentHeaderSizeOf(hdr.version), sc.want
	sr.Bytes = int64(off)
	for off < len(b) {
		d, p := decodeRecord(b[off:], hdr.version)
		if p.kind != fine {
			if next, ok := validRecordFrom(b, off+1, hdr.version); ok {
				return sr, hdr, nil, &CorruptError{File: name, Offset: int64(off), Seq: seq,
					Reason: fmt.Sprintf("%s, and a valid record follows at byte %d", p, next)}
			}
			if !sc.last {
				return sr, hdr, nil, &CorruptError{File: name, Offset: int64(off), Seq: seq,
					Reason: fmt.Sprintf("%s in a segment that is not the last", p)}
			}
			reason := p.String()
			if allZero(b[off:]) {
				reason = "zero bytes where a record should start"
			}
			return sr, hdr, &TornTail{File: name, Offset: int64(off), Bytes: int64(len(b) - off), Reason: reason}, nil
		}
		if d.seq != seq {
			return sr, hdr, nil, &CorruptError{File: name, Offset: int64(off), Seq: seq,
				Reason: fmt.Sprintf("record has sequence number %d, want %d: %s", d.seq, seq, gapOrRepeat(d.seq, seq))}
		}
		h := chainHash(sc.chain, seq, d.payload)
		if sr.Chained && h != d.hash {
			return sr, hdr, nil, &CorruptError{File: name, Offset: int64(off), Seq: seq,
				Reason: "record does not chain: its hash is not that of the record before it and its contents"}
		}
		if sc.snapHash != nil && seq == sc.snapSeq && h != *sc.snapHash {
			return sr, hdr, nil, &CorruptError{File: snapshotName, Offset: 16, Seq: seq,
				Reason: fmt.Sprintf("snapshot does not chain: it names a hash for record %d that is not the record's", seq)}
		}
		if sc.headHash != nil && seq == sc.headSeq && h != *sc.headHash {
			return sr, hdr, nil, &CorruptError{File: headsName, Seq: seq,
				Reason: fmt.Sprintf("the last checkpoint signed a hash for record %d that is not the record's", seq)}
		}
		sc.chain = h
		off += d.size
		seq++
		sr.Records++
		sr.Bytes = int64(off)
	}
	return sr, hdr, nil, nil
}

func gapOrRepeat(got, want uint64) string {
	if got > want {
		return "a gap"
	}
	return "a repeat"
}

// truncateFile cuts the file at path to size bytes and syncs it.
func truncateFile(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("journal: truncate torn tail: %w", err)
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return fmt.Errorf("journal: truncate torn tail: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("journal: sync after truncating torn tail: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("journal: truncate torn tail: %w", err)
	}
	return nil
}

// syncDir fsyncs directory dir, making the creation, renaming and removal of its files
// durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("journal: open directory to sync: %w", err)
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return fmt.Errorf("journal: sync directory %s: %w", dir, err)
	}
	if err := d.Close(); err != nil {
		return fmt.Errorf("journal: sync directory %s: %w", dir, err)
	}
	return nil
}
