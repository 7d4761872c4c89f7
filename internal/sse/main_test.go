package sse

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind: every stream and server ends.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
