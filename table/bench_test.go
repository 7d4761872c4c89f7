package table

import (
	"os"
	"testing"

	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
)

// BenchmarkStartReplay measures what a restart replays on the journal named by
// TABLECTL_BENCH_JOURNAL (docs/BENCHMARKS.md makes one): "whole" replays every record,
// as a table with no snapshot must; "snapshot" reads the snapshot written at the last
// shoe's end and replays the records after it, as Start does.
func BenchmarkStartReplay(b *testing.B) {
	dir := os.Getenv("TABLECTL_BENCH_JOURNAL")
	if dir == "" {
		b.Skip("TABLECTL_BENCH_JOURNAL names no journal")
	}
	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := Replay(j, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("snapshot", func(b *testing.B) {
		for b.Loop() {
			snap, seq, ok := readSnapshot(j)
			if !ok {
				b.Fatal("no snapshot")
			}
			if _, _, err := replayFrom(j, seq+1, snap.ctl, &snap.Settings, nopRecord); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func nopRecord(uint64, Entry, []round.Effect, *round.Controller) {}
