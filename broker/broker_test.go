package broker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// guard bounds every wait, as a failure guard only.
const guard = 10 * time.Second

func start(t *testing.T, opts Options) *Broker {
	t.Helper()
	b, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// connect connects an anonymous client.
func connect(t *testing.T, url, id string) mqtt.Client {
	t.Helper()
	return connectAs(t, url, id, "", "")
}

// connectSelf connects as tablectl itself.
func connectSelf(t *testing.T, b *Broker, url, id string) mqtt.Client {
	t.Helper()
	return connectAs(t, url, id, SelfUser, b.SelfPassword())
}

func clientOptions(url, id, user, password string) *mqtt.ClientOptions {
	o := mqtt.NewClientOptions().AddBroker(url).SetClientID(id).SetConnectTimeout(guard).SetAutoReconnect(false)
	if user != "" {
		o.SetUsername(user).SetPassword(password)
	}
	return o
}

func connectAs(t *testing.T, url, id, user, password string) mqtt.Client {
	t.Helper()
	c := mqtt.NewClient(clientOptions(url, id, user, password))
	if tok := c.Connect(); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatalf("connect %s to %s: %v", id, url, tok.Error())
	}
	t.Cleanup(func() { c.Disconnect(1000) })
	return c
}

func TestPortZeroTCPAndWebSocketCarryMessages(t *testing.T) {
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", WebSocket: "127.0.0.1:0"})
	for _, addr := range []string{b.Addr(), b.WebSocketAddr()} {
		if _, port, _ := net.SplitHostPort(addr); port == "0" || port == "" {
			t.Fatalf("bound address %q has no real port", addr)
		}
	}
	if !strings.HasPrefix(b.WebSocketURL(), "ws://127.0.0.1:") {
		t.Fatalf("WebSocketURL %q", b.WebSocketURL())
	}

	// A client publishes a retained message over WebSocket ...
	ws := connectSelf(t, b, b.WebSocketURL(), "ws-client")
	if tok := ws.Publish("tablectl/v1/t1/state", 1, true, "hello"); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatalf("publish over WebSocket: %v", tok.Error())
	}
	// ... and a TCP client that subscribes afterwards gets it.
	got := make(chan mqtt.Message, 1)
	tcp := connect(t, b.URL(), "tcp-client")
	tok := tcp.Subscribe("tablectl/v1/t1/#", 1, func(_ mqtt.Client, m mqtt.Message) { got <- m })
	if !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	select {
	case m := <-got:
		if m.Topic() != "tablectl/v1/t1/state" || string(m.Payload()) != "hello" || !m.Retained() {
			t.Fatalf("got %s %q retained=%v, want the retained state", m.Topic(), m.Payload(), m.Retained())
		}
	case <-time.After(guard):
		t.Fatal("no retained message over TCP")
	}
}

func TestAddressInUseSaysSoAndNamesTheAddress(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()

	for _, opts := range []Options{
		{Listen: addr, Table: "t1"},
		{Listen: "127.0.0.1:0", Table: "t1", WebSocket: addr},
	} {
		b, err := Start(context.Background(), opts)
		if err == nil {
			b.Close()
			t.Fatalf("Start(%+v) succeeded on a taken port", opts)
		}
		if !errors.Is(err, ErrAddressInUse) || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "already in use") {
			t.Errorf("Start(%+v) error %q: want ErrAddressInUse naming %s", opts, err, addr)
		}
	}
}

func TestRefusesNonLoopbackUnlessAllowed(t *testing.T) {
	for _, opts := range []Options{
		{Listen: "0.0.0.0:0"},
		{Listen: ":0"},
		{Listen: "127.0.0.1:0", WebSocket: "192.0.2.1:0"},
		{Listen: "no-port"},
	} {
		b, err := Start(context.Background(), opts)
		if err == nil {
			b.Close()
			t.Fatalf("Start(%+v) succeeded", opts)
		}
		if !strings.Contains(err.Error(), "address") {
			t.Errorf("Start(%+v) error %q does not name the address", opts, err)
		}
	}
	b := start(t, Options{Listen: "localhost:0", Table: "t1"})
	if b.Addr() == "" {
		t.Fatal("no address for localhost")
	}
}

func TestCancelContextClosesBroker(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	b, err := Start(ctx, Options{Listen: "127.0.0.1:0", Table: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	addr := b.Addr()
	cancel()
	select {
	case <-b.Done():
	case <-time.After(guard):
		t.Fatal("broker still running after its context was cancelled")
	}
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		conn.Close()
		t.Fatalf("%s still accepts connections", addr)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestRetainedWritesRaceWildcardSubscribes publishes and clears retained
// messages while another client subscribes with wildcards, which makes the
// broker scan its topic tree for retained messages as they change. Under
// -race it guards the embedded broker's fix for an unlocked read of a
// topic's retained path (third_party/mochi-mqtt-server/PATCHES.md); without
// the fix the race detector fails this test.
func TestRetainedWritesRaceWildcardSubscribes(t *testing.T) {
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1"})
	pub := connectSelf(t, b, b.URL(), "publisher")
	sub := connect(t, b.URL(), "subscriber")

	const rounds = 200
	done := make(chan error, 1)
	go func() {
		for i := range rounds {
			topic := "tablectl/v1/t1/" + []string{"state", "roadmap", "status", "journal"}[i%4]
			payload := "state"
			if i%3 == 2 {
				payload = "" // clearing a retained message rewrites the path too
			}
			if tok := pub.Publish(topic, 1, true, payload); !tok.WaitTimeout(guard) || tok.Error() != nil {
				done <- fmt.Errorf("publish %d: %v", i, tok.Error())
				return
			}
		}
		done <- nil
	}()
	for i := 0; ; i++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				t.Fatal("no subscribe overlapped the publishes")
			}
			return
		default:
		}
		filter := []string{"tablectl/v1/+/state", "tablectl/v1/#", "tablectl/v1/t1/+"}[i%3]
		if tok := sub.Subscribe(filter, 1, func(mqtt.Client, mqtt.Message) {}); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatalf("subscribe %s: %v", filter, tok.Error())
		}
		if tok := sub.Unsubscribe(filter); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatalf("unsubscribe %s: %v", filter, tok.Error())
		}
	}
}
