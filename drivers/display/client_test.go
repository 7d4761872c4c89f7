package display_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablectl/tablectl/broker"
	"github.com/tablectl/tablectl/drivers/display"
)

func TestRetainedStatusAndStateSeenByLateSubscriber(t *testing.T) {
	t.Parallel()
	eachBroker(t, func(t *testing.T, b testBroker) {
		c, _ := dial(t, display.Options{Broker: b.url, Online: []byte(`{"state":"online","n":1}`)})
		state := []byte(`{"schema":1,"table":"t1","seq":7,"betting":"open"}`)
		if err := waitResult(t, c.Publish(c.Topics().State(), state, true), "state"); err != nil {
			t.Fatalf("publish state: %v", err)
		}
		// The subscriber connects only now; the broker hands it the retained messages.
		// A broker acknowledges a publish before it forwards it, so a subscriber that
		// arrives in between may also get a live copy (not retained) of the same message.
		s := subscribe(t, b.url, "late-board", "tablectl/v1/t1/#", nil)
		if got := s.nextRetained(t, c.Topics().Status()); string(got) != `{"state":"online","n":1}` {
			t.Errorf("retained status %q, want the online payload", got)
		}
		if got := s.nextRetained(t, c.Topics().State()); !bytes.Equal(got, state) {
			t.Errorf("retained state %q, want %q", got, state)
		}
	})
}

func TestCloseMarksOfflineAndStops(t *testing.T) {
	t.Parallel()
	eachBroker(t, func(t *testing.T, b testBroker) {
		c, _ := dial(t, display.Options{Broker: b.url, Offline: []byte(`{"state":"offline","by":"close"}`)})
		s := subscribe(t, b.url, "board", c.Topics().Status(), nil)
		if got := s.next(t, c.Topics().Status()); !strings.Contains(string(got.Payload()), "online") {
			t.Fatalf("status before Close %q, want online", got.Payload())
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		// An online status published as the connection came up may still be on its way
		// to the subscriber; the next one that is not online must be the offline payload.
		got := s.next(t, c.Topics().Status())
		for strings.Contains(string(got.Payload()), `"online"`) {
			got = s.next(t, c.Topics().Status())
		}
		if string(got.Payload()) != `{"state":"offline","by":"close"}` {
			t.Fatalf("status after Close %q, want the offline payload", got.Payload())
		}
		if err := waitResult(t, c.Publish(c.Topics().Card(), []byte("x"), false), "publish after close"); !errors.Is(err, display.ErrClosed) {
			t.Fatalf("Publish after Close: %v, want ErrClosed", err)
		}
		if _, ok := <-c.Commands(); ok {
			t.Fatal("Commands channel still open after Close")
		}
		if err := c.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	})
}

// TestWillWhenProcessIsKilled runs a table controller in a child process, kills it (no
// DISCONNECT is sent) and checks that the broker publishes its retained last will.
func TestWillWhenProcessIsKilled(t *testing.T) {
	t.Parallel()
	eachBroker(t, func(t *testing.T, b testBroker) {
		status := "tablectl/v1/t1/status"
		s := subscribe(t, b.url, "pit", status, nil)

		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childBrokerEnv+"="+b.url)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		// The child waits on its stdin, kept open until the kill.
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		defer stdin.Close()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line := make(chan string, 1)
		go func() {
			l, _ := bufio.NewReader(stdout).ReadString('\n')
			line <- l
		}()
		select {
		case l := <-line:
			if strings.TrimSpace(l) != "connected" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child said %q; stderr: %s", l, stderr.String())
			}
		case <-time.After(guard):
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child did not connect; stderr: %s", stderr.String())
		}
		if got := s.next(t, status); string(got.Payload()) != `{"state":"online","who":"child"}` {
			t.Fatalf("status %q, want the child's online", got.Payload())
		}

		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()

		if got := s.next(t, status); string(got.Payload()) != `{"state":"offline","who":"child"}` {
			t.Fatalf("status after the kill %q, want the will", got.Payload())
		}
		late := subscribe(t, b.url, "late-pit", status, nil)
		if got := late.next(t, status); string(got.Payload()) != `{"state":"offline","who":"child"}` || !got.Retained() {
			t.Fatalf("late subscriber got %q retained=%v, want the retained will", got.Payload(), got.Retained())
		}
	})
}

