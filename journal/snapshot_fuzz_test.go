package journal

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// FuzzParseSnapshot reads arbitrary bytes as a snapshot file. Whatever the bytes, the
// reader must not panic; a file of the current format it accepts is exactly the snapshot
// its writer makes of the fields read, its data the SHA-256 in its header; its signature
// verifies with the fuzz key only when the writer's signature with that key is what it
// carries; one of format 1 or 2 holds exactly its header and data; and a file it refuses
// is refused with a reason and an offset inside the file.
func FuzzParseSnapshot(f *testing.F) {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0x5a}, ed25519.SeedSize))
	pub := key.Public().(ed25519.PublicKey)
	var h Hash
	h[0], h[31] = 0xa5, 0x5a
	data := []byte(`{"settings":{"table":"t1"},"state":{"Shoe":1}}`)
	good := appendSnapshot(nil, 11822, h, data, key)
	f.Add(good)
	f.Add(appendSnapshot(nil, 11822, h, data, nil))
	f.Add(appendSnapshot(nil, 0, Hash{}, nil, key))
	f.Add(good[:snapshotHeaderSize-1])
	f.Add(append(bytes.Clone(good), '!'))
	flipped := bytes.Clone(good)
	flipped[len(flipped)-1] ^= 1
	f.Add(flipped)
	// The shoe edited and the checksum made good again, the SHA-256 too: only the
	// signature tells.
	forged := bytes.Replace(bytes.Clone(good), []byte(`"Shoe":1`), []byte(`"Shoe":7`), 1)
	digest := sha256Sum(forged[snapshotHeaderSize:])
	copy(forged[48:80], digest[:])
	binary.LittleEndian.PutUint32(forged[152:156], crc32.Update(crc32.Checksum(forged[:152], castagnoli), castagnoli, forged[snapshotHeaderSize:]))
	f.Add(forged)
	// Format 2, as written before snapshots were signed.
	v2 := []byte("TCJS\x02\x00\x00\x00")
	v2 = binary.LittleEndian.AppendUint64(v2, 7)
	v2 = append(v2, h[:]...)
	v2 = binary.LittleEndian.AppendUint64(v2, uint64(len(data)))
	v2 = binary.LittleEndian.AppendUint32(v2, crc32.Update(crc32.Checksum(v2, castagnoli), castagnoli, data))
	f.Add(append(v2, data...))
	f.Fuzz(func(t *testing.T, b []byte) {
		sf, off, bad := parseSnapshot(b)
		if bad != "" {
			if sf.data != nil || off < 0 || off > int64(len(b)) {
				t.Fatalf("refused (%s) with data %q at offset %d of %d bytes", bad, sf.data, off, len(b))
			}
			return
		}
		switch sf.version {
		case formatV1:
			if len(b) != snapshotHeaderSizeV1+len(sf.data) || sf.hash != (Hash{}) || sf.signed() {
				t.Fatalf("format 1 snapshot of %d bytes read as %d data bytes, hash %s", len(b), len(sf.data), sf.hash)
			}
			return
		case formatV2:
			if len(b) != snapshotHeaderSizeV2+len(sf.data) || sf.signed() || sf.verify(pub) {
				t.Fatalf("format 2 snapshot of %d bytes read as %d data bytes, signed %v", len(b), len(sf.data), sf.signed())
			}
			return
		}
		if sha256Sum(sf.data) != sf.digest {
			t.Fatalf("accepted data whose SHA-256 is not the header's")
		}
		if again := encodeSnapshot(nil, sf.seq, sf.hash, sf.digest, sf.sig, sf.data); !bytes.Equal(again, b) {
			t.Fatalf("accepted %x, but the writer makes %x of its fields", b, again)
		}
		signedByKey := bytes.Equal(appendSnapshot(nil, sf.seq, sf.hash, sf.data, key), b)
		if sf.verify(pub) != signedByKey {
			t.Fatalf("signature verifies: %v, but the key's own signature is in the file: %v", sf.verify(pub), signedByKey)
		}
	})
}

// sha256Sum is crypto/sha256's Sum256, for the fuzz target's checks.
func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }
