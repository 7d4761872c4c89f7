package journal

import (
	"bytes"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewJournalAppendAndReadBack(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "table-7")
	j, rep := mustOpen(t, dir, Options{})
	if !rep.Created || len(rep.Segments) != 1 || rep.Segments[0].File != segmentName(1) || rep.NextSeq != 1 || rep.Records != 0 {
		t.Fatalf("new journal report %+v", rep)
	}
	appendAll(t, j, 1, 20)
	checkRecords(t, readAll(t, j, 0), 1, 20)
	checkRecords(t, readAll(t, j, 15), 15, 20)
	if recs := readAll(t, j, 21); len(recs) != 0 {
		t.Fatalf("Records(21) gave %d records", len(recs))
	}
	if j.LastSeq() != 20 {
		t.Fatalf("LastSeq %d", j.LastSeq())
	}
	// Appended bytes are in the file when Append returns: nothing is buffered.
	want := int64(segmentHeaderSize)
	for i := 1; i <= 20; i++ {
		want += int64(recordHeaderSize + len(payload(i)))
	}
	if st, err := os.Stat(filepath.Join(dir, segmentName(1))); err != nil || st.Size() != want {
		t.Fatalf("segment holds %d bytes (%v), want %d", st.Size(), err, want)
	}
	// One fsync per durable append (the create-time syncs of the segment aside).
	s := j.Stats()
	if s.Records != 20 || s.Bytes != want || s.Syncs != 20+2 || s.DirSyncs != 1 {
		t.Fatalf("stats %+v, want 20 records, %d bytes, 22 syncs, 1 directory sync", s, want)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	j, rep = mustOpen(t, dir, Options{})
	if rep.Created || rep.Records != 20 || rep.FirstSeq != 1 || rep.LastSeq != 20 || rep.NextSeq != 21 || rep.Torn != nil {
		t.Fatalf("reopen report %+v", rep)
	}
	appendAll(t, j, 21, 22)
	checkRecords(t, readAll(t, j, 1), 1, 22)
	j.Close()
}

func TestAppendNoSyncBatchesOneSync(t *testing.T) {
	t.Parallel()
	j, _ := mustOpen(t, t.TempDir(), Options{})
	defer j.Close()
	before := j.Stats().Syncs
	for i := 1; i <= 7; i++ {
		if seq, err := j.AppendNoSync(payload(i)); err != nil || seq != uint64(i) {
			t.Fatalf("AppendNoSync(%d): %d %v", i, seq, err)
		}
	}
	if got := j.Stats().Syncs - before; got != 0 {
		t.Fatalf("%d syncs before Sync", got)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := j.Stats().Syncs - before; got != 1 {
		t.Fatalf("%d syncs for one batch, want 1", got)
	}
	// A snapshot may only cover synced records.
	if _, err := j.AppendNoSync(payload(8)); err != nil {
		t.Fatal(err)
	}
	if err := j.WriteSnapshot(8, []byte("s")); err == nil || !strings.Contains(err.Error(), "want a synced record, 1 to 7") {
		t.Fatalf("snapshot of an unsynced record: %v", err)
	}
}

func TestAppendRejectsBadRecords(t *testing.T) {
	t.Parallel()
	j, _ := mustOpen(t, t.TempDir(), Options{})
	defer j.Close()
	for _, rec := range [][]byte{nil, {}, make([]byte, MaxRecordSize+1)} {
		if _, err := j.Append(rec); err == nil || !strings.Contains(err.Error(), "want 1 to 4194304") {
			t.Errorf("Append of %d bytes: %v", len(rec), err)
		}
	}
	// A refused record does not break the journal.
	appendAll(t, j, 1, 1)
	if seq, err := j.Append(make([]byte, MaxRecordSize)); err != nil || seq != 2 {
		t.Fatalf("largest record: %d %v", seq, err)
	}
}

func TestSegmentRotation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{SegmentSize: 300})
	appendAll(t, j, 1, 10)
	big := bytes.Repeat([]byte("x"), 1000) // larger than a segment: it gets one of its own
	if seq, err := j.Append(big); err != nil || seq != 11 {
		t.Fatalf("big record: %d %v", seq, err)
	}
	j.Close()

	j, rep := mustOpen(t, dir, Options{SegmentSize: 300})
	defer j.Close()
	if len(rep.Segments) < 4 {
		t.Fatalf("expected several segments, got %+v", rep.Segments)
	}
	next := uint64(1)
	for _, s := range rep.Segments {
		if s.FirstSeq != next || s.File != segmentName(next) || s.Records == 0 {
			t.Fatalf("segment %+v, want one starting at %d", s, next)
		}
		if s.Bytes > 300 && s.Records > 1 {
			t.Fatalf("segment %+v is over the segment size with more than one record", s)
		}
		next += uint64(s.Records)
	}
	if next != 12 {
		t.Fatalf("segments hold records up to %d, want 11", next-1)
	}
	recs := readAll(t, j, 1)
	checkRecords(t, recs[:10], 1, 10)
	if !bytes.Equal(recs[10].Data, big) {
		t.Fatal("big record read back wrong")
	}
	checkRecords(t, readAll(t, j, 5)[:6], 5, 10)
}

