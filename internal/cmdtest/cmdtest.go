// Package cmdtest holds what the tests of tablectl's and tablectl-floor's commands share:
// a command run in the test's process, a buffer a command logs to while the test reads
// it, an MQTT client that keeps what it receives, and the files of deploy/ filled in for
// a test's brokers.
package cmdtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// Runner runs a program's command in-process: tablecmd.Run or floorcmd.Run.
type Runner func(ctx context.Context, args []string, io cli.Stdio) error

// RunBound bounds a command run by RunCmd: a table left held for a decision no test
// gives would otherwise run on until the package's time is out, with nothing said.
const RunBound = 5 * time.Minute

// RunCmd runs the command args with run in the test's process, with stdin as its
// input, and returns what it wrote to its output and its log. A command still running
// after RunBound is stopped, and the test fails with its log; prog names the program
// there.
func RunCmd(t *testing.T, run Runner, prog, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), RunBound)
	defer cancel()
	err := run(ctx, args, cli.Stdio{In: strings.NewReader(stdin), Out: &out, Err: &errb})
	if ctx.Err() != nil {
		t.Errorf("%s %s still running after %v: stopped; its output:\n%s\nits log:\n%s", prog, strings.Join(args, " "), RunBound, out.String(), errb.String())
	}
	return out.String(), errb.String(), err
}

// StartRun runs the command args with run in-process, its log written to log, until
// ctx ends; it returns a channel with its end and the lines it prints.
func StartRun(ctx context.Context, run Runner, log io.Writer, args ...string) (<-chan error, <-chan string) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	lines := make(chan string, 64)
	go func() {
		err := run(ctx, args, cli.Stdio{In: strings.NewReader(""), Out: pw, Err: log})
		pw.Close()
		done <- err
	}()
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return done, lines
}

// Write writes content to the file at path, failing the test when it cannot.
func Write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// LockedBuffer is a bytes.Buffer safe for a writer and a reader at once. A reader waits
// for a text with Holds, woken by each write.
type LockedBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed by the next write; nil until Holds asks
}

// Write appends p, and wakes a reader waiting for the next write.
func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written != nil {
		close(l.written)
		l.written = nil
	}
	return l.b.Write(p)
}

// Holds reports whether the buffer holds want; when it does not, written is closed by
// the next write, to wait on.
func (l *LockedBuffer) Holds(want string) (ok bool, written <-chan struct{}) {
	return l.Says(func(s string) bool { return strings.Contains(s, want) })
}

// Written returns a channel closed by the next write, to wait on.
func (l *LockedBuffer) Written() <-chan struct{} {
	_, written := l.Says(func(string) bool { return false })
	return written
}

// Says reports whether ok holds of what the buffer holds; when it does not, written is
// closed by the next write, to wait on.
func (l *LockedBuffer) Says(ok func(string) bool) (bool, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ok(l.b.String()) {
		return true, nil
	}
	if l.written == nil {
		l.written = make(chan struct{})
	}
	return false, l.written
}

// String is what the buffer holds.
func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// WaitLog waits until log holds want, failing the test after a minute (a guard against
// a hang, not a measure).
func WaitLog(t *testing.T, log *LockedBuffer, want string) {
	t.Helper()
	WaitLogSays(t, log, fmt.Sprintf("%q", want), func(s string) bool { return strings.Contains(s, want) })
}

// WaitLogSays is WaitLog for what ok tells of the whole log; what names it in the
// failure.
func WaitLogSays(t *testing.T, log *LockedBuffer, what string, ok func(string) bool) {
	t.Helper()
	guard := time.NewTimer(time.Minute)
	defer guard.Stop()
	for {
		said, written := log.Says(ok)
		if said {
			return
		}
		select {
		case <-written:
		case <-guard.C:
			t.Fatalf("the log does not say %s:\n%s", what, log)
		}
	}
}

