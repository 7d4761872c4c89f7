package broker

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

// TestRetainedCommandIsRefused: a dealer's command published retained is refused (at QoS
// 1 the client, which speaks MQTT 3.1.1, is disconnected; at QoS 0 it is dropped), so a
// tablectl subscribing after it, as at a restart, gets none; the same command not
// retained reaches it.
func TestRetainedCommandIsRefused(t *testing.T) {
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", Users: testUsers(t), SelfClientID: "tablectl-t1"})
	lost := make(chan error, 1)
	o := clientOptions(b.URL(), "dealer-console", "dealer1", testPasswords["dealer1"]).
		SetConnectionLostHandler(func(_ mqtt.Client, err error) { lost <- err })
	dealer := mqtt.NewClient(o)
	if tok := dealer.Connect(); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	tok := dealer.Publish("tablectl/v1/t1/cmd/dealer", 1, true, `{"id":"r1","cmd":"report","kind":"wrong_hand"}`)
	select {
	case <-lost:
	case <-tok.Done():
		if tok.Error() == nil {
			t.Fatal("a retained command at QoS 1 was acknowledged")
		}
	case <-timeout():
		t.Fatal("the dealer's connection was neither refused nor closed")
	}
	dealer.Disconnect(100)

	dealer = connectAs(t, b.URL(), "dealer-console-2", "dealer1", testPasswords["dealer1"])
	if tok := dealer.Publish("tablectl/v1/t1/cmd/dealer", 0, true, `{"id":"r2","cmd":"report","kind":"wrong_hand"}`); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	// tablectl subscribes (a restart): the first command it gets is the live one, sent after.
	_, got := watch(t, b)
	if tok := dealer.Publish("tablectl/v1/t1/cmd/dealer", 1, false, `{"id":"l1","cmd":"confirm"}`); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	for {
		select {
		case m := <-got:
			if !strings.Contains(m.Topic(), "/cmd/") {
				continue
			}
			if string(m.Payload()) != `{"id":"l1","cmd":"confirm"}` || m.Retained() {
				t.Fatalf("tablectl got %s (retained %v), want the live command", m.Payload(), m.Retained())
			}
			return
		case <-timeout():
			t.Fatal("the live command did not arrive")
		}
	}
}

// countingWriter counts what the log writes.
type countingWriter struct {
	mu sync.Mutex
	n  int
	b  bytes.Buffer
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += len(p)
	if w.b.Len() < 64<<10 {
		w.b.Write(p)
	}
	return len(p), nil
}

func (w *countingWriter) size() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n, w.b.String()
}

// TestRefusedPublishFloodKeepsTheLogSmall: ten publishes of 250 KB that the policy
// refuses, from anyone on the machine, write a few lines to the log, never the packets.
func TestRefusedPublishFloodKeepsTheLogSmall(t *testing.T) {
	var w countingWriter
	log := slog.New(slog.NewTextHandler(&w, nil))
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", Logger: log})
	payload := bytes.Repeat([]byte("A"), 250_000)
	for i := range 10 {
		lost := make(chan error, 1)
		c := mqtt.NewClient(clientOptions(b.URL(), fmt.Sprintf("flood-%d", i), "", "").
			SetConnectionLostHandler(func(_ mqtt.Client, err error) { lost <- err }))
		if tok := c.Connect(); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
		c.Publish("tablectl/v1/t1/cmd/supervisor", 1, false, payload)
		select {
		case <-lost: // an anonymous client may not publish: disconnected
		case <-timeout():
			t.Fatal("the refused publish did not close the connection")
		}
		c.Disconnect(0)
	}
	b.Close() // every line the flood made is written
	n, text := w.size()
	if n > 16<<10 {
		t.Fatalf("ten refused publishes wrote %d bytes of log:\n%.2000s", n, text)
	}
	if strings.Contains(text, "65 65 65") || strings.Contains(text, "AAAA") {
		t.Fatalf("the log repeats a payload:\n%.2000s", text)
	}
	if !strings.Contains(text, "payload=250000 bytes") && !strings.Contains(text, "MQTT publish refused") {
		t.Fatalf("the log says nothing of the refusals:\n%s", text)
	}
}

// timeout fires after guard, bounding a wait that only a failure makes long.
func timeout() <-chan time.Time { return time.After(guard) }
