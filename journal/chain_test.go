package journal

import (
	"crypto/ed25519"
	"strings"
	"testing"
)

// TestChainHashIsTheJournals: ChainHash, applied record after record from the zero hash,
// gives every chain hash the journal wrote, and any change of payload or number gives
// another.
func TestChainHashIsTheJournals(t *testing.T) {
	t.Parallel()
	j, _ := mustOpen(t, t.TempDir(), Options{SegmentSize: 512})
	defer j.Close()
	appendAll(t, j, 1, 40)
	var prev Hash
	for _, r := range readAll(t, j, 1) {
		if got := ChainHash(prev, r.Seq, r.Data); got != r.Hash {
			t.Fatalf("record %d: ChainHash %s, the journal wrote %s", r.Seq, got, r.Hash)
		}
		if ChainHash(prev, r.Seq+1, r.Data) == r.Hash || ChainHash(prev, r.Seq, append(r.Data, ' ')) == r.Hash {
			t.Fatalf("record %d: another number or payload gives the same hash", r.Seq)
		}
		prev = r.Hash
	}
}

// TestAddCheckpoint: a checkpoint signed for one journal is taken by a copy of it that
// holds the same record; one of a hash the copy does not hold, of a record it has not,
// or out of order is refused, and the heads file keeps only those taken.
func TestAddCheckpoint(t *testing.T) {
	t.Parallel()
	_, key, _ := ed25519.GenerateKey(nil)
	src, _ := mustOpen(t, t.TempDir(), Options{})
	defer src.Close()
	appendAll(t, src, 1, 10)
	c5 := Sign(key, 5, mustHashAt(t, src, 5))
	c9 := Sign(key, 9, mustHashAt(t, src, 9))

	dst, _ := mustOpen(t, t.TempDir(), Options{})
	defer dst.Close()
	appendAll(t, dst, 1, 9)
	if err := dst.AddCheckpoint(c9); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c    Checkpoint
		want string
	}{
		{c5, "after one of record 9"},
		{Sign(key, 10, mustHashAt(t, src, 10)), "ends at record 9"},
		{Sign(key, 9, ChainHash(Hash{}, 9, []byte("x"))), "the journal holds"},
		{Checkpoint{Seq: 9, Hash: c9.Hash, Sig: c9.Sig[:10]}, "signature of 10 bytes"},
	} {
		if err := dst.AddCheckpoint(tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddCheckpoint(record %d): %v, want an error saying %q", tc.c.Seq, err, tc.want)
		}
	}
	heads, err := dst.Checkpoints()
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) != 1 || heads[0].Seq != 9 || !heads[0].Verify(key.Public().(ed25519.PublicKey)) {
		t.Fatalf("heads file holds %+v, want the checkpoint of record 9 alone", heads)
	}
	problems, _, err := dst.CheckHeads(key.Public().(ed25519.PublicKey), "heads", heads)
	if err != nil || len(problems) != 0 {
		t.Fatalf("CheckHeads: %v %v", problems, err)
	}
}

func mustHashAt(t *testing.T, j *Journal, seq uint64) Hash {
	t.Helper()
	h, err := j.HashAt(seq)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