// clients numbers the tests' MQTT clients: two with one id push each other off the
// broker. Tests run in parallel, so it is taken with NextClient.
var clients atomic.Int64

// NextClient returns the next number for a test's MQTT client id.
func NextClient() int64 { return clients.Add(1) }

// Collector is an MQTT client that keeps the payloads of one topic filter.
type Collector struct {
	mu   sync.Mutex
	msgs []string
	c    mqtt.Client
	more chan struct{} // signalled after each message kept
}

// Collect connects to the broker at url as user and keeps what comes on filter, until
// the test ends.
func Collect(t *testing.T, url, user, password, filter string) *Collector {
	t.Helper()
	col := &Collector{more: make(chan struct{}, 1)}
	n := NextClient()
	opts := mqtt.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("c%d-%s", n, user)).SetUsername(user).SetPassword(password)
	col.c = mqtt.NewClient(opts)
	if tok := col.c.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("connect as %q: %v", user, tok.Error())
	}
	if tok := col.c.Subscribe(filter, 1, func(_ mqtt.Client, m mqtt.Message) {
		col.mu.Lock()
		col.msgs = append(col.msgs, string(m.Payload()))
		col.mu.Unlock()
		select {
		case col.more <- struct{}{}:
		default:
		}
	}); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	t.Cleanup(func() { col.c.Disconnect(50) })
	return col
}

// WaitFor waits until a message containing all of want has come, and returns it.
func (col *Collector) WaitFor(t *testing.T, want ...string) string {
	t.Helper()
	guard := time.NewTimer(60 * time.Second) // only bounds a failure
	defer guard.Stop()
	for {
		col.mu.Lock()
		for _, m := range col.msgs {
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(m, w)
			}
			if ok {
				col.mu.Unlock()
				return m
			}
		}
		col.mu.Unlock()
		select {
		case <-col.more: // a message came after the look
		case <-guard.C:
			col.mu.Lock()
			defer col.mu.Unlock()
			t.Fatalf("no message with %q; got %q", want, col.msgs)
			return ""
		}
	}
}

// Messages returns a copy of the payloads kept so far, in the order they came.
func (col *Collector) Messages() []string {
	col.mu.Lock()
	defer col.mu.Unlock()
	return append([]string(nil), col.msgs...)
}

// More is signalled after each message kept: a wait looks at Messages again after it.
func (col *Collector) More() <-chan struct{} { return col.more }

// Seen reports whether a message containing sub has come.
func (col *Collector) Seen(sub string) bool {
	col.mu.Lock()
	defer col.mu.Unlock()
	for _, m := range col.msgs {
		if strings.Contains(m, sub) {
			return true
		}
	}
	return false
}

// Result is what the tests read of a result message.
type Result struct {
	Seq    uint64 `json:"seq"`
	Round  uint32 `json:"round"`
	Winner string `json:"winner"`
	Void   bool   `json:"void"`
}

// BridgeSection is deploy/mosquitto-bridge.conf from its "connection" line on, with
// the placeholders filled in for central. The bridge's certificate names the table, as
// the central broker's use_identity_as_username takes it. root is the repository's
// root, from the test's directory.
func BridgeSection(t *testing.T, root string, central *mosquittotest.Broker, site, pit, table string) string {
	t.Helper()
	conf, err := os.ReadFile(root + "/deploy/mosquitto-bridge.conf")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(conf), "\nconnection ")
	if i < 0 {
		t.Fatal("deploy/mosquitto-bridge.conf has no connection section")
	}
	cert, key := central.ClientCert(table)
	return strings.NewReplacer(
		"CENTRAL-BROKER:8883", strings.TrimPrefix(central.TLSURL(), "ssl://"),
		"/etc/mosquitto/certs/central-ca.pem", central.CAFile(),
		"/etc/mosquitto/certs/TABLE.pem", cert,
		"/etc/mosquitto/certs/TABLE.key", key,
		"SITE", site, "PIT", pit, "TABLE", table,
	).Replace(string(conf[i:]))
}
