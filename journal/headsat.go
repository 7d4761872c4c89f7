package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// CheckpointsFrom returns the checkpoints of the heads file from its entry i (0: the
// first) to its last whole entry, in the order they were written; it reads those entries
// only. A damaged entry ends them: the checkpoints before it are returned with a
// *CorruptError. It may run while the table appends: an entry being written may read as
// damaged, and reads whole at the next call.
func (j *Journal) CheckpointsFrom(i int) ([]Checkpoint, error) {
	f, n, err := openHeads(j.dir)
	if f == nil || err != nil {
		return nil, err
	}
	defer f.Close()
	if i < 0 {
		i = 0
	}
	if i >= n {
		return nil, nil
	}
	b := make([]byte, (n-i)*headEntrySize)
	if _, err := f.ReadAt(b, int64(i)*headEntrySize); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("journal: read heads: %w", err)
	}
	cs := make([]Checkpoint, 0, n-i)
	for k := range n - i {
		c, err := parseHeadEntry(b[k*headEntrySize:(k+1)*headEntrySize], int64(i+k)*headEntrySize)
		if err != nil {
			return cs, err
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// CheckpointIndex returns the index in the heads file of the first checkpoint whose Seq
// is seq or more (the number of entries when there is none), reading about log2 of the
// entries: the heads file is in order of Seq. A damaged entry read on the way is a
// *CorruptError.
func (j *Journal) CheckpointIndex(seq uint64) (int, error) {
	f, n, err := openHeads(j.dir)
	if f == nil || err != nil {
		return 0, err
	}
	defer f.Close()
	var failed error
	e := make([]byte, headEntrySize)
	i := sort.Search(n, func(k int) bool {
		if failed != nil {
			return true
		}
		if _, err := f.ReadAt(e, int64(k)*headEntrySize); err != nil {
			failed = fmt.Errorf("journal: read heads: %w", err)
			return true
		}
		c, err := parseHeadEntry(e, int64(k)*headEntrySize)
		if err != nil {
			failed = err
			return true
		}
		return c.Seq >= seq
	})
	return i, failed
}

// openHeads opens the heads file in dir and returns its number of whole entries; a
// missing file is nil and no error.
func openHeads(dir string) (*os.File, int, error) {
	f, err := os.Open(filepath.Join(dir, headsName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("journal: read heads: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("journal: read heads: %w", err)
	}
	return f, int(st.Size() / headEntrySize), nil
}

// parseHeadEntry reads the heads file entry e, found at offset off.
func parseHeadEntry(e []byte, off int64) (Checkpoint, error) {
	if crc32.Checksum(e[:104], castagnoli) != binary.LittleEndian.Uint32(e[104:]) {
		return Checkpoint{}, &CorruptError{File: headsName, Offset: off, Reason: "checkpoint checksum mismatch"}
	}
	c := Checkpoint{Seq: binary.LittleEndian.Uint64(e[0:8]), Sig: append([]byte(nil), e[40:104]...)}
	copy(c.Hash[:], e[8:40])
	return c, nil
}
