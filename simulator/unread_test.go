//go:build unix

package simulator

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestInputQueuedCountsBytesOnTheWay writes to a line no driver reads and checks, at once
// after each write, that the bytes are counted as unread: the kernel moves them into the
// line's input queue a moment after the write, later still on a busy machine, and a Drain
// that missed them would let the simulator close the line under bytes never read (the
// shoe's driver then reported a hello and no card at all).
func TestInputQueuedCountsBytesOnTheWay(t *testing.T) {
	p, err := OpenPort(filepath.Join(t.TempDir(), "shoe"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	fd := int(p.slave.Fd())
	buf := make([]byte, 64)
	for i := range 500 {
		msg := []byte("[Game]<Card:4S>")[:1+i%15]
		if _, err := p.Write(msg); err != nil {
			t.Fatal(err)
		}
		n, err := inputQueued(p.slave)
		if err != nil {
			t.Fatal(err)
		}
		if n != len(msg) {
			t.Fatalf("write %d: %d bytes written, %d counted unread", i, len(msg), n)
		}
		for got := 0; got < n; {
			m, err := unix.Read(fd, buf)
			if err != nil {
				t.Fatal(err)
			}
			got += m
		}
	}
	// Bytes no one reads: Drain waits for them until its context ends.
	if _, err := p.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := p.Drain(ctx); err == nil {
		t.Fatal("Drain returned with a byte unread")
	}
}
