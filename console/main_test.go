package console

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/tablectl/tablectl/internal/chromiumtest"
)

// TestMain checks that no test leaves a goroutine behind: every stream, sweeper and
// server ends. The browsers the tests shared and the HTTP client's idle connections to
// the test servers are closed first.
func TestMain(m *testing.M) {
	code := m.Run()
	chromiumtest.Close()
	if historyFile != "" {
		os.RemoveAll(filepath.Dir(historyFile))
	}
	http.DefaultClient.CloseIdleConnections()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left behind:", err)
			code = 1
		}
	}
	os.Exit(code)
}
