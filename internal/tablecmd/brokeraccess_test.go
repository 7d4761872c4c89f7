package tablecmd

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/gorilla/websocket"
	"golang.org/x/crypto/bcrypt"
)

// freePort is a loopback port free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// TestRunEmbeddedBrokerAccess: tablectl run with its embedded broker answers a command
// of a configured dealer, ignores one published without a login, refuses its client id
// to another client, and refuses a WebSocket from a page of another origin than the
// board's.
func TestRunEmbeddedBrokerAccess(t *testing.T) {
	t.Parallel()
	hash, err := bcrypt.GenerateFromPassword([]byte("dealer-pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tablectl.yaml")
	conf := fmt.Sprintf("table: A2\nbroker:\n  listen: 127.0.0.1:0\n  websocket: 127.0.0.1:0\n  users:\n    - {name: d1, role: dealer, password_hash: %q}\n", hash)
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	httpPort := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done, lines := startRun(t, ctx, "--config", file, "--simulate", "--pace", "50ms", "--round-pause", "0", "--http", "127.0.0.1:"+httpPort)
	var url, ws string
	for l := range lines {
		if u, ok := strings.CutPrefix(l, "embedded MQTT broker: "); ok {
			url, ws, _ = strings.Cut(u, ", WebSocket ")
			break
		}
	}
	go func() {
		for range lines {
		}
	}()
	if url == "" || ws == "" {
		t.Fatal("no broker addresses printed")
	}
	login := func(id, user, pw string) (mqtt.Client, error) {
		o := mqtt.NewClientOptions().AddBroker(url).SetClientID(id).SetAutoReconnect(false).SetConnectTimeout(30 * time.Second)
		if user != "" {
			o.SetUsername(user).SetPassword(pw)
		}
		c := mqtt.NewClient(o)
		tok := c.Connect()
		if !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
			return nil, fmt.Errorf("connect %s: %v", id, tok.Error())
		}
		t.Cleanup(func() { c.Disconnect(50) })
		return c, nil
	}
	reader, err := login("reader", "", "")
	if err != nil {
		t.Fatal(err)
	}
	replies := make(chan string, 16)
	if tok := reader.Subscribe("tablectl/v1/A2/cmd/reply", 1, func(_ mqtt.Client, m mqtt.Message) { replies <- string(m.Payload()) }); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	// tablectl publishes its online status once it listens for commands: a command
	// sent before would reach no one.
	online := make(chan struct{}, 1)
	if tok := reader.Subscribe("tablectl/v1/A2/status", 1, func(_ mqtt.Client, m mqtt.Message) {
		if strings.Contains(string(m.Payload()), `"online"`) {
			select {
			case online <- struct{}{}:
			default:
			}
		}
	}); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	select {
	case <-online:
	case <-time.After(30 * time.Second):
		t.Fatal("tablectl never said it was online")
	}
	anon, err := login("page", "", "")
	if err != nil {
		t.Fatal(err)
	}
	anon.Publish("tablectl/v1/A2/cmd/supervisor", 1, false, `{"id":"evil","cmd":"end_shoe"}`).WaitTimeout(2 * time.Second)
	dealer, err := login("console", "d1", "dealer-pw")
	if err != nil {
		t.Fatal(err)
	}
	if tok := dealer.Publish("tablectl/v1/A2/cmd/dealer", 1, false, `{"id":"d1","cmd":"cut_card"}`); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	select {
	case r := <-replies:
		if !strings.Contains(r, `"id":"d1"`) {
			t.Fatalf("first reply %s: want the dealer's (the anonymous command must not be taken)", r)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no reply to the dealer's command")
	}
	if _, err := login("tablectl-A2", "", ""); err == nil {
		t.Error("another client took tablectl's client id")
	}
	h := http.Header{"Origin": []string{"http://evil.example.com"}}
	if c, _, err := (&websocket.Dialer{Subprotocols: []string{"mqtt"}}).Dial(ws, h); err == nil {
		c.Close()
		t.Error("a page of another origin opened the broker's WebSocket")
	}
	h.Set("Origin", "http://127.0.0.1:"+httpPort)
	c, _, err := (&websocket.Dialer{Subprotocols: []string{"mqtt"}}).Dial(ws, h)
	if err != nil {
		t.Errorf("the board's own origin was refused: %v", err)
	} else {
		c.Close()
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
