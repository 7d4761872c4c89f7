package display_test

import (
	"errors"
	"testing"

	"github.com/tablectl/tablectl/drivers/display"
)

func TestRecorderRecordsAndReconnects(t *testing.T) {
	t.Parallel()
	var rec *display.Recorder
	hookRuns := 0
	rec, err := display.NewRecorder("t1", 1, func(p display.Publisher) {
		hookRuns++
		if hookRuns == 1 {
			// A publisher that has not yet learnt of the reconnect is refused, and
			// the hook runs again for it.
			if err := <-rec.Publish(rec.Topics().Card(), []byte("too early"), false); !errors.Is(err, display.ErrNotConnected) {
				t.Errorf("Publish during OnConnect: %v, want ErrNotConnected", err)
			}
		}
		if err := <-p.Publish(rec.Topics().State(), []byte("refreshed"), true); err != nil {
			t.Errorf("resend: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var tr display.Transport = rec
	if err := <-tr.Publish(rec.Topics().Card(), []byte("c1"), false); err != nil {
		t.Fatal(err)
	}
	rec.Down()
	if err := <-tr.Publish(rec.Topics().Card(), []byte("lost"), false); !errors.Is(err, display.ErrNotConnected) {
		t.Fatalf("Publish while down: %v, want ErrNotConnected", err)
	}
	rec.Reconnect()
	if err := <-tr.Publish(rec.Topics().Card(), []byte("c2"), false); err != nil {
		t.Fatal(err)
	}
	got := rec.Published()
	want := []display.Message{
		{Topic: "tablectl/v1/t1/card", Payload: []byte("c1")},
		{Topic: "tablectl/v1/t1/state", Payload: []byte("refreshed"), Retained: true},
		{Topic: "tablectl/v1/t1/state", Payload: []byte("refreshed"), Retained: true},
		{Topic: "tablectl/v1/t1/card", Payload: []byte("c2")},
	}
	if len(got) != len(want) || hookRuns != 2 {
		t.Fatalf("published %+v (hook ran %d times), want %+v", got, hookRuns, want)
	}
	for i := range want {
		if got[i].Topic != want[i].Topic || string(got[i].Payload) != string(want[i].Payload) || got[i].Retained != want[i].Retained {
			t.Errorf("message %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if err := <-tr.Publish("tablectl/v1/#", nil, false); err == nil {
		t.Error("Publish to a wildcard topic accepted")
	}
}

func TestRecorderCommands(t *testing.T) {
	t.Parallel()
	rec, err := display.NewRecorder("t1", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Inject("dealer", []byte(`{"id":"1"}`)); err != nil {
		t.Fatal(err)
	}
	if err := rec.Inject("dealer", []byte(`{"id":"2"}`)); err == nil {
		t.Fatal("Inject into a full queue succeeded")
	}
	if err := rec.Inject("reply", nil); err == nil {
		t.Fatal("Inject with the reply role succeeded")
	}
	cmd := <-rec.Commands()
	if cmd.Role != "dealer" || string(cmd.Payload) != `{"id":"1"}` {
		t.Fatalf("command %q %q", cmd.Role, cmd.Payload)
	}
	if err := <-cmd.Reply([]byte(`{"id":"1","ok":true}`)); err != nil {
		t.Fatal(err)
	}
	replies := rec.Replies()
	if len(replies) != 1 || replies[0].Topic != "tablectl/v1/t1/cmd/reply" || string(replies[0].Payload) != `{"id":"1","ok":true}` {
		t.Fatalf("replies %+v", replies)
	}
	if err := <-(display.Command{}).Reply(nil); err == nil {
		t.Fatal("Reply on a zero Command succeeded")
	}
	rec.Close()
	if _, ok := <-rec.Commands(); ok {
		t.Fatal("Commands open after Close")
	}
	if err := <-rec.Publish(rec.Topics().Card(), nil, false); !errors.Is(err, display.ErrClosed) {
		t.Fatalf("Publish after Close: %v", err)
	}
	if err := rec.Inject("dealer", nil); !errors.Is(err, display.ErrClosed) {
		t.Fatalf("Inject after Close: %v", err)
	}
}

// TestRecorderChanged: the channel Changed gives is closed by the next message or reply
// recorded, a resend's included, and not before; one refused leaves it open.
func TestRecorderChanged(t *testing.T) {
	t.Parallel()
	rec, err := display.NewRecorder("t1", 1, func(p display.Publisher) { <-p.Publish("tablectl/v1/t1/state", []byte("s"), true) })
	if err != nil {
		t.Fatal(err)
	}
	closed := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	c := rec.Changed()
	if closed(c) {
		t.Fatal("closed before anything was recorded")
	}
	if c2 := rec.Changed(); c2 != c {
		t.Fatal("a second Changed before a change gave another channel")
	}
	rec.Down()
	<-rec.Publish(rec.Topics().Card(), []byte("lost"), false)
	if closed(c) {
		t.Fatal("closed by a publish refused while down")
	}
	rec.Reconnect()
	if !closed(c) {
		t.Fatal("open after the reconnect's resend")
	}
	c = rec.Changed()
	if closed(c) {
		t.Fatal("a channel taken after the change is closed already")
	}
	<-rec.Publish(rec.Topics().Card(), []byte("c1"), false)
	if !closed(c) {
		t.Fatal("open after a publish")
	}
	c = rec.Changed()
	if err := rec.Inject("dealer", []byte(`{"id":"1"}`)); err != nil {
		t.Fatal(err)
	}
	if closed(c) {
		t.Fatal("closed by a command injected")
	}
	<-(<-rec.Commands()).Reply([]byte(`{"id":"1","ok":true}`))
	if !closed(c) {
		t.Fatal("open after a reply")
	}
}
