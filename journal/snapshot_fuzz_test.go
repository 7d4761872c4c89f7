package journal

import (
	"bytes"
	"testing"
)

// FuzzParseSnapshot reads arbitrary bytes as a snapshot file. Whatever the bytes, the
// reader must not panic; a file of the current format it accepts is exactly the snapshot
// its writer makes of the sequence number, hash and data read; one of format 1 holds
// exactly its header and data; and a file it refuses is refused with a reason and an
// offset inside the file.
func FuzzParseSnapshot(f *testing.F) {
	var h Hash
	h[0], h[31] = 0xa5, 0x5a
	good := appendSnapshot(nil, 11822, h, []byte(`{"settings":{"table":"t1"},"state":{}}`))
	f.Add(good)
	f.Add(appendSnapshot(nil, 0, Hash{}, nil))
	f.Add(good[:snapshotHeaderSize-1])
	f.Add(append(bytes.Clone(good), '!'))
	flipped := bytes.Clone(good)
	flipped[len(flipped)-1] ^= 1
	f.Add(flipped)
	f.Fuzz(func(t *testing.T, b []byte) {
		sf, off, bad := parseSnapshot(b)
		if bad != "" {
			if sf.data != nil || off < 0 || off > int64(len(b)) {
				t.Fatalf("refused (%s) with data %q at offset %d of %d bytes", bad, sf.data, off, len(b))
			}
			return
		}
		if sf.version == formatV1 {
			if len(b) != snapshotHeaderSizeV1+len(sf.data) || sf.hash != (Hash{}) {
				t.Fatalf("format 1 snapshot of %d bytes read as %d data bytes, hash %s", len(b), len(sf.data), sf.hash)
			}
			return
		}
		if again := appendSnapshot(nil, sf.seq, sf.hash, sf.data); !bytes.Equal(again, b) {
			t.Fatalf("accepted %x, but the writer makes %x of sequence number %d, its hash and its data", b, again, sf.seq)
		}
	})
}