func TestReadOnly(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "none")
	if _, _, err := Open(missing, Options{ReadOnly: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("read-only open of a missing directory: %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("read-only open created the directory")
	}

	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{})
	appendAll(t, j, 1, 3)
	j.Close()
	ro, rep, err := Open(dir, Options{ReadOnly: true})
	if err != nil || rep.Records != 3 {
		t.Fatalf("read-only open: %+v %v", rep, err)
	}
	defer ro.Close()
	if _, err := ro.Append(payload(4)); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Append: %v", err)
	}
	if err := ro.WriteSnapshot(1, []byte("x")); !errors.Is(err, ErrReadOnly) {
		t.Errorf("WriteSnapshot: %v", err)
	}
	if _, err := ro.Compact(); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Compact: %v", err)
	}
	if err := ro.Sync(); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Sync: %v", err)
	}
	checkRecords(t, readAll(t, ro, 1), 1, 3)
}

func TestClosed(t *testing.T) {
	t.Parallel()
	j, _ := mustOpen(t, t.TempDir(), Options{})
	appendAll(t, j, 1, 1)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := j.Append(payload(2)); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close: %v", err)
	}
	for _, err := range j.Records(1) {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Records after Close: %v", err)
		}
	}
	if _, _, _, err := j.Snapshot(); !errors.Is(err, ErrClosed) {
		t.Errorf("Snapshot after Close: %v", err)
	}
}

// TestWriteFailureIsSticky: after a failed write the journal refuses every later write
// until it is reopened, and reopening keeps every record written before the failure.
func TestWriteFailureIsSticky(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var logged bytes.Buffer
	j, _ := mustOpen(t, dir, Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	appendAll(t, j, 1, 3)
	j.f.Close() // the device goes away under the journal
	if _, err := j.Append(payload(4)); err == nil || !strings.Contains(err.Error(), "append record 4") {
		t.Fatalf("Append on a closed file: %v", err)
	}
	if _, err := j.Append(payload(4)); err == nil || !strings.Contains(err.Error(), "reopen to recover") {
		t.Fatalf("Append after a failure: %v", err)
	}
	if err := j.WriteSnapshot(3, []byte("s")); err == nil || !strings.Contains(err.Error(), "reopen to recover") {
		t.Fatalf("WriteSnapshot after a failure: %v", err)
	}
	if !strings.Contains(logged.String(), "level=ERROR") {
		t.Errorf("the failure was not logged: %s", logged.String())
	}
	j.Close()
	j, rep := mustOpen(t, dir, Options{})
	defer j.Close()
	if rep.Records != 3 || rep.Torn != nil {
		t.Fatalf("reopen: %+v", rep)
	}
	appendAll(t, j, 4, 4)
}

func TestLeftoverTempFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{})
	appendAll(t, j, 1, 2)
	j.Close()
	for _, name := range []string{segmentName(3) + ".tmp", "snapshot.tmp", "notes.txt", "x.tmp"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("partial"), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	files := dirFiles(t, dir)
	ro, rep, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ro.Close()
	if want := []string{segmentName(3) + ".tmp", "snapshot.tmp"}; strings.Join(rep.TempFiles, " ") != strings.Join(want, " ") {
		t.Fatalf("temp files %v, want %v", rep.TempFiles, want)
	}
	sameFiles(t, dir, files, "read-only open")

	j, _ = mustOpen(t, dir, Options{})
	defer j.Close()
	got := dirFiles(t, dir)
	if _, ok := got["snapshot.tmp"]; ok || len(got) != 3 {
		t.Fatalf("after open the directory holds %d files: want the segment and the two unrelated files", len(got))
	}
	if _, ok := got["notes.txt"]; !ok {
		t.Fatal("removed a file that is not the journal's")
	}
}

