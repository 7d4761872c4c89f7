package broker

import (
	"context"
	"net"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestCloseWaitsForEveryConnection: Close returns only when the goroutines that served
// the TCP listener's connections have returned, a client's and one that never sent
// CONNECT alike, so nothing the broker started (a log line, a hook) runs after it
// (third_party/mochi-mqtt-server/PATCHES.md).
func TestCloseWaitsForEveryConnection(t *testing.T) {
	before := goleak.IgnoreCurrent()
	b, err := Start(context.Background(), Options{Listen: "127.0.0.1:0", Table: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	silent, err := net.DialTimeout("tcp", b.Addr(), guard)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close() // held open past Close: the broker must not wait for it
	c := connect(t, "tcp://"+b.Addr(), "client")
	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(guard):
		t.Fatal("Close still waits for a connection that never sent CONNECT")
	}
	c.Disconnect(0)
	// The paho client's goroutines end with its Disconnect; what is left is the broker's.
	goleak.VerifyNone(t, before, goleak.IgnoreTopFunction("github.com/eclipse/paho.mqtt.golang.(*client).Disconnect"))
}
