package table

import (
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/round"
)

// TestBeeTekEvents translates what the Bee-Tek shoe's driver reports (docs/protocol.md,
// "The Bee-Tek stream"): a burn-mode card is a burned card for the controller; a failed
// read in a round is an unreadable card (RWS Baccarat 5.5.3); noise is no card and raises
// nothing, since the format tells a failed read from noise; an alarm is a device fault in
// the shoe's own words.
func TestBeeTekEvents(t *testing.T) {
	tr := Translator{UnreadableIsCard: !shoe.BeeTek.TellsMisreads()}
	dealing := round.State{Phase: round.Dealing}
	got := func(ev device.Event) string {
		var out []string
		for _, e := range tr.Shoe(ev, dealing) {
			out = append(out, e.String())
		}
		return strings.Join(out, "; ")
	}
	for _, c := range []struct {
		ev   device.Event
		want string
	}{
		{device.Event{Kind: device.CardDrawn, Card: baccarat.MustParseCard("KD"), Burn: true}, "card KD burned"},
		{device.Event{Kind: device.CardDrawn, Card: baccarat.MustParseCard("4S")}, "card 4S"},
		{device.Event{Kind: device.Unreadable, Misread: true, Reason: `frame at offset 0: "[Game]<Game>": the shoe failed to read a card`},
			`card ?? shoe: frame at offset 0: "[Game]<Game>": the shoe failed to read a card`},
		{device.Event{Kind: device.Unreadable, Reason: `2 bytes at offset 56: "~~": noise between frames`}, ""},
		{device.Event{Kind: device.Fault, Code: 3, Text: "[GameAlarm]<Alarm:E3 Card Not Read>"},
			"report device_fault by dealer shoe: [GameAlarm]<Alarm:E3 Card Not Read>"},
		{device.Event{Kind: device.Fault, Code: 1, Text: "<W0x01>"}, "report device_fault by dealer shoe: <W0x01>"},
	} {
		if g := got(c.ev); g != c.want {
			t.Errorf("%v: got %q, want %q", c.ev, g, c.want)
		}
	}
	// The ASCII format cannot tell noise from a card: its unreadable line may be one.
	ascii := Translator{UnreadableIsCard: !shoe.ASCII.TellsMisreads()}
	if evs := ascii.Shoe(device.Event{Kind: device.Unreadable, Reason: "line 3: unknown suit"}, dealing); len(evs) != 1 {
		t.Errorf("ascii unreadable line in a round: %v, want an incorrect_cards report", evs)
	}
}
