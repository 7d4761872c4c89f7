package board

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/tablectl/tablectl/internal/chromiumtest"
)

// TestMain checks that no test leaves a goroutine behind, once the browsers the tests
// shared are closed.
func TestMain(m *testing.M) {
	code := m.Run()
	chromiumtest.Close()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak: goroutines left behind:", err)
			code = 1
		}
	}
	os.Exit(code)
}
