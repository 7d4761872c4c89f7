package device

import (
	"strings"
	"testing"
)

// TestDropBeforeHello: on a new connection of a protocol with acknowledgement, cards that
// come before the device's hello are left out (the device resends them after it, in
// their place); signals are kept, and nothing after the hello is dropped.
func TestDropBeforeHello(t *testing.T) {
	ev := func(k Kind, no uint16) Event { return Event{Kind: k, CardNo: no, HasCardNo: no != 0} }
	in := []Event{ev(CardDrawn, 15), ev(CutCard, 0), ev(Unreadable, 16), ev(Hello, 0), ev(CardDrawn, 15), ev(CardDrawn, 16)}
	got, await := dropBeforeHello(in)
	var kinds []string
	for _, e := range got {
		kinds = append(kinds, e.String())
	}
	if await || strings.Join(kinds, ",") != `cut-card,hello version=0 "",card ?? no=15,card ?? no=16` {
		t.Errorf("got %v (await %v)", kinds, await)
	}
	got, await = dropBeforeHello([]Event{ev(CardDrawn, 3), ev(Heartbeat, 0)})
	if !await || len(got) != 1 || got[0].Kind != Heartbeat {
		t.Errorf("before any hello: %v, await %v", got, await)
	}
}
