package broker

import (
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

// TestClientsLeavingAreNoWarning: a client that disconnects, as mosquitto_sub does once
// it has its messages, or that closes its connection without a word, with data still
// unread or not, is routine: the broker logs no warning for it.
func TestClientsLeavingAreNoWarning(t *testing.T) {
	logs := &logBuffer{}
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", Logger: slog.New(slog.NewTextHandler(logs, nil))})
	c := connect(t, b.URL(), "polite")
	c.Disconnect(250)
	// Connections closed without DISCONNECT, after their CONNECT (MQTT 3.1.1, clean
	// session): one having read all it was sent (the broker reads the end of the
	// stream), one leaving part of a SUBACK unread (the broker's read is reset).
	for _, id := range []string{"rude", "hasty"} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(b.URL(), "tcp://"))
		if err != nil {
			t.Fatal(err)
		}
		connect := append([]byte{0x10, byte(12 + len(id)), 0, 4, 'M', 'Q', 'T', 'T', 4, 2, 0, 60, 0, byte(len(id))}, id...)
		if _, err := conn.Write(connect); err != nil {
			t.Fatal(err)
		}
		ack := make([]byte, 4)
		conn.SetReadDeadline(time.Now().Add(guard))
		if _, err := io.ReadFull(conn, ack); err != nil || ack[0] != 0x20 {
			t.Fatalf("CONNACK: % x, %v", ack, err)
		}
		if id == "hasty" {
			// SUBSCRIBE tablectl/v1/t1/status at QoS 0; read one byte of its SUBACK.
			topic := "tablectl/v1/t1/status"
			sub := append([]byte{0x82, byte(5 + len(topic)), 0, 1, 0, byte(len(topic))}, topic...)
			if _, err := conn.Write(append(sub, 0)); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(conn, ack[:1]); err != nil || ack[0] != 0x90 {
				t.Fatalf("SUBACK: % x, %v", ack[:1], err)
			}
		}
		conn.Close()
	}
	b.Close() // waits for every connection's goroutine, and so for its log
	if strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("a client leaving was a warning:\n%s", logs.String())
	}
}
