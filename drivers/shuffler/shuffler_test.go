package shuffler

import (
	"bytes"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func decode(t testing.TB, chunks ...[]byte) []device.Event {
	d := NewDecoder()
	var evs []device.Event
	for _, c := range chunks {
		evs = d.Decode(evs, c)
	}
	return d.Flush(evs)
}

func lines(evs []device.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, e.String())
	}
	return strings.Join(s, "\n")
}

func check(t *testing.T, evs []device.Event, want ...string) {
	t.Helper()
	if got, w := lines(evs), strings.Join(want, "\n"); got != w {
		t.Fatalf("got\n%s\nwant\n%s", got, w)
	}
}

// set returns n decks in new-deck order.
func set(decks int) []baccarat.Card {
	var cards []baccarat.Card
	for range decks {
		for s := baccarat.Spades; s <= baccarat.Clubs; s++ {
			for r := baccarat.Ace; r <= baccarat.King; r++ {
				cards = append(cards, baccarat.NewCard(r, s))
			}
		}
	}
	return cards
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestShuffleWithOrder(t *testing.T) {
	var buf bytes.Buffer
	e := NewEncoder(&buf)
	order := set(8)
	order[0], order[415] = order[415], order[0]
	must(t, e.Hello("sim shuffler"))
	must(t, e.Shuffled(7, 8, 416, order)) // 2 order parts, then the completion: seq 1-3
	must(t, e.Shuffled(8, 8, 416, nil))
	evs := decode(t, buf.Bytes())
	check(t, evs,
		`hello version=1 "sim shuffler" seq=0`,
		"shuffle-complete set=7 decks=8 cards=416 order=416 seq=3",
		"shuffle-complete set=8 decks=8 cards=416 seq=4",
	)
	for i, c := range evs[1].Order {
		if c != order[i] {
			t.Fatalf("card %d of the order is %s, want %s", i, c, order[i])
		}
	}
}

func TestFaults(t *testing.T) {
	var buf bytes.Buffer
	e := NewEncoder(&buf)
	must(t, e.Jam(3))
	must(t, e.CountError(3, 416, 415))
	must(t, e.NotShuffled(4))
	must(t, e.Fault(9, "door open"))
	must(t, e.Send(TypeJam, 1, 2)) // short payload
	check(t, decode(t, buf.Bytes()),
		"jam set=3 seq=0",
		"count-error set=3 expected=416 counted=415 seq=1",
		"not-shuffled set=4 seq=2",
		`fault code=9 "door open" seq=3`,
		"unreadable seq=4: frame type 0x42 at sequence 4: 2 payload bytes, want 4",
	)
}

func TestOrderWithLostPart(t *testing.T) {
	var full bytes.Buffer
	order := set(6)
	must(t, NewEncoder(&full).Shuffled(11, 6, 312, order))
	// Cut the first order part out of the stream, as if the driver started after it.
	b := full.Bytes()
	first := int(b[1]) + 5
	check(t, decode(t, b[first:]),
		"unreadable seq=1: frame type 0x40 at sequence 1: part at card 244 of set 11 does not follow card 0 of set 0",
		"unreadable seq=2: frame type 0x41 at sequence 2: order of set 11 incomplete: 0 of 312 cards",
		"shuffle-complete set=11 decks=6 cards=312 seq=2",
	)
}
