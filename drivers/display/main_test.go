package display_test

import (
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/display"
	"go.uber.org/goleak"
)

// childBrokerEnv, when set, makes the test binary run as a table controller process
// that connects to that broker, says "connected" on stdout and then waits to be killed,
// as long as its stdin stays open (see TestWillWhenProcessIsKilled).
const childBrokerEnv = "TABLECTL_DISPLAY_TEST_CHILD_BROKER"

func TestMain(m *testing.M) {
	if url := os.Getenv(childBrokerEnv); url != "" {
		os.Exit(runChild(url))
	}
	goleak.VerifyTestMain(m)
}

func runChild(url string) int {
	connected := make(chan struct{}, 1)
	c, err := display.Dial(display.Options{
		Broker:    url,
		Table:     "t1",
		ClientID:  "tablectl-child",
		KeepAlive: 5 * time.Second,
		Online:    []byte(`{"state":"online","who":"child"}`),
		Offline:   []byte(`{"state":"offline","who":"child"}`),
		Logger:    quietLogger(),
		OnConnect: func(display.Publisher) {
			select {
			case connected <- struct{}{}:
			default:
			}
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	select {
	case <-connected:
	case <-time.After(guard):
		fmt.Fprintln(os.Stderr, "child: no connection")
		return 3
	}
	fmt.Println("connected")
	// The parent kills the process while it holds stdin open; stdin ending first means
	// the parent is gone, and the child leaves as a table controller stopped would.
	io.Copy(io.Discard, os.Stdin)
	c.Close()
	return 4
}
