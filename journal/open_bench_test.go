package journal_test

import (
	"crypto/ed25519"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/tablectl/tablectl/journal"
)

// BenchmarkOpenYear opens a journal of many days' play, as the table does on each start:
// "full" checks every record (what Open did before checkpoints, and what `tablectl
// journal verify` does), "quick" checks the segments from the last checkpoint on
// (Options.Quick, the table's start). The journal is written once, outside the timing:
// TABLECTL_BENCH_DAYS days (default 7; docs/BENCHMARKS.md gives the figures for 365) of
// 1,200 rounds a day, each round 7 records of about 85 bytes and a signed checkpoint, a
// snapshot at each 80-round shoe's end, in segments of the default 16 MiB.
func BenchmarkOpenYear(b *testing.B) {
	days := 7
	if s := os.Getenv("TABLECTL_BENCH_DAYS"); s != "" {
		var err error
		if days, err = strconv.Atoi(s); err != nil || days < 1 {
			b.Fatalf("TABLECTL_BENCH_DAYS=%q: want a number of days", s)
		}
	}
	dir := b.TempDir()
	if root := os.Getenv("TABLECTL_BENCH_DIR"); root != "" {
		var err error
		if dir, err = os.MkdirTemp(root, "journal-year-"); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
	}
	writeDays(b, dir, days)
	for _, quick := range []bool{false, true} {
		name := map[bool]string{false: "full", true: "quick"}[quick]
		b.Run(fmt.Sprintf("%s/days=%d", name, days), func(b *testing.B) {
			var rep journal.Report
			for b.Loop() {
				j, r, err := journal.Open(dir, journal.Options{Quick: quick})
				if err != nil {
					b.Fatal(err)
				}
				rep = r
				j.Close()
			}
			b.ReportMetric(float64(rep.Records), "records")
			var size int64
			for _, s := range rep.Segments {
				size += s.Bytes
			}
			b.ReportMetric(float64(size)/(1<<20), "MiB")
		})
	}
}

// writeDays writes days of play into the journal in dir, synced once at the end.
func writeDays(b *testing.B, dir string, days int) {
	b.Helper()
	j, _, err := journal.Open(dir, journal.Options{})
	if err != nil {
		b.Fatal(err)
	}
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	kinds := []string{"bets_closed", "card", "card", "card", "card", "card", "confirm"}
	for r := 1; r <= days*1200; r++ {
		for i, k := range kinds {
			rec := fmt.Appendf(nil, `{"event":{"kind":"%s","at":"2026-03-01T20:15:%02d.%03dZ","card":"TH","seq":%d}}`,
				k, r%60, i, r*7+i)
			if _, err := j.AppendNoSync(rec); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := j.Checkpoint(key); err != nil { // syncs the round's records, then the checkpoint
			b.Fatal(err)
		}
		if r%80 == 0 {
			if err := j.WriteSnapshot(j.LastSeq(), make([]byte, 4096)); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := j.Close(); err != nil {
		b.Fatal(err)
	}
}
