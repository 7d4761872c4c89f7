package shoe

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tablectl/tablectl/drivers/device"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestStartReportsMissingPortAndCloses(t *testing.T) {
	d, err := Start(Config{Format: "ascii", Port: device.Config{Path: t.TempDir() + "/no-such-tty"}},
		device.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), MinBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-d.Events():
		if e.Kind != device.Disconnected || !strings.Contains(e.Reason, "no-such-tty") {
			t.Fatalf("first event %v, want disconnected naming the port", e)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no event for a missing port")
	}
	d.Close()
	for range d.Events() {
	}
}
