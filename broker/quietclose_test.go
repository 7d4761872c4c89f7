package broker

import (
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

// TestClientsLeavingAreNoWarning: a client that disconnects, as mosquitto_sub does once
// it has its messages, or that closes its connection without a word, is routine: the
// broker logs no warning for it.
func TestClientsLeavingAreNoWarning(t *testing.T) {
	logs := &logBuffer{}
	b := start(t, Options{Listen: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(logs, nil))})
	c := connect(t, b.URL(), "polite")
	c.Disconnect(250)
	// A connection closed without DISCONNECT, after its CONNECT (MQTT 3.1.1, client id
	// "rude", clean session).
	conn, err := net.Dial("tcp", strings.TrimPrefix(b.URL(), "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	connect := []byte{0x10, 16, 0, 4, 'M', 'Q', 'T', 'T', 4, 2, 0, 60, 0, 4, 'r', 'u', 'd', 'e'}
	if _, err := conn.Write(connect); err != nil {
		t.Fatal(err)
	}
	ack := make([]byte, 4)
	conn.SetReadDeadline(time.Now().Add(guard))
	if _, err := conn.Read(ack); err != nil || ack[0] != 0x20 {
		t.Fatalf("CONNACK: % x, %v", ack, err)
	}
	conn.Close()
	b.Close() // waits for every connection's goroutine, and so for its log
	if strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("a client leaving was a warning:\n%s", logs.String())
	}
}
