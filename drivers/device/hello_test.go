package device

import (
	"strings"
	"testing"
)

// TestDropBeforeHello: on a new connection of a protocol with acknowledgement, numbered
// cards and signals that come before the device's hello are left out (the device resends
// them after it, in their place); what has no number (a heartbeat, damage with no card
// number) is kept, and nothing after the hello is dropped.
func TestDropBeforeHello(t *testing.T) {
	card := func(no uint16) Event { return Event{Kind: CardDrawn, CardNo: no, HasCardNo: true} }
	signal := func(k Kind, no uint16) Event { return Event{Kind: k, SignalNo: no, HasSignalNo: true} }
	in := []Event{card(15), signal(CutCard, 4), {Kind: Unreadable, CardNo: 16, HasCardNo: true}, {Kind: Unreadable, Reason: "noise"},
		{Kind: Hello}, card(15), signal(CutCard, 4), card(16)}
	got, await := dropBeforeHello(in)
	var kinds []string
	for _, e := range got {
		kinds = append(kinds, e.String())
	}
	if await || strings.Join(kinds, ",") != `unreadable: noise,hello version=0 "",card ?? no=15,cut-card no=4,card ?? no=16` {
		t.Errorf("got %v (await %v)", kinds, await)
	}
	got, await = dropBeforeHello([]Event{card(3), signal(LidOpened, 9), {Kind: Heartbeat}})
	if !await || len(got) != 1 || got[0].Kind != Heartbeat {
		t.Errorf("before any hello: %v, await %v", got, await)
	}
}
