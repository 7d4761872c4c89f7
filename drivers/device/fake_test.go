package device_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
)

// TestFakePortWaitWritten: WaitWritten returns once the host has written the bytes
// waited for, in one write or in several, and with ctx's error and what was written so
// far when ctx ends first.
func TestFakePortWaitWritten(t *testing.T) {
	p := device.NewFakePort()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // bounds a failure only
	defer cancel()
	got := make(chan []byte, 1)
	go func() {
		b, _ := p.WaitWritten(ctx, 3)
		got <- b
	}()
	p.Write([]byte{1})
	p.Write([]byte{2, 3})
	if b := <-got; string(b) != "\x01\x02\x03" {
		t.Fatalf("WaitWritten(3) = % X, want 01 02 03", b)
	}
	short, stop := context.WithCancel(context.Background())
	stop()
	if b, err := p.WaitWritten(short, 4); !errors.Is(err, context.Canceled) || len(b) != 3 {
		t.Fatalf("WaitWritten(4) with ctx done = % X, %v; want the 3 bytes and context.Canceled", b, err)
	}
}
