package broker

import (
	"bytes"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

// logBuffer is a log sink safe for concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestReadersSubscribeWithAnyWildcard: an anonymous reader on loopback subscribes with
// the filters the README shows (tablectl/#, #, tablectl/v1/#) and reads every table's
// public topics, retained and live; the commands' payloads never reach it, nor a
// configured reader, whatever its filter. A refused subscription is logged with the
// client, the filter and why.
func TestReadersSubscribeWithAnyWildcard(t *testing.T) {
	logs := &logBuffer{}
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", Users: testUsers(t), SelfClientID: "tablectl-t1",
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	self, got := watch(t, b)
	if tok := self.Publish("tablectl/v1/t1/status", 1, true, `{"state":"online","table":"t1"}`); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	// Another table's retained status, as a bridge or a restart could leave it: the
	// broker's own publish, since tablectl's client writes only its table's topics.
	if err := b.Publish("tablectl/v1/t2/status", []byte(`{"state":"online","table":"t2"}`), true); err != nil {
		t.Fatal(err)
	}
	type reader struct {
		filter string
		msgs   chan mqtt.Message
	}
	var readers []reader
	for i, filter := range []string{"tablectl/#", "#", "tablectl/v1/#", "+/+/+/status", "tablectl/v1/+/cmd/+"} {
		c := connect(t, b.URL(), "reader-"+string(rune('a'+i)))
		if i == 4 {
			c = connectAs(t, b.URL(), "board-reader", "board1", testPasswords["board1"])
		}
		r := reader{filter, make(chan mqtt.Message, 64)}
		tok := c.Subscribe(filter, 1, func(_ mqtt.Client, m mqtt.Message) { r.msgs <- m })
		if !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatalf("subscribe %s: %v", filter, tok.Error())
		}
		if code := tok.(*mqtt.SubscribeToken).Result()[filter]; code != 1 {
			t.Fatalf("subscribe %s: code 0x%02x, want 1 (QoS 1 granted)", filter, code)
		}
		readers = append(readers, r)
	}
	// A dealer's command, then another: once tablectl has the second, the broker has
	// handed the first to everyone it hands it to, before the marker that follows.
	dealer := connectAs(t, b.URL(), "dealer-console", "dealer1", testPasswords["dealer1"])
	for _, id := range []string{"c1", "c2"} {
		if tok := dealer.Publish("tablectl/v1/t1/cmd/dealer", 1, false, `{"id":"`+id+`","cmd":"confirm"}`); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
	}
	for n := 0; n < 2; {
		select {
		case m := <-got:
			if strings.HasSuffix(m.Topic(), "/cmd/dealer") {
				n++
			}
		case <-time.After(guard):
			t.Fatal("tablectl did not get the dealer's commands")
		}
	}
	// The markers: a result, a reply.
	for _, topic := range []string{"tablectl/v1/t1/result", "tablectl/v1/t1/cmd/reply"} {
		if tok := self.Publish(topic, 1, false, "marker"); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
	}
	for _, r := range readers {
		var want map[string]bool
		switch r.filter {
		case "+/+/+/status":
			want = map[string]bool{"tablectl/v1/t1/status": true, "tablectl/v1/t2/status": true}
		case "tablectl/v1/+/cmd/+":
			want = map[string]bool{"tablectl/v1/t1/cmd/reply": true}
		default:
			want = map[string]bool{"tablectl/v1/t1/status": true, "tablectl/v1/t2/status": true,
				"tablectl/v1/t1/result": true, "tablectl/v1/t1/cmd/reply": true}
		}
		expected := maps.Clone(want) // a retained status may come twice: retained, and live
		for len(want) > 0 {
			select {
			case m := <-r.msgs:
				if strings.Contains(m.Topic(), "/cmd/") && !strings.HasSuffix(m.Topic(), "/cmd/reply") {
					t.Fatalf("%s: a command reached a reader: %s %s", r.filter, m.Topic(), m.Payload())
				}
				if !expected[m.Topic()] {
					t.Errorf("%s: delivered %s %s", r.filter, m.Topic(), m.Payload())
				}
				delete(want, m.Topic())
			case <-time.After(guard):
				t.Fatalf("%s: still waiting for %v", r.filter, want)
			}
		}
	}

	// Refused: outside tablectl/v1/, and a command topic for a reader. Each is logged
	// with the client, the filter and the reason (a second refusal for the same reason
	// soon after may be left out of the log).
	anon := connect(t, b.URL(), "curious")
	for _, filter := range []string{"casino/#", "tablectl/v1/t1/cmd/dealer", "$SYS/#"} {
		tok := anon.Subscribe(filter, 1, func(mqtt.Client, mqtt.Message) {})
		if !tok.WaitTimeout(guard) {
			t.Fatalf("subscribe %s: no answer", filter)
		}
		if code := tok.(*mqtt.SubscribeToken).Result()[filter]; code != 0x80 {
			t.Errorf("subscribe %s: code 0x%02x, want 0x80 (refused)", filter, code)
		}
	}
	for _, want := range []string{
		`client=curious user="" topic=casino/# reason="nothing outside tablectl/v1/<table>/ is read`,
		`topic=tablectl/v1/t1/cmd/dealer reason="the commands are read by tablectl alone`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, logs.String())
		}
	}
	if strings.Contains(logs.String(), "reader-") {
		t.Errorf("a granted subscription was logged:\n%s", logs.String())
	}
}