func TestSnapshotAndCompact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{SegmentSize: 200})
	if _, _, ok, err := j.Snapshot(); ok || err != nil {
		t.Fatalf("snapshot of a new journal: %v %v", ok, err)
	}
	if err := j.WriteSnapshot(1, []byte("x")); err == nil {
		t.Fatal("snapshot of a record not yet appended")
	}
	appendAll(t, j, 1, 12)
	if err := j.WriteSnapshot(8, []byte("state after 8")); err != nil {
		t.Fatal(err)
	}
	if err := j.WriteSnapshot(7, []byte("older")); err == nil || !strings.Contains(err.Error(), "already at record 8") {
		t.Fatalf("snapshot going back: %v", err)
	}
	seq, data, ok, err := j.Snapshot()
	if err != nil || !ok || seq != 8 || string(data) != "state after 8" {
		t.Fatalf("Snapshot: %d %q %v %v", seq, data, ok, err)
	}
	segsBefore := len(j.segs)
	removed, err := j.Compact()
	if err != nil || removed == 0 {
		t.Fatalf("Compact removed %d: %v", removed, err)
	}
	first := j.segs[0].first
	if len(j.segs) != segsBefore-removed || first > 9 {
		t.Fatalf("after compacting to snapshot 8 the first segment starts at %d", first)
	}
	for _, err := range j.Records(1) {
		if err == nil || !strings.Contains(err.Error(), "compacted away") {
			t.Fatalf("Records(1) after Compact: %v", err)
		}
	}
	checkRecords(t, readAll(t, j, 9), 9, 12)
	j.Close()

	j, rep := mustOpen(t, dir, Options{SegmentSize: 200})
	if rep.Snapshot == nil || rep.Snapshot.Seq != 8 || rep.Snapshot.Bytes != 13 || rep.FirstSeq != first || rep.LastSeq != 12 {
		t.Fatalf("reopen after compaction: %+v", rep)
	}
	appendAll(t, j, 13, 13)
	j.Close()

	// Without the snapshot, the compacted records are simply missing: corruption.
	files := dirFiles(t, dir)
	delete(files, snapshotName)
	bare := writeDir(t, files)
	_, _, err = Open(bare, Options{})
	if ce := asCorrupt(t, err, "compacted, no snapshot"); ce.File != segmentName(first) || !strings.Contains(ce.Reason, "records 1 to") {
		t.Fatalf("got %v", ce)
	}
}

// TestCorruption builds damaged journals that no power cut can leave and checks that
// Open names the place and changes nothing.
func TestCorruption(t *testing.T) {
	t.Parallel()
	files, lay := buildJournal(t, 9, 300)
	seg1, seg2 := segmentName(1), lay[len(lay)-1].file
	var mid string // a segment between the first and the last
	for _, l := range lay {
		if l.file != seg1 && l.file != seg2 {
			mid = l.file
		}
	}
	firstOf := func(file string) layout {
		for _, l := range lay {
			if l.file == file {
				return l
			}
		}
		t.Fatalf("no record in %s", file)
		return layout{}
	}
	lastOf := func(file string) layout {
		var last layout
		for _, l := range lay {
			if l.file == file {
				last = l
			}
		}
		return last
	}
	m, l2 := firstOf(mid), lastOf(seg2)
	for _, tc := range []struct {
		name   string
		change func(map[string][]byte)
		file   string
		offset int64
		seq    uint64
		reason string
	}{
		{"missing middle segment", func(f map[string][]byte) { delete(f, mid) },
			segmentName(lastOf(mid).seq + 1), 8, m.seq, "a gap"},
		{"missing first segment", func(f map[string][]byte) { delete(f, seg1) },
			segmentName(lastOf(seg1).seq + 1), 0, 1, "records 1 to"},
		{"record repeated", func(f map[string][]byte) {
			b := files[seg1]
			f[seg1] = append(bytes.Clone(b), b[segmentHeaderSize:lay[0].end]...)
		}, seg1, lastOf(seg1).end, lastOf(seg1).seq + 1, "sequence number 1, want"},
		{"truncated segment that is not the last", func(f map[string][]byte) {
			f[mid] = files[mid][:lastOf(mid).end-1]
		}, mid, lastOf(mid).start, lastOf(mid).seq, "not the last"},
		{"garbage inside the last segment", func(f map[string][]byte) {
			b := bytes.Clone(files[seg2][:l2.start])
			b = append(b, "\x01garbage"...)
			f[seg2] = append(b, files[seg2][l2.start:]...)
		}, seg2, l2.start, l2.seq, "a valid record follows at byte"},
		{"zeros inside the last segment", func(f map[string][]byte) {
			b := bytes.Clone(files[seg2][:l2.start])
			b = append(b, make([]byte, 40)...)
			f[seg2] = append(b, files[seg2][l2.start:]...)
		}, seg2, l2.start, l2.seq, "a valid record follows"},
		{"segment header and file name disagree", func(f map[string][]byte) {
			f[mid] = append(appendSegmentHeader(nil, m.seq+100, Hash{}), files[mid][segmentHeaderSize:]...)
		}, mid, 8, 0, "its file name says"},
		{"snapshot past the end", func(f map[string][]byte) {
			f[snapshotName] = appendSnapshot(nil, 10, Hash{}, []byte("s"), nil)
		}, snapshotName, 8, 0, "covers records up to 10, but the journal ends at record 9"},
		{"snapshot without segments", func(f map[string][]byte) {
			clear(f)
			f[snapshotName] = appendSnapshot(nil, 3, Hash{}, []byte("s"), nil)
		}, snapshotName, 8, 0, "no segment file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			damaged := make(map[string][]byte)
			for k, v := range files {
				damaged[k] = v
			}
			tc.change(damaged)
			for _, readOnly := range []bool{true, false} {
				dir := writeDir(t, damaged)
				_, _, err := Open(dir, Options{ReadOnly: readOnly})
				ce := asCorrupt(t, err, tc.name)
				if ce.File != tc.file || (tc.offset != 0 && ce.Offset != tc.offset) || (tc.seq != 0 && ce.Seq != tc.seq) ||
					!strings.Contains(ce.Reason, tc.reason) {
					t.Fatalf("got %v, want %s at byte %d record %d: %q", ce, tc.file, tc.offset, tc.seq, tc.reason)
				}
				if !strings.Contains(err.Error(), tc.file) {
					t.Fatalf("error %q does not name the file", err)
				}
				sameFiles(t, dir, damaged, tc.name)
			}
		})
	}
}

