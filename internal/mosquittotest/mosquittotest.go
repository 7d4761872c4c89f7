// Package mosquittotest runs Debian's Mosquitto broker for integration tests: each
// Broker is its own process on free loopback ports, with a configuration generated in
// the test's temporary directory (optionally users, an ACL, a TLS listener with a
// generated CA and client certificates, and persistence), and it is stopped when the
// test ends.
//
// When the mosquitto binary is missing the test is skipped, unless the environment has
// TABLECTL_REQUIRE_INTEGRATION=1, where it fails.
package mosquittotest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// RequireEnv is the environment variable that turns a missing broker binary from a
// skipped test into a failed one.
const RequireEnv = "TABLECTL_REQUIRE_INTEGRATION"

// startTimeout guards the wait for the broker to accept connections; stopTimeout the
// wait for it to exit on SIGTERM, which saves its persistence file first (on a busy
// machine's disk, that sync can take seconds). Both only bound a failure.
const (
	startTimeout = 15 * time.Second
	stopTimeout  = 60 * time.Second
)

// Config describes the broker a test wants.
type Config struct {
	// Users maps user names to passwords. When it is set a password file is generated
	// with mosquitto_passwd and anonymous clients are refused.
	Users map[string]string
	// PasswordFile is the text of a password file, used as it is (lines
	// "user:$7$..."), instead of one generated from Users; anonymous clients are then
	// refused too.
	PasswordFile string
	// ACL is the text of an ACL file (Mosquitto's acl_file format); none when empty.
	ACL string
	// TLS adds a second listener that speaks TLS with a server certificate for
	// 127.0.0.1 and localhost, signed by a CA generated for the broker (see CAFile).
	TLS bool
	// RequireClientCert makes the TLS listener refuse clients without a certificate
	// signed by that CA (see ClientCert).
	RequireClientCert bool
	// Persistence keeps retained messages, sessions and queued messages across
	// Restart.
	Persistence bool
	// Extra is configuration appended after the listeners, such as a bridge's
	// "connection" section.
	Extra string
}

// Broker is a running Mosquitto process.
type Broker struct {
	t       testing.TB
	bin     string
	dir     string
	conf    string
	logFile string
	port    int
	tlsPort int
	ca      *authority
	caFile  string

	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

// Binary returns the path of the mosquitto binary, or skips the test (fails it under
// TABLECTL_REQUIRE_INTEGRATION=1) when there is none.
func Binary(t testing.TB) string {
	t.Helper()
	return need(t, "mosquitto", "/usr/sbin/mosquitto")
}

// SubBinary returns the path of mosquitto_sub (Debian's mosquitto-clients), or skips the
// test (fails it under TABLECTL_REQUIRE_INTEGRATION=1) when there is none.
func SubBinary(t testing.TB) string {
	t.Helper()
	return need(t, "mosquitto_sub", "/usr/bin/mosquitto_sub")
}

func need(t testing.TB, name, fallback string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if _, err := os.Stat(fallback); err == nil {
		return fallback
	}
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s not found in PATH or at %s, and %s=1 requires it (apt-get install mosquitto mosquitto-clients)", name, fallback, RequireEnv)
	}
	t.Skipf("%s not found in PATH or at %s (apt-get install mosquitto mosquitto-clients; set %s=1 to fail instead)", name, fallback, RequireEnv)
	return ""
}

// Start writes the configuration, starts the broker and waits until it accepts
// connections. The broker is stopped by t.Cleanup; its log is printed when the test
// failed.
func Start(t testing.TB, cfg Config) *Broker {
	t.Helper()
	b := &Broker{t: t, bin: Binary(t), dir: t.TempDir()}
	b.logFile = filepath.Join(b.dir, "mosquitto.log")
	b.conf = filepath.Join(b.dir, "mosquitto.conf")
	b.port = freePort(t)
	if cfg.TLS {
		b.tlsPort = freePort(t)
	}
	if err := b.writeConfig(cfg); err != nil {
		t.Fatalf("mosquittotest: %v", err)
	}
	t.Cleanup(func() {
		b.Stop()
		if t.Failed() {
			if log, err := os.ReadFile(b.logFile); err == nil {
				t.Logf("mosquitto log (%s):\n%s", b.logFile, log)
			}
		}
	})
	b.start()
	return b
}

