//go:build darwin && !cgo

package device

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestUSBIdsWithoutCgoOnMacOSSayWhy(t *testing.T) {
	_, err := SerialOpener{Config: Config{VID: "0403", PID: "6001"}}.Open(context.Background())
	if !errors.Is(err, ErrNoUSBList) || !strings.Contains(err.Error(), "give the port's path") {
		t.Fatalf("Open by USB ids = %v, want ErrNoUSBList naming the path alternative", err)
	}
}
