package deploy

import (
	"os"
	"testing"

	"github.com/tablectl/tablectl/internal/chromiumtest"
)

// TestMain closes the browsers the tests shared.
func TestMain(m *testing.M) {
	code := m.Run()
	chromiumtest.Close()
	os.Exit(code)
}