// Addr is the host:port of the plain MQTT listener.
func (b *Broker) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(b.port)) }

// URL is the broker URL of the plain MQTT listener, tcp://127.0.0.1:port.
func (b *Broker) URL() string { return "tcp://" + b.Addr() }

// PID is the broker process's id; 0 when it is stopped.
func (b *Broker) PID() int {
	if b.cmd == nil || b.cmd.Process == nil {
		return 0
	}
	return b.cmd.Process.Pid
}

// TLSURL is the broker URL of the TLS listener, ssl://127.0.0.1:port; "" without TLS.
func (b *Broker) TLSURL() string {
	if b.tlsPort == 0 {
		return ""
	}
	return "ssl://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(b.tlsPort))
}

// CAFile is the PEM file of the CA that signed the broker's certificate and the client
// certificates; "" without TLS.
func (b *Broker) CAFile() string { return b.caFile }

// ClientCert writes a client certificate with the given common name, signed by the
// broker's CA, and its key; it returns the two PEM files. The broker must have TLS.
func (b *Broker) ClientCert(commonName string) (certFile, keyFile string) {
	b.t.Helper()
	if b.ca == nil {
		b.t.Fatal("mosquittotest: ClientCert needs a broker started with TLS")
	}
	certFile = filepath.Join(b.dir, "client-"+commonName+".crt")
	keyFile = filepath.Join(b.dir, "client-"+commonName+".key")
	if err := b.ca.issue(commonName, false, certFile, keyFile); err != nil {
		b.t.Fatalf("mosquittotest: client certificate: %v", err)
	}
	return certFile, keyFile
}

// Stop stops the broker with SIGTERM (it saves its persistence file, when it has one,
// and closes every connection) and waits for it to exit. Stopping a stopped broker
// does nothing.
func (b *Broker) Stop() {
	b.t.Helper()
	if b.cmd == nil {
		return
	}
	// SIGTERM again every few seconds: one that comes as the broker starts its loop can
	// go unseen.
	guard := time.NewTimer(stopTimeout)
	defer guard.Stop()
	again := time.NewTicker(5 * time.Second)
	defer again.Stop()
	for stopped := false; !stopped; {
		_ = b.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-b.done:
			stopped = true
		case <-again.C:
		case <-guard.C:
			_ = b.cmd.Process.Kill()
			<-b.done
			b.t.Errorf("mosquittotest: broker did not stop on SIGTERM within %v; killed", stopTimeout)
			stopped = true
		}
	}
	b.cmd = nil
}

// Restart stops the broker and starts it again on the same ports with the same
// configuration.
func (b *Broker) Restart() {
	b.t.Helper()
	b.Stop()
	b.start()
}

// StartAgain starts a stopped broker on the same ports with the same configuration and
// waits until it accepts connections.
func (b *Broker) StartAgain() {
	b.t.Helper()
	if b.cmd != nil {
		b.t.Fatal("mosquittotest: StartAgain on a running broker")
	}
	b.start()
}

