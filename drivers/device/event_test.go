package device

import (
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

// TestEventStringShowsCardNumber checks the one-line form of a card drawn: the card
// number appears when the wire format carried one (docs/protocol.md, "Card numbers"),
// even when it is 0 after a wrap, and not at all when it did not.
func TestEventStringShowsCardNumber(t *testing.T) {
	ks := baccarat.MustParseCard("KS")
	for _, c := range []struct {
		e    Event
		want string
	}{
		{Event{Kind: CardDrawn, Card: ks}, "card KS"},
		{Event{Kind: CardDrawn, Card: ks, CardNo: 12, HasCardNo: true, Seq: 13, HasSeq: true}, "card KS no=12 seq=13"},
		{Event{Kind: CardDrawn, Card: ks, CardNo: 0, HasCardNo: true, Seq: 0, HasSeq: true}, "card KS no=0 seq=0"},
		{Event{Kind: CardDrawn, Card: ks, Flags: 1, CardNo: 65535, HasCardNo: true, Seq: 9, HasSeq: true}, "card KS flags=0x01 no=65535 seq=9"},
		{Event{Kind: Unreadable, CardNo: 7, HasCardNo: true, Seq: 8, HasSeq: true, Reason: "unreadable card code 0x5E, card number 7"},
			"unreadable seq=8: unreadable card code 0x5E, card number 7"},
	} {
		if got := c.e.String(); got != c.want {
			t.Errorf("%+v prints %q, want %q", c.e, got, c.want)
		}
	}
}
