package ratelog

import (
	"testing"
	"time"
)

func TestAllowThinsAFloodAndCountsWhatItLeavesOut(t *testing.T) {
	now := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	l := New(5*time.Second, func() time.Time { return now })
	logged, left := 0, 0
	// 10 s of a line every 100 µs: 100,000 lines.
	for range 100_000 {
		if ok, n := l.Allow("unreadable"); ok {
			logged++
			left += n
		}
		now = now.Add(100 * time.Microsecond)
	}
	if logged != 2 {
		t.Fatalf("%d lines logged in 10 s, want 2 (the first, then one 5 s later)", logged)
	}
	// Another kind is not held back by the first.
	if ok, n := l.Allow("seq-gap"); !ok || n != 0 {
		t.Fatalf("another kind: %v %d", ok, n)
	}
	// The next line says how many were left out since the last logged.
	now = now.Add(5 * time.Second)
	ok, n := l.Allow("unreadable")
	if !ok {
		t.Fatal("nothing logged after the interval")
	}
	if logged+left+n != 100_000 {
		t.Fatalf("logged %d + left out %d + %d != 100,000", logged, left, n)
	}
}
