package tablecmd

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tablectl/tablectl/internal/chromiumtest"
	"github.com/tablectl/tablectl/internal/cmdtest"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// TestMain lets the test binary stand in for tablectl in a child process, so a test can
// kill a real tablectl.
func TestMain(m *testing.M) {
	if os.Getenv("TABLECTL_TEST_MAIN") == "1" {
		Main()
		os.Exit(0)
	}
	code := m.Run()
	chromiumtest.Close()     // the browsers the tests shared
	cmdtest.RemoveBinaries() // the binaries built for child processes
	os.Exit(code)
}

// lockedBuffer is a buffer a command writes while the test reads it.
type lockedBuffer = cmdtest.LockedBuffer

// resultMsg is what the tests read of a result message.
type resultMsg = cmdtest.Result

// runBound bounds a command run by runCmd.
const runBound = cmdtest.RunBound

// runCmd runs tablectl's command args in the test's process, with stdin as its input,
// and returns what it wrote to its output and its log (cmdtest.RunCmd).
func runCmd(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	return cmdtest.RunCmd(t, Run, Name, stdin, args...)
}

// startRun runs "tablectl run ARGS" in-process and returns a channel with its end and
// the lines it prints.
func startRun(t *testing.T, ctx context.Context, args ...string) (<-chan error, <-chan string) {
	t.Helper()
	return cmdtest.StartRun(ctx, Run, io.Discard, append([]string{"run"}, args...)...)
}

// startRunLogged is startRun with the log kept.
func startRunLogged(t *testing.T, ctx context.Context, args ...string) (<-chan error, <-chan string, *lockedBuffer) {
	t.Helper()
	logs := &lockedBuffer{}
	done, lines := cmdtest.StartRun(ctx, Run, logs, append([]string{"run"}, args...)...)
	return done, lines, logs
}

// write writes content to the file at path.
func write(t *testing.T, path, content string) {
	t.Helper()
	cmdtest.Write(t, path, content)
}

// waitLogSays waits until ok holds of the whole log (cmdtest.WaitLogSays).
func waitLogSays(t *testing.T, log *lockedBuffer, what string, ok func(string) bool) {
	t.Helper()
	cmdtest.WaitLogSays(t, log, what, ok)
}

// nextClient returns the next number for a test's MQTT client id.
func nextClient() int64 { return cmdtest.NextClient() }

// collector is an MQTT client that keeps the payloads of one topic filter.
type collector struct{ *cmdtest.Collector }

func collect(t *testing.T, url, user, password, filter string) *collector {
	t.Helper()
	return &collector{cmdtest.Collect(t, url, user, password, filter)}
}

// waitFor waits until a message containing all of want has come.
func (col *collector) waitFor(t *testing.T, want ...string) string {
	t.Helper()
	return col.WaitFor(t, want...)
}

func (col *collector) seen(sub string) bool { return col.Seen(sub) }

// bridgeSection is deploy/mosquitto-bridge.conf's bridge, filled in for central.
func bridgeSection(t *testing.T, central *mosquittotest.Broker, site, pit, table string) string {
	t.Helper()
	return cmdtest.BridgeSection(t, "../..", central, site, pit, table)
}

// screenshot keeps a picture of the page in test-artifacts/internal/tablecmd.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	cmdtest.Screenshot(t, ctx, name)
}

// browse runs steps with a bound on the time they may take.
func browse(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	cmdtest.Browse(t, ctx, what, steps...)
}

// evalJS evaluates expr on the page.
func evalJS[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return cmdtest.EvalJS[T](t, ctx, expr)
}

// waitJS evaluates the expression until it is true.
func waitJS(expr string) chromedp.Action[chromedp.Void] { return cmdtest.WaitJS(expr) }
