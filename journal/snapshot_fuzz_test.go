package journal

import (
	"bytes"
	"testing"
)

// FuzzParseSnapshot reads arbitrary bytes as a snapshot file. Whatever the bytes, the
// reader must not panic; a file it accepts is exactly the snapshot its writer makes of
// the sequence number and data read, and a file it refuses is refused with a reason
// and an offset inside the file.
func FuzzParseSnapshot(f *testing.F) {
	good := appendSnapshot(nil, 11822, []byte(`{"settings":{"table":"t1"},"state":{}}`))
	f.Add(good)
	f.Add(appendSnapshot(nil, 0, nil))
	f.Add(good[:snapshotHeaderSize-1])
	f.Add(append(bytes.Clone(good), '!'))
	flipped := bytes.Clone(good)
	flipped[len(flipped)-1] ^= 1
	f.Add(flipped)
	f.Fuzz(func(t *testing.T, b []byte) {
		seq, data, off, bad := parseSnapshot(b)
		if bad != "" {
			if data != nil || off < 0 || off > int64(len(b)) {
				t.Fatalf("refused (%s) with data %q at offset %d of %d bytes", bad, data, off, len(b))
			}
			return
		}
		if again := appendSnapshot(nil, seq, data); !bytes.Equal(again, b) {
			t.Fatalf("accepted %x, but the writer makes %x of sequence number %d and its data", b, again, seq)
		}
	})
}