func (b *Broker) start() {
	b.t.Helper()
	cmd := exec.Command(b.bin, "-c", b.conf)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.t.Fatalf("mosquittotest: start %s: %v", b.bin, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	b.cmd, b.done = cmd, done

	deadline := time.Now().Add(startTimeout)
	for _, port := range []int{b.port, b.tlsPort} {
		if port == 0 {
			continue
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		for {
			conn, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				conn.Close()
				break
			}
			select {
			case <-done:
				b.cmd = nil
				log, _ := os.ReadFile(b.logFile)
				b.t.Fatalf("mosquittotest: broker exited at start: %s\n%s%s", cmd.ProcessState, out.String(), log)
			default:
			}
			if time.Now().After(deadline) {
				b.Stop()
				b.t.Fatalf("mosquittotest: broker does not accept connections on %s after %v: %v", addr, startTimeout, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func (b *Broker) writeConfig(cfg Config) error {
	var c strings.Builder
	fmt.Fprintf(&c, "# generated by mosquittotest\n")
	// Mosquitto started as root drops to the "mosquitto" user, which cannot read the
	// test's temporary directory; stay as the user that started it.
	if os.Geteuid() == 0 {
		fmt.Fprintf(&c, "user root\n")
	}
	fmt.Fprintf(&c, "per_listener_settings false\n")
	fmt.Fprintf(&c, "log_dest file %s\n", b.logFile)
	fmt.Fprintf(&c, "log_type error\nlog_type warning\nlog_type notice\nlog_type information\n")
	fmt.Fprintf(&c, "connection_messages true\n")
	if cfg.Persistence {
		fmt.Fprintf(&c, "persistence true\npersistence_location %s/\n", b.dir)
	} else {
		fmt.Fprintf(&c, "persistence false\n")
	}
	// Room for the tests' bursts; small messages sent at once (no Nagle delay).
	fmt.Fprintf(&c, "max_queued_messages 100000\nmax_inflight_messages 0\nset_tcp_nodelay true\n")
	switch pw := filepath.Join(b.dir, "passwd"); {
	case cfg.PasswordFile != "":
		if err := os.WriteFile(pw, []byte(cfg.PasswordFile), 0o600); err != nil {
			return fmt.Errorf("write password file: %w", err)
		}
		fmt.Fprintf(&c, "allow_anonymous false\npassword_file %s\n", pw)
	case len(cfg.Users) > 0:
		if err := writePasswords(b.t, pw, cfg.Users); err != nil {
			return err
		}
		fmt.Fprintf(&c, "allow_anonymous false\npassword_file %s\n", pw)
	default:
		fmt.Fprintf(&c, "allow_anonymous true\n")
	}
	if cfg.ACL != "" {
		acl := filepath.Join(b.dir, "acl")
		if err := os.WriteFile(acl, []byte(cfg.ACL), 0o600); err != nil {
			return fmt.Errorf("write ACL file: %w", err)
		}
		fmt.Fprintf(&c, "acl_file %s\n", acl)
	}
	fmt.Fprintf(&c, "\nlistener %d 127.0.0.1\n", b.port)
	if cfg.TLS {
		ca, err := newAuthority()
		if err != nil {
			return fmt.Errorf("generate CA: %w", err)
		}
		b.ca = ca
		b.caFile = filepath.Join(b.dir, "ca.crt")
		if err := ca.writeCert(b.caFile); err != nil {
			return err
		}
		crt, key := filepath.Join(b.dir, "server.crt"), filepath.Join(b.dir, "server.key")
		if err := ca.issue("localhost", true, crt, key); err != nil {
			return fmt.Errorf("server certificate: %w", err)
		}
		fmt.Fprintf(&c, "\nlistener %d 127.0.0.1\ncafile %s\ncertfile %s\nkeyfile %s\n", b.tlsPort, b.caFile, crt, key)
		if cfg.RequireClientCert {
			fmt.Fprintf(&c, "require_certificate true\n")
		}
	}
	if cfg.Extra != "" {
		fmt.Fprintf(&c, "\n%s\n", cfg.Extra)
	}
	if err := os.WriteFile(b.conf, []byte(c.String()), 0o600); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}

// writePasswords generates a Mosquitto password file with mosquitto_passwd -b.
func writePasswords(t testing.TB, file string, users map[string]string) error {
	bin := need(t, "mosquitto_passwd", "/usr/bin/mosquitto_passwd")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		return fmt.Errorf("create password file: %w", err)
	}
	for user, pass := range users {
		out, err := exec.Command(bin, "-b", file, user, pass).CombinedOutput()
		if err != nil {
			return fmt.Errorf("mosquitto_passwd -b %s %s: %w: %s", file, user, err, out)
		}
	}
	return nil
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("mosquittotest: find a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Users reads a file of "user:password" lines, as deploy/mosquitto/passwd.example is,
// skipping blank lines and "#" comments; a line that is neither fails the test.
func Users(t testing.TB, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	users := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		user, pass, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("%s: line %q is not user:password", path, line)
		}
		users[user] = pass
	}
	return users
}