func TestCommandsAreDeliveredAndAnswered(t *testing.T) {
	t.Parallel()
	eachBroker(t, func(t *testing.T, b testBroker) {
		c, _ := dial(t, display.Options{Broker: b.url})
		s := subscribe(t, b.url, "console", c.Topics().Reply(), nil)
		topic, err := c.Topics().Command("dealer")
		if err != nil {
			t.Fatal(err)
		}
		if tok := s.c.Publish(topic, 1, false, `{"id":"a1","cmd":"close-betting"}`); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
		var cmd display.Command
		select {
		case cmd = <-c.Commands():
		case <-time.After(guard):
			t.Fatal("no command")
		}
		if cmd.Role != "dealer" || string(cmd.Payload) != `{"id":"a1","cmd":"close-betting"}` {
			t.Fatalf("command %q %q", cmd.Role, cmd.Payload)
		}
		if err := waitResult(t, cmd.Reply([]byte(`{"id":"a1","ok":true}`)), "reply"); err != nil {
			t.Fatal(err)
		}
		if got := s.next(t, c.Topics().Reply()); string(got.Payload()) != `{"id":"a1","ok":true}` {
			t.Fatalf("reply %q", got.Payload())
		}
		// The client's own reply arrived on its cmd/+ subscription before the next
		// command was even sent; it must not have become a command.
		supervisor, _ := c.Topics().Command("supervisor")
		if tok := s.c.Publish(supervisor, 1, false, `{"id":"a2"}`); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
		select {
		case next := <-c.Commands():
			if next.Role != "supervisor" || string(next.Payload) != `{"id":"a2"}` {
				t.Fatalf("next command %q %q, want the supervisor's a2 (the reply must not be a command)", next.Role, next.Payload)
			}
		case <-time.After(guard):
			t.Fatal("no second command")
		}
	})
}

func TestFullCommandQueueAnswersBusy(t *testing.T) {
	t.Parallel()
	b := embedded(t)
	c, _ := dial(t, display.Options{Broker: b.url, CommandQueue: 1})
	s := subscribe(t, b.url, "console", c.Topics().Reply(), nil)
	topic, _ := c.Topics().Command("supervisor")
	for i := range 3 {
		if tok := s.c.Publish(topic, 1, false, fmt.Sprintf(`{"id":"c%d"}`, i)); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
	}
	// Nobody reads Commands: one command fills the queue, the two others are answered busy.
	busy := map[string]bool{}
	for range 2 {
		m := s.next(t, c.Topics().Reply())
		var r struct {
			Table, Role, Error, Request string
			OK                          bool
		}
		if err := json.Unmarshal(m.Payload(), &r); err != nil {
			t.Fatalf("busy reply %q: %v", m.Payload(), err)
		}
		if r.OK || !strings.HasPrefix(r.Error, "busy") || r.Role != "supervisor" || r.Table != "t1" {
			t.Fatalf("busy reply %+v", r)
		}
		busy[r.Request] = true
	}
	queued := <-c.Commands()
	if len(busy) != 2 || busy[string(queued.Payload)] {
		t.Fatalf("queued %q, busy %v: every command must be either queued or answered busy, once", queued.Payload, busy)
	}
}

