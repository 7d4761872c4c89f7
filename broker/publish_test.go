package broker

import (
	"errors"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

// subscribe subscribes c to filter at QoS 1 and returns what it receives.
func subscribe(t *testing.T, c mqtt.Client, filter string) <-chan mqtt.Message {
	t.Helper()
	got := make(chan mqtt.Message, 16)
	if tok := c.Subscribe(filter, 1, func(_ mqtt.Client, m mqtt.Message) { got <- m }); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatalf("subscribe %s: %v", filter, tok.Error())
	}
	return got
}

func receive(t *testing.T, got <-chan mqtt.Message, what string) mqtt.Message {
	t.Helper()
	select {
	case m := <-got:
		return m
	case <-time.After(guard):
		t.Fatalf("%s never arrived", what)
		return nil
	}
}

// TestPublishInProcessReachesSubscribersAndIsRetained: Broker.Publish delivers at QoS 1
// to a subscriber already there, and a retained message is handed to a later one.
func TestPublishInProcessReachesSubscribersAndIsRetained(t *testing.T) {
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", Users: testUsers(t), SelfClientID: "tablectl-t1"})
	got := subscribe(t, connect(t, b.URL(), "reader"), "tablectl/v1/t1/#")
	if err := b.Publish("tablectl/v1/t1/card", []byte(`{"card":"9h"}`), false); err != nil {
		t.Fatal(err)
	}
	m := receive(t, got, "the card")
	if m.Topic() != "tablectl/v1/t1/card" || string(m.Payload()) != `{"card":"9h"}` || m.Qos() != 1 || m.Retained() {
		t.Fatalf("got %s %q qos %d retained %v, want the card at QoS 1, not retained", m.Topic(), m.Payload(), m.Qos(), m.Retained())
	}
	if err := b.Publish("tablectl/v1/t1/state", []byte(`{"phase":"dealing"}`), true); err != nil {
		t.Fatal(err)
	}
	receive(t, got, "the live state")
	late := receive(t, subscribe(t, connect(t, b.URL(), "late-reader"), "tablectl/v1/t1/state"), "the retained state")
	if !late.Retained() || string(late.Payload()) != `{"phase":"dealing"}` {
		t.Fatalf("a late reader got %q retained %v, want the state retained", late.Payload(), late.Retained())
	}
}

// TestTheBrokersOwnClientIDIsRefused: no client may connect as the broker's own client,
// which Broker.Publish publishes as, whatever the access policy; the broker's own
// publishing goes on.
func TestTheBrokersOwnClientIDIsRefused(t *testing.T) {
	for _, open := range []bool{false, true} {
		b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", OpenAccess: open})
		got := subscribe(t, connect(t, b.URL(), "reader"), "tablectl/v1/t1/card")
		c := mqtt.NewClient(clientOptions(b.URL(), "inline", "", ""))
		if tok := c.Connect(); tok.WaitTimeout(guard) && tok.Error() == nil {
			c.Disconnect(100)
			t.Fatalf("open access %v: a client connected with the broker's own client id", open)
		}
		if err := b.Publish("tablectl/v1/t1/card", []byte("after"), false); err != nil {
			t.Fatalf("open access %v: %v", open, err)
		}
		if m := receive(t, got, "a card after the refused client"); string(m.Payload()) != "after" {
			t.Fatalf("open access %v: got %q", open, m.Payload())
		}
	}
}

// TestPublishAfterCloseFails: a closed broker says so.
func TestPublishAfterCloseFails(t *testing.T) {
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1"})
	b.Close()
	if err := b.Publish("tablectl/v1/t1/card", []byte("x"), false); !errors.Is(err, ErrClosed) {
		t.Fatalf("Publish after Close: %v, want ErrClosed", err)
	}
}
