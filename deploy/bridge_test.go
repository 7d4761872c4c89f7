package deploy

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// TestBridgeConfUnderDebianDefaults loads deploy/mosquitto-bridge.conf whole, as
// /etc/mosquitto/conf.d/ under a main file like Debian's (which sets persistence and
// includes conf.d), and checks that Mosquitto starts with it and listens. The bridge
// itself is tested end to end in cmd/tablectl (TestBridgeToCentralBroker).
func TestBridgeConfUnderDebianDefaults(t *testing.T) {
	t.Parallel()
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
	logFile := filepath.Join(dir, "mosquitto.log")
	f, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	output := func() string { b, _ := os.ReadFile(logFile); return string(b) }
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
			t.Fatalf("mosquitto exited with the bridge configuration: %v\n%s", err, output())
		default:
		}
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mosquitto never listened on %d:\n%s", port, output())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Contains(output(), "Error") {
		t.Errorf("mosquitto reported an error:\n%s", output())
	}
}

// TestBridgeForwardsOnlyItsTable: every topic line of deploy/mosquitto-bridge.conf is
// under the table's own tablectl/v1/TABLE/, as the central broker's patterns grant the
// bridge logged in as the table id; the records go out and the held messages come in,
// for every archive.
func TestBridgeForwardsOnlyItsTable(t *testing.T) {
	t.Parallel()
	conf, err := os.ReadFile("mosquitto-bridge.conf")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{}
	for _, line := range strings.Split(string(conf), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "topic" {
			continue
		}
		if len(f) < 3 || !strings.HasPrefix(f[1], "tablectl/v1/TABLE/") {
			t.Errorf("bridge line %q: want a topic under tablectl/v1/TABLE/", line)
			continue
		}
		dirs[strings.TrimPrefix(f[1], "tablectl/v1/TABLE/")] = f[2]
	}
	for rest, dir := range map[string]string{"status": "out", "result": "out", "cmd/reply": "out", "cmd/dealer": "in",
		"archive/+/records": "out", "archive/+/held": "in"} {
		if dirs[rest] != dir {
			t.Errorf("the bridge carries tablectl/v1/TABLE/%s %q, want %q", rest, dirs[rest], dir)
		}
	}
}
