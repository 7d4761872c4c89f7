package journal

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckpointsFromAndIndex: the heads read from an entry on are those Checkpoints
// gives from there; the index of a sequence number is that of the first head at or
// after it; a damaged entry ends the heads with a CorruptError.
func TestCheckpointsFromAndIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{})
	defer j.Close()
	_, key, _ := ed25519.GenerateKey(nil)
	if cs, err := j.CheckpointsFrom(0); err != nil || cs != nil {
		t.Fatalf("no heads file: %v, %v", cs, err)
	}
	for i := 1; i <= 5; i++ {
		appendAll(t, j, 2*i-1, 2*i) // heads at 2, 4, 6, 8, 10
		if _, err := j.Checkpoint(key); err != nil {
			t.Fatal(err)
		}
	}
	all, err := j.Checkpoints()
	if err != nil || len(all) != 5 {
		t.Fatal(len(all), err)
	}
	for i := 0; i <= 6; i++ {
		cs, err := j.CheckpointsFrom(i)
		if err != nil {
			t.Fatal(err)
		}
		want := all[min(i, 5):]
		if len(cs) != len(want) {
			t.Fatalf("from %d: %d heads, want %d", i, len(cs), len(want))
		}
		for k := range cs {
			if cs[k].Seq != want[k].Seq || cs[k].Hash != want[k].Hash || string(cs[k].Sig) != string(want[k].Sig) {
				t.Fatalf("from %d: head %d is %+v, want %+v", i, k, cs[k], want[k])
			}
		}
	}
	for seq, want := range map[uint64]int{0: 0, 1: 0, 2: 0, 3: 1, 4: 1, 9: 4, 10: 4, 11: 5} {
		if got, err := j.CheckpointIndex(seq); err != nil || got != want {
			t.Errorf("index of %d: %d, %v; want %d", seq, got, err, want)
		}
	}
	// A partial entry at the end is not read; a damaged one ends the heads.
	path := filepath.Join(dir, headsName)
	b, _ := os.ReadFile(path)
	b[2*headEntrySize+20] ^= 1
	if err := os.WriteFile(path, append(b, 1, 2, 3), 0o640); err != nil {
		t.Fatal(err)
	}
	cs, err := j.CheckpointsFrom(1)
	asCorrupt(t, err, "a damaged head")
	if len(cs) != 1 || cs[0].Seq != 4 {
		t.Fatalf("heads before the damaged one: %+v", cs)
	}
	if cs, err := j.CheckpointsFrom(3); err != nil || len(cs) != 2 {
		t.Fatalf("from after the damaged one: %d heads, %v", len(cs), err)
	}
}