func TestPublishWithoutBrokerFailsAtOnce(t *testing.T) {
	t.Parallel()
	ln := newCutProxy(t, "127.0.0.1:1") // accepts, then cannot reach its target
	c, err := display.Dial(display.Options{Broker: ln.url(), Table: "t1", Logger: quietLogger(), ConnectTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := waitResult(t, c.Publish("tablectl/v1/t1/card", []byte("x"), false), "publish"); !errors.Is(err, display.ErrNotConnected) {
		t.Fatalf("Publish with no broker: %v, want ErrNotConnected", err)
	}
	if err := waitResult(t, c.Publish("tablectl/v1/+/card", []byte("x"), false), "publish"); err == nil || !strings.Contains(err.Error(), `'+'`) {
		t.Fatalf("Publish to a wildcard topic: %v, want an error naming '+'", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.WaitConnected(ctx); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), ln.url()) {
		t.Fatalf("WaitConnected with no broker: %v, want the deadline error naming the broker", err)
	}
	c.Close()
	if err := c.WaitConnected(context.Background()); !errors.Is(err, display.ErrClosed) {
		t.Fatalf("WaitConnected after Close: %v, want ErrClosed", err)
	}
}

func TestPublishResultsArriveInOrder(t *testing.T) {
	t.Parallel()
	b := embedded(t)
	c, _ := dial(t, display.Options{Broker: b.url})
	s := subscribe(t, b.url, "board", c.Topics().Card(), nil)
	const n = 500
	results := make([]<-chan error, n)
	for i := range n {
		results[i] = c.Publish(c.Topics().Card(), fmt.Appendf(nil, "%d", i), false)
	}
	for i, r := range results {
		if err := waitResult(t, r, "card"); err != nil {
			t.Fatalf("card %d: %v", i, err)
		}
	}
	for i := range n {
		if got := s.next(t, c.Topics().Card()); string(got.Payload()) != fmt.Sprint(i) {
			t.Fatalf("message %d is %q", i, got.Payload())
		}
	}
}

// checkStream is the subscriber side of the stream tests: every sequence number from 1
// to n at least once, and in order once duplicates are dropped.
func checkStream(t *testing.T, s *sub, topic string, n int) (duplicates int) {
	t.Helper()
	last := 0
	for last < n {
		m := s.next(t, topic)
		var env struct{ Seq int }
		if err := json.Unmarshal(m.Payload(), &env); err != nil {
			t.Fatalf("payload %q: %v", m.Payload(), err)
		}
		switch {
		case env.Seq <= last:
			duplicates++
		case env.Seq == last+1:
			last = env.Seq
		default:
			t.Fatalf("after seq %d the subscriber got seq %d: a gap or a message out of order", last, env.Seq)
		}
	}
	return duplicates
}

// TestOnConnectRunsAgainAfterARefusedPublish checks the rule that keeps a publisher
// that was refused during OnConnect from waiting for ever: the client calls OnConnect
// again before it opens Publish.
func TestOnConnectRunsAgainAfterARefusedPublish(t *testing.T) {
	t.Parallel()
	b := embedded(t)
	var client atomic.Pointer[display.Client]
	var runs atomic.Int32
	refused := make(chan error, 1)
	ready := make(chan struct{})
	c, err := display.Dial(display.Options{Broker: b.url, Table: "t1", Logger: quietLogger(),
		OnConnect: func(p display.Publisher) {
			<-ready
			if runs.Add(1) == 1 {
				refused <- <-client.Load().Publish("tablectl/v1/t1/card", []byte("early"), false)
			}
			if err := <-p.Publish("tablectl/v1/t1/state", []byte("refreshed"), true); err != nil {
				t.Errorf("resend: %v", err)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	client.Store(c)
	close(ready)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := c.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-refused; !errors.Is(err, display.ErrNotConnected) {
		t.Fatalf("Publish during OnConnect: %v, want ErrNotConnected", err)
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("OnConnect ran %d times on one connection, want 2 (once more after the refused Publish)", n)
	}
	if err := waitResult(t, c.Publish("tablectl/v1/t1/card", []byte("c1"), false), "card"); err != nil {
		t.Fatalf("Publish after OnConnect: %v", err)
	}
}

func TestWebSocketBrokerURL(t *testing.T) {
	t.Parallel()
	b, err := broker.Start(context.Background(), broker.Options{Listen: "127.0.0.1:0", OpenAccess: true, WebSocket: "127.0.0.1:0", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, _ := dial(t, display.Options{Broker: b.WebSocketURL()})
	if err := waitResult(t, c.Publish(c.Topics().Roadmap(), []byte(`{"seq":3}`), true), "roadmap over WebSocket"); err != nil {
		t.Fatal(err)
	}
	s := subscribe(t, b.URL(), "board", "tablectl/v1/t1/#", nil)
	if got := s.next(t, c.Topics().Roadmap()); string(got.Payload()) != `{"seq":3}` {
		t.Fatalf("roadmap %q", got.Payload())
	}
}
