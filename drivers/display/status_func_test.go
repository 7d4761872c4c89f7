package display_test

import (
	"sync/atomic"
	"testing"

	"github.com/tablectl/tablectl/drivers/display"
)

// TestStatusFuncsGiveTheStatusOfTheMoment checks that OnlineFunc's payload is the
// online status of a connect and OfflineFunc's the one offline status of Close, in place
// of the fixed payloads given at Dial.
func TestStatusFuncsGiveTheStatusOfTheMoment(t *testing.T) {
	t.Parallel()
	eachBroker(t, func(t *testing.T, b testBroker) {
		var now atomic.Value
		now.Store("connect")
		c, _ := dial(t, display.Options{Broker: b.url,
			Online: []byte(`{"state":"online","at":"dial"}`), Offline: []byte(`{"state":"offline","at":"dial"}`),
			OnlineFunc:  func() []byte { return []byte(`{"state":"online","at":"` + now.Load().(string) + `"}`) },
			OfflineFunc: func() []byte { return []byte(`{"state":"offline","at":"` + now.Load().(string) + `"}`) }})
		s := subscribe(t, b.url, "board", c.Topics().Status(), nil)
		if got := s.next(t, c.Topics().Status()); string(got.Payload()) != `{"state":"online","at":"connect"}` {
			t.Fatalf("status after the connect %q, want OnlineFunc's", got.Payload())
		}
		now.Store("stop")
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		// A subscriber that joins while the online status is being passed on can get it
		// twice, retained and live: the embedded broker acknowledges a publish before it
		// passes it on, as MQTT allows. Nothing else may come before the offline status.
		got := s.next(t, c.Topics().Status())
		for string(got.Payload()) == `{"state":"online","at":"connect"}` {
			got = s.next(t, c.Topics().Status())
		}
		if string(got.Payload()) != `{"state":"offline","at":"stop"}` {
			t.Fatalf("status after Close %q, want OfflineFunc's at the stop", got.Payload())
		}
		s.none(t, c.Topics().Status())
	})
}