// TestTornTailShapes: zeros or garbage after the last whole record (a write the power
// cut interrupted, or blocks the file system extended but never filled) are a torn tail.
func TestTornTailShapes(t *testing.T) {
	t.Parallel()
	files, lay := buildJournal(t, 5, 1<<20)
	end := lay[len(lay)-1].end
	for _, tc := range []struct {
		name   string
		tail   []byte
		reason string
	}{
		{"zero block", make([]byte, 4096), "zero bytes where a record should start"},
		{"one zero byte", []byte{0}, "zero bytes where a record should start"},
		{"garbage", []byte("\xde\xad\xbe\xef not a record at all, no checksum matches here"), "over the limit"},
		{"header of a record whose payload never came", unchainedRecord(6)[:recordHeaderSize+3], "runs past the end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			damaged := map[string][]byte{segmentName(1): append(bytes.Clone(files[segmentName(1)]), tc.tail...)}
			dir := writeDir(t, damaged)
			j, rep := mustOpen(t, dir, Options{})
			defer j.Close()
			checkTorn(t, rep.Torn, segmentName(1), end, int64(len(tc.tail)), true)
			if !strings.Contains(rep.Torn.Reason, tc.reason) {
				t.Errorf("reason %q, want %q", rep.Torn.Reason, tc.reason)
			}
			checkRecords(t, readAll(t, j, 1), 1, 5)
		})
	}
}

// TestRecordsSeesLaterDamage: Records checks every record again as it reads, so damage
// done after Open is an error, not a wrong record.
func TestRecordsSeesLaterDamage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{})
	defer j.Close()
	appendAll(t, j, 1, 4)
	path := filepath.Join(dir, segmentName(1))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	second := segmentHeaderSize + recordHeaderSize + len(payload(1))
	b[second+recordHeaderSize] ^= 0x20
	if err := os.WriteFile(path, b, 0o640); err != nil {
		t.Fatal(err)
	}
	var got []uint64
	var last error
	for r, err := range j.Records(1) {
		if err != nil {
			last = err
			break
		}
		got = append(got, r.Seq)
	}
	ce := asCorrupt(t, last, "damage after open")
	if len(got) != 1 || ce.Seq != 2 || ce.Offset != int64(second) {
		t.Fatalf("read %v then %v", got, ce)
	}
}

// TestConcurrentAppendAndRead: readers iterate while a writer appends; each reader sees
// a whole, ordered prefix of the records.
func TestConcurrentAppendAndRead(t *testing.T) {
	t.Parallel()
	j, _ := mustOpen(t, t.TempDir(), Options{SegmentSize: 400})
	defer j.Close()
	appendAll(t, j, 1, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 2; i <= 40; i++ {
			if _, err := j.AppendNoSync(payload(i)); err != nil {
				t.Errorf("append %d: %v", i, err)
				return
			}
		}
	}()
	for range 20 {
		recs := readAll(t, j, 1)
		checkRecords(t, recs, 1, len(recs))
	}
	<-done
	checkRecords(t, readAll(t, j, 1), 1, 40)
}

// TestOneWriter: a second Open for writing fails with ErrLocked while the first is open,
// and works once it is closed; reading needs no lock.
func TestOneWriter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, _, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append([]byte("one")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(dir, Options{}); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second writer: %v, want ErrLocked naming the directory", err)
	}
	r, _, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("reader while a writer is open: %v", err)
	}
	r.Close()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j2, rep, err := Open(dir, Options{})
	if err != nil || rep.Records != 1 {
		t.Fatalf("open after close: %v, %d records", err, rep.Records)
	}
	j2.Close()
}
