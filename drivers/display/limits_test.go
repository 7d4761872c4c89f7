package display_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/display"
)

// TestOversizedCommandIsAnsweredNotTaken: a command over MaxCommandSize is answered at
// once, with its id but without being repeated, and never reaches Commands; the next one
// does.
func TestOversizedCommandIsAnsweredNotTaken(t *testing.T) {
	t.Parallel()
	b := embedded(t)
	c, _ := dial(t, display.Options{Broker: b.url})
	s := subscribe(t, b.url, "console", c.Topics().Reply(), nil)
	topic, _ := c.Topics().Command("dealer")
	big := `{"id":"big","cmd":"report","detail":"` + strings.Repeat("A", display.MaxCommandSize) + `"}`
	for _, p := range []string{big, `{"id":"small"}`} {
		if tok := s.c.Publish(topic, 1, false, p); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
	}
	m := s.next(t, c.Topics().Reply())
	if len(m.Payload()) > 1024 {
		t.Fatalf("the reply repeats the command: %d bytes", len(m.Payload()))
	}
	var r struct {
		ID, Role, Error string
		OK              bool
	}
	if err := json.Unmarshal(m.Payload(), &r); err != nil || r.OK || r.Role != "dealer" || r.ID != "big" || !strings.Contains(r.Error, "over the limit") {
		t.Fatalf("reply %s (%v)", m.Payload(), err)
	}
	select {
	case cmd := <-c.Commands():
		if string(cmd.Payload) != `{"id":"small"}` {
			t.Fatalf("took %.40q", cmd.Payload)
		}
	case <-time.After(guard):
		t.Fatal("the next command was not taken")
	}
}
