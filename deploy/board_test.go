package deploy

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/board"
	"github.com/tablectl/tablectl/config"
)

// TestKioskReachesTheBoard checks that the kiosk setup of docs/board.md works with the
// configuration install.sh writes: the shipped tablectl.yaml serves the board on every
// interface (not the loopback only), on the port that docs/deploy.md and the kiosk's
// Chromium command line open; and a board served on that host answers on this
// machine's network address, as the display Pi reaches it.
func TestKioskReachesTheBoard(t *testing.T) {
	t.Parallel()
	// The file names this Pi's devices and password file, which config.Load checks;
	// the board's key is read as the reader reads it, from the file's top level.
	yaml, err := os.ReadFile("tablectl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^http: *(\S*)`).FindSubmatch(yaml)
	if m == nil {
		t.Fatal("the shipped configuration sets no http address: the board would be served on the default " + config.Default().HTTP)
	}
	httpAddr := string(m[1])
	if _, err := config.Parse("http.yaml", []byte("http: "+httpAddr+"\n")); err != nil {
		t.Fatalf("the shipped http address: %v", err)
	}
	host, port, err := net.SplitHostPort(httpAddr)
	if err != nil {
		t.Fatalf("http %q: %v", httpAddr, err)
	}
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		t.Fatalf("the shipped configuration serves the board on %s, the loopback only: a display Pi cannot reach it", httpAddr)
	}
	for _, doc := range []struct{ file, pattern string }{
		{"../docs/deploy.md", `http://TABLE-PI:(\d+)/`},
		{"../docs/board.md", `chromium --kiosk [^\n]*http://<table-pi>:(\d+)/`},
	} {
		text, err := os.ReadFile(doc.file)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(doc.pattern).FindSubmatch(text)
		if m == nil {
			t.Errorf("%s has no %s", doc.file, doc.pattern)
		} else if string(m[1]) != port {
			t.Errorf("%s opens the board on port %s; the shipped configuration serves it on %s", doc.file, m[1], port)
		}
	}

	// Serve a board on the configured host (any free port) and open it from this
	// machine's own network address.
	var addr net.IP
	ifaces, _ := net.InterfaceAddrs()
	for _, a := range ifaces {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			addr = n.IP
			break
		}
	}
	if addr == nil {
		t.Skip("this machine has no network address besides the loopback")
	}
	b, err := board.New(board.Options{Broker: "tcp://127.0.0.1:1", Table: "t1", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: b.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	_, bound, _ := net.SplitHostPort(ln.Addr().String())
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get("http://" + net.JoinHostPort(addr.String(), bound) + "/")
	if err != nil {
		t.Fatalf("the board is not reachable on %s: %v", addr, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "board.js") {
		t.Errorf("GET / on %s: %s, want the board's page", addr, resp.Status)
	}
}
