package floorcmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tablectl/tablectl/internal/chromiumtest"
	"github.com/tablectl/tablectl/internal/cmdtest"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/internal/tablecmd"
)

// TestMain lets the test binary stand in for tablectl-floor, or for tablectl, in a
// child process, so a test can kill a real archive or table. TABLECTL_TEST_MAIN names
// the program: tablectl-floor or tablectl; 1 takes it from the name the binary was run
// by, as the floor's set-up installs it under both names.
func TestMain(m *testing.M) {
	switch name := os.Getenv("TABLECTL_TEST_MAIN"); {
	case name == tablecmd.Name, name == "1" && filepath.Base(os.Args[0]) == tablecmd.Name:
		tablecmd.Main()
		os.Exit(0)
	case name == Name, name == "1":
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

// runCmd runs tablectl-floor's command args in the test's process, with stdin as its
// input, and returns what it wrote to its output and its log (cmdtest.RunCmd).
func runCmd(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	return cmdtest.RunCmd(t, Run, Name, stdin, args...)
}

// runTableCmd is runCmd for a command of tablectl, the table's binary.
func runTableCmd(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	return cmdtest.RunCmd(t, tablecmd.Run, tablecmd.Name, stdin, args...)
}

// startRun runs a table, "tablectl run ARGS", in-process and returns a channel with its
// end and the lines it prints.
func startRun(t *testing.T, ctx context.Context, args ...string) (<-chan error, <-chan string) {
	t.Helper()
	return cmdtest.StartRun(ctx, tablecmd.Run, io.Discard, append([]string{"run"}, args...)...)
}

// write writes content to the file at path.
func write(t *testing.T, path, content string) {
	t.Helper()
	cmdtest.Write(t, path, content)
}

// waitLog waits until log holds want (cmdtest.WaitLog).
func waitLog(t *testing.T, log *lockedBuffer, want string) {
	t.Helper()
	cmdtest.WaitLog(t, log, want)
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

// bridgeSection is deploy/mosquitto-bridge.conf's bridge, filled in for central.
func bridgeSection(t *testing.T, central *mosquittotest.Broker, site, pit, table string) string {
	t.Helper()
	return cmdtest.BridgeSection(t, "../..", central, site, pit, table)
}

// screenshot keeps a picture of the page in test-artifacts/internal/floorcmd.
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
