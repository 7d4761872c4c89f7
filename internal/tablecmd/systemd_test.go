package tablecmd

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRunNotifiesSystemd runs the table as a Type=notify unit with a watchdog would:
// it says READY=1 with its status once up, feeds the watchdog from its loop while it
// deals, and says STOPPING=1 when stopped.
func TestRunNotifiesSystemd(t *testing.T) {
	dir, err := os.MkdirTemp("", "sd") // a socket path must be short
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", sock)
	t.Setenv("WATCHDOG_USEC", "60000") // 60 ms: a beat every 20 ms
	os.Unsetenv("WATCHDOG_PID")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done, lines := startRun(t, ctx, "--simulate", "--pace", "5ms", "--round-pause", "0", "--table", "S1",
		"--broker-listen", "127.0.0.1:0", "--broker-websocket", "", "--http", "")
	go func() {
		for range lines {
		}
	}()

	read := func() string {
		t.Helper()
		buf := make([]byte, 4096)
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		n, err := conn.Read(buf)
		if err != nil {
			t.Fatalf("no notification: %v", err)
		}
		return string(buf[:n])
	}
	first := read()
	if first != "READY=1\nSTATUS=table S1: no shoe yet" {
		t.Fatalf("first notification %q, want READY=1 with the table's status", first)
	}
	for i := range 5 {
		if got := read(); got != "WATCHDOG=1" {
			t.Fatalf("notification %d after READY: %q, want WATCHDOG=1", i+1, got)
		}
	}
	cancel()
	for {
		got := read()
		if got == "STOPPING=1" {
			break
		}
		if got != "WATCHDOG=1" {
			t.Fatalf("notification %q while stopping", got)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
