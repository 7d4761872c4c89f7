package gpio

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine is still running once they end:
// closing a driver must stop everything it started.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
