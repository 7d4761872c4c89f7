package device_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/frame"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestUnreadableInputLogIsThinnedCountsExact: a flood of garbage gives one warning line
// in a few seconds, then one that says how many were left out, while every unreadable
// event is still delivered and counted.
func TestUnreadableInputLogIsThinnedCountsExact(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	logs := &lockedBuffer{}
	op := device.NewFakeOpener()
	port := device.NewFakePort()
	op.Offer(port)
	d := device.Start(op, &frame.Decoder{}, device.Options{Name: "shoe", Now: clock,
		Logger: slog.New(slog.NewTextHandler(logs, nil)), Buffer: 4096})
	defer d.Close()

	const bursts = 200
	var flood []byte
	for range bursts {
		flood = append(flood, "garbage!"...)
		flood = append(flood, frames(t, 0, frame.TypeHeartbeat)...)
	}
	if err := port.Send(flood); err != nil {
		t.Fatal(err)
	}
	unreadable := 0
	for hb := 0; hb < bursts; {
		select {
		case e := <-d.Events():
			switch e.Kind {
			case device.Unreadable:
				unreadable++
			case device.Heartbeat:
				hb++
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%d heartbeats, %d unreadable events", hb, unreadable)
		}
	}
	if unreadable < bursts || d.Count(device.Unreadable) != uint64(unreadable) {
		t.Fatalf("%d unreadable events delivered, %d counted, for %d bursts of garbage", unreadable, d.Count(device.Unreadable), bursts)
	}
	if n := strings.Count(logs.String(), `event="unreadable:`); n != 1 {
		t.Fatalf("%d warning lines for %d unreadable events at one instant, want 1:\n%.1000s", n, unreadable, logs.String())
	}
	mu.Lock()
	now = now.Add(6 * time.Second)
	mu.Unlock()
	if err := port.Send(append([]byte("garbage!"), frames(t, 0, frame.TypeHeartbeat)...)); err != nil {
		t.Fatal(err)
	}
	for e := range d.Events() {
		if e.Kind == device.Heartbeat {
			break
		}
	}
	want := "not_logged_since_last=" + itoa(unreadable-1)
	if n := strings.Count(logs.String(), `event="unreadable:`); n != 2 || !strings.Contains(logs.String(), want) {
		t.Fatalf("after the interval: %d lines, want 2 with %s:\n%.2000s", n, want, logs.String())
	}
}
