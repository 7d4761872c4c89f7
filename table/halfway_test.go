package table

import (
	"fmt"
	"testing"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/round"
)

// TestNumbersHalfwayRound: the shoe's card and signal numbers are 16 bits, so a number
// is ahead of the last one recorded when it is less than half the circle, 2^15, ahead of
// it; at 2^15 ahead, or at the last number itself, it is at or before the last one
// (docs/protocol.md, "Resend"): flagged resent, the table has it and drops it; unflagged,
// the shoe counts anew, and the card is renumbered (RWS Baccarat 5.4). One short of half
// way is a card ahead, after a gap of 2^15-2 cards (RWS Baccarat 5.5.3), resent or not.
// Each is tried where the numbers wrap past 65535 and where they do not.
func TestNumbersHalfwayRound(t *testing.T) {
	dealing := round.State{Phase: round.Dealing}
	type want struct {
		dropped    bool
		no         uint64 // the extended number, when taken
		renumbered bool
	}
	for _, last := range []uint64{1000, 40000, 65536 + 5, 3*65536 - 2} {
		for _, tc := range []struct {
			ahead  uint64 // how far the number is ahead of the last one, modulo 2^16
			resent bool
			want   want
		}{
			{1<<15 - 1, false, want{no: last + 1<<15 - 1}},
			{1<<15 - 1, true, want{no: last + 1<<15 - 1}},
			{1 << 15, false, want{no: last + 1<<15, renumbered: true}},
			{1 << 15, true, want{dropped: true}},
			{1<<15 + 1, false, want{no: last + 1<<15 + 1, renumbered: true}},
			{1<<15 + 1, true, want{dropped: true}},
			{0, false, want{no: last + 1<<16, renumbered: true}},
			{0, true, want{dropped: true}},
			{1, false, want{no: last + 1}},
			{1, true, want{no: last + 1}},
		} {
			n := uint16(last + tc.ahead) // the shoe's number
			name := fmt.Sprintf("last %d, number %d (%d ahead), resent %v", last, n, tc.ahead, tc.resent)
			t.Run("card, "+name, func(t *testing.T) {
				tr := Translator{cards: counter{last: last}}
				ev := card(n)
				if tc.resent {
					ev = resent(n)
				}
				evs := tr.Shoe(ev, dealing)
				var got want
				switch {
				case len(evs) == 0:
					got.dropped = true
				case len(evs) == 1 && evs[0].Kind == round.CardDrawn:
					got.no, got.renumbered = evs[0].Seq, evs[0].Renumbered
				default:
					t.Fatalf("events %v", evs)
				}
				if got != tc.want {
					t.Errorf("got %+v, want %+v", got, tc.want)
				}
			})
			t.Run("signal, "+name, func(t *testing.T) {
				tr := Translator{signals: counter{last: last}}
				ev := signal(device.CutCard, n)
				if tc.resent {
					ev = resentSignal(device.CutCard, n)
				}
				evs := tr.Shoe(ev, dealing)
				var got want
				switch {
				case len(evs) == 0:
					got.dropped = true
				case len(evs) == 1 && evs[0].Kind == round.CutCard:
					got.no = evs[0].Signal
				default:
					t.Fatalf("events %v", evs)
				}
				w := tc.want
				w.renumbered = false // a signal carries no mark; its number says it
				if got != w {
					t.Errorf("got %+v, want %+v", got, w)
				}
			})
		}
	}
}

// TestFirstNumberZero: the first card or signal the table records, numbered 0 (the shoe
// wrapped past 65535 before the table's first), is taken as 2^16, since 0 stands for
// none yet; the next, 1, follows it with no gap and no renumbering.
func TestFirstNumberZero(t *testing.T) {
	dealing := round.State{Phase: round.Dealing}
	var tr Translator
	var got []string
	for _, ev := range []device.Event{card(0), card(1), signal(device.CutCard, 0), signal(device.LidOpened, 1)} {
		for _, e := range tr.Shoe(ev, dealing) {
			got = append(got, fmt.Sprintf("%s seq=%d signal=%d renumbered=%v", e.Kind, e.Seq, e.Signal, e.Renumbered))
		}
	}
	want := []string{"card seq=65536 signal=0 renumbered=false", "card seq=65537 signal=0 renumbered=false",
		"cut-card seq=0 signal=65536 renumbered=false", "lid-opened seq=0 signal=65537 renumbered=false"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
