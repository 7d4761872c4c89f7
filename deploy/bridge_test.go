package deploy

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// lockedBuffer is a bytes.Buffer safe to read while a process writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestBridgeConfUnderDebianDefaults loads deploy/mosquitto-bridge.conf whole, as
// /etc/mosquitto/conf.d/ under a main file like Debian's (which sets persistence and
// includes conf.d), and checks that Mosquitto starts with it and listens. The bridge
// itself is tested end to end in cmd/tablectl (TestBridgeToCentralBroker).
func TestBridgeConfUnderDebianDefaults(t *testing.T) {
	bin := mosquittotest.Binary(t)
	conf, err := os.ReadFile("mosquitto-bridge.conf")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	for _, d := range []string{"conf.d", "data"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bridge := strings.NewReplacer("listener 1883 ", fmt.Sprintf("listener %d ", port),
		"CENTRAL-BROKER:8883", "127.0.0.1:1").Replace(string(conf))
	if err := os.WriteFile(filepath.Join(dir, "conf.d", "tablectl-bridge.conf"), []byte(bridge), 0o644); err != nil {
		t.Fatal(err)
	}
	main := "persistence true\npersistence_location " + filepath.Join(dir, "data") + "/\n" +
		"log_dest stdout\ninclude_dir " + filepath.Join(dir, "conf.d") + "\n"
	if os.Geteuid() == 0 {
		main = "user root\n" + main
	}
	if err := os.WriteFile(filepath.Join(dir, "mosquitto.conf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", filepath.Join(dir, "mosquitto.conf"))
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("mosquitto exited with the bridge configuration: %v\n%s", err, out.String())
		default:
		}
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mosquitto never listened on %d:\n%s", port, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Contains(out.String(), "Error") {
		t.Errorf("mosquitto reported an error:\n%s", out.String())
	}
}
