package journal

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkSyncModes times one record of a card's size made durable three ways, each in
// a file of its own: appended and synced with fsync, as the journal does; appended and
// synced with fdatasync; and written over space allocated beforehand (fallocate) and
// synced with fdatasync, which leaves the file's size and so its metadata unchanged. It
// reports the median and the 99th percentile of each in µs. The three take turns, so
// that the disk's moods fall on all.
func BenchmarkSyncModes(b *testing.B) {
	dir := b.TempDir()
	open := func(name string) *os.File {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		return f
	}
	appended, dataOnly, allocated := open("fsync"), open("fdatasync"), open("allocated")
	rec := make([]byte, 112)
	room := int64(len(rec)) * int64(b.N+1)
	if err := unix.Fallocate(int(allocated.Fd()), 0, 0, room); err != nil {
		b.Skipf("fallocate: %v", err)
	}
	if err := allocated.Sync(); err != nil {
		b.Fatal(err)
	}
	var times [3][]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := appended.Write(rec); err != nil {
			b.Fatal(err)
		}
		if err := appended.Sync(); err != nil {
			b.Fatal(err)
		}
		times[0] = append(times[0], time.Since(start))
		start = time.Now()
		if _, err := dataOnly.Write(rec); err != nil {
			b.Fatal(err)
		}
		if err := unix.Fdatasync(int(dataOnly.Fd())); err != nil {
			b.Fatal(err)
		}
		times[1] = append(times[1], time.Since(start))
		start = time.Now()
		if _, err := allocated.WriteAt(rec, int64(i*len(rec))); err != nil {
			b.Fatal(err)
		}
		if err := unix.Fdatasync(int(allocated.Fd())); err != nil {
			b.Fatal(err)
		}
		times[2] = append(times[2], time.Since(start))
	}
	b.StopTimer()
	for i, name := range []string{"fsync", "fdatasync", "allocated"} {
		t := times[i]
		slices.Sort(t)
		b.ReportMetric(float64(t[len(t)/2].Microseconds()), name+"-p50-µs")
		b.ReportMetric(float64(t[len(t)*99/100].Microseconds()), name+"-p99-µs")
	}
}
