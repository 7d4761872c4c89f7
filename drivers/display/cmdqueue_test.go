package display_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// refusalOf reads a reply refusing a command.
func refusalOf(t *testing.T, payload []byte) (id, role, why string) {
	t.Helper()
	var r struct {
		ID, Role, Error string
		OK              bool
	}
	if err := json.Unmarshal(payload, &r); err != nil || r.OK {
		t.Fatalf("refusal %s (%v)", payload, err)
	}
	return r.ID, r.Role, r.Error
}

// waitPending waits until n commands of c wait to be taken (what names them), waking at
// each one queued or taken. The guard bounds a failure only.
func waitPending(t *testing.T, c *display.Client, n int, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := display.WaitPendingCommands(ctx, c, n); err != nil {
		t.Fatalf("want %s: %v", what, err)
	}
}

// TestSupervisorsCommandIsTakenAheadOfADealersFlood: with nobody taking commands, a
// dealer's flood fills the dealer's queue and every command past it is answered busy with
// its id; the supervisor's command, sent after the flood, is the first one taken, then the
// dealer's queued ones, exactly those not refused. Nothing waits on the clock: the
// refusals and the count of commands waiting say when the client has them all.
func TestSupervisorsCommandIsTakenAheadOfADealersFlood(t *testing.T) {
	t.Parallel()
	b := embedded(t)
	c, _ := dial(t, display.Options{Broker: b.url})
	s := subscribe(t, b.url, "console", c.Topics().Reply(), nil)
	dealer, _ := c.Topics().Command("dealer")
	supervisor, _ := c.Topics().Command("supervisor")
	const flood = 200
	for i := range flood {
		if tok := s.c.Publish(dealer, 1, false, fmt.Sprintf(`{"id":"d%d","cmd":"confirm"}`, i)); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
	}
	if tok := s.c.Publish(supervisor, 1, false, `{"id":"s1","cmd":"decide"}`); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	busy := map[string]bool{}
	for range flood - display.DefaultCommandQueue {
		id, role, why := refusalOf(t, s.next(t, c.Topics().Reply()).Payload())
		if role != "dealer" || !strings.HasPrefix(id, "d") || !strings.HasPrefix(why, "busy") || busy[id] {
			t.Fatalf("refusal of %q (%s): %s", id, role, why)
		}
		busy[id] = true
	}
	waitPending(t, c, display.DefaultCommandQueue+1, "the dealer's queue and the supervisor's")
	first := <-c.Commands()
	if first.Role != "supervisor" || display.CommandID(first.Payload) != "s1" {
		t.Fatalf("first command taken: %s %s, want the supervisor's s1", first.Role, first.Payload)
	}
	for range display.DefaultCommandQueue {
		cmd := <-c.Commands()
		id := display.CommandID(cmd.Payload)
		if cmd.Role != "dealer" || busy[id] {
			t.Fatalf("taken %s %s, which was answered busy", cmd.Role, cmd.Payload)
		}
		busy[id] = true
	}
	if len(busy) != flood {
		t.Fatalf("%d of the dealer's %d commands taken or refused", len(busy), flood)
	}
	select {
	case cmd := <-c.Commands():
		t.Fatalf("a command taken twice: %s", cmd.Payload)
	default:
	}
}

// TestDealersRateIsBounded: commands of a role not ahead come at most Burst at once; a
// command past it is answered busy with its id, even with its queue empty, while a
// supervisor's is taken.
func TestDealersRateIsBounded(t *testing.T) {
	t.Parallel()
	b := embedded(t)
	c, _ := dial(t, display.Options{Broker: b.url, CommandQueue: 100, Commands: &display.CommandPolicy{Ahead: []string{"supervisor"}, Rate: 0.001, Burst: 3}})
	s := subscribe(t, b.url, "console", c.Topics().Reply(), nil)
	dealer, _ := c.Topics().Command("dealer")
	supervisor, _ := c.Topics().Command("supervisor")
	for i := range 5 {
		if tok := s.c.Publish(dealer, 1, false, fmt.Sprintf(`{"id":"d%d"}`, i)); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
	}
	for range 2 {
		id, role, why := refusalOf(t, s.next(t, c.Topics().Reply()).Payload())
		if role != "dealer" || !strings.HasPrefix(id, "d") || !strings.Contains(why, "faster than 3 at once") {
			t.Fatalf("refusal of %q (%s): %s", id, role, why)
		}
	}
	if tok := s.c.Publish(supervisor, 1, false, `{"id":"s1"}`); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	waitPending(t, c, 4, "3 of the dealer's and the supervisor's")
	if first := <-c.Commands(); display.CommandID(first.Payload) != "s1" {
		t.Fatalf("first taken: %s", first.Payload)
	}
}

// TestCommandID: the id a refusal repeats.
func TestCommandID(t *testing.T) {
	t.Parallel()
	for payload, want := range map[string]string{
		`{"id":"a1","cmd":"confirm"}`:                "a1",
		`{"cmd":"confirm","detail":"x","id":"late"}`: "late",
		`{"id":7}`: "",
		`{"id":"` + strings.Repeat("x", display.MaxReplyIDLen+1) + `"}`: "",
		`not json`:   "",
		`{"id":"cut`: "",
	} {
		if got := display.CommandID([]byte(payload)); got != want {
			t.Errorf("CommandID(%.40q) = %q, want %q", payload, got, want)
		}
	}
}

// lines is a log handler's output, safe to read while it is written.
type lines struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRetainedCommandIsIgnored: a command left retained on the broker is handed on to
// every new subscription, so at each reconnect and restart; the client takes none of it
// and logs it once, however often it comes; a live command after it is taken.
func TestRetainedCommandIsIgnored(t *testing.T) {
	t.Parallel()
	m := mosquittotest.Start(t, mosquittotest.Config{})
	s := subscribe(t, m.URL(), "console", "tablectl/v1/t1/cmd/reply", nil)
	topic := "tablectl/v1/t1/cmd/dealer"
	if tok := s.c.Publish(topic, 1, true, `{"id":"r1","cmd":"report","kind":"wrong_hand"}`); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	var log lines
	proxy := newCutProxy(t, m.Addr())
	c, reconnected := dial(t, display.Options{Broker: proxy.url(), Logger: slog.New(slog.NewTextHandler(&log, nil))})
	for run := range 2 {
		if run == 1 { // the connection lost: the client subscribes again
			proxy.cut()
			waitFor(t, reconnected, "the reconnect")
		}
		live := fmt.Sprintf(`{"id":"l%d","cmd":"confirm"}`, run)
		if tok := s.c.Publish(topic, 1, false, live); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
		select {
		case cmd := <-c.Commands():
			if string(cmd.Payload) != live {
				t.Fatalf("connection %d: took %s, want the live command", run+1, cmd.Payload)
			}
		case <-time.After(guard):
			t.Fatal("the live command was not taken")
		}
	}
	if n := strings.Count(log.String(), "ignoring a retained command"); n != 1 || !strings.Contains(log.String(), "id=r1") {
		t.Fatalf("the retained command logged %d times:\n%s", n, log.String())
	}
}
