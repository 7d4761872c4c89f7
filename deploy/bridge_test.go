package deploy

import (
	"bufio"
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

// TestBridgeConfUnderDebianDefaults loads deploy/mosquitto-bridge.conf whole, as
// /etc/mosquitto/conf.d/ under a main file like Debian's (which sets persistence and
// includes conf.d), and checks that Mosquitto starts with it, with no error before it
// says it runs, and listens. The bridge itself is tested end to end in internal/tablecmd
// (TestBridgeToCentralBroker); here its certificates are missing, which Mosquitto reports
// only as the bridge connects, after it runs.
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
		"log_dest stderr\ninclude_dir " + filepath.Join(dir, "conf.d") + "\n"
	if os.Geteuid() == 0 {
		main = "user root\n" + main
	}
	if err := os.WriteFile(filepath.Join(dir, "mosquitto.conf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", filepath.Join(dir, "mosquitto.conf"))
	// Mosquitto's log (log_dest stderr, written at once) comes line by line through a pipe.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var (
		mu  sync.Mutex
		log strings.Builder
	)
	output := func() string { mu.Lock(); defer mu.Unlock(); return log.String() }
	lines := make(chan string)     // each line, until started is closed
	started := make(chan struct{}) // past the start, the lines are kept in log only
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			select {
			case lines <- sc.Text():
			case <-started:
			}
		}
	}()
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
		<-read
		r.Close()
	}()
	// Mosquitto says it runs once its listeners are open; it exits at once on a fault of
	// its configuration. The ten seconds bound a failure only.
	giveUp := time.After(10 * time.Second)
	var start []string
	for running := false; !running; {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("mosquitto exited with the bridge configuration:\n%s", output())
			}
			start = append(start, line)
			running = strings.Contains(line, "mosquitto version ") && strings.HasSuffix(line, " running")
		case <-giveUp:
			t.Fatalf("mosquitto never said it runs:\n%s", output())
		}
	}
	close(started)
	if s := strings.Join(start, "\n"); strings.Contains(s, "Error") {
		t.Errorf("mosquitto reported an error as it started:\n%s", s)
	}
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatalf("mosquitto runs but does not listen on %d: %v\n%s", port, err, output())
	}
	c.Close()
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
