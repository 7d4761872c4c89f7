// Package table runs one baccarat table: it turns what the devices report (the shoe, the
// shuffler) into round events, records each event, steps the round controller with it,
// and hands the effects on. It holds what that needs across events: the shoe's 16-bit
// sequence numbers extended to 64 bits, and the shuffled sets waiting to be loaded.
package table

import (
	"strconv"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// Translator turns driver events into round events. It is not safe for concurrent use.
type Translator struct {
	// Seqless: the shoe's wire format carries no sequence numbers (the ASCII and scanner
	// formats), so an unreadable card can only be caught as it happens.
	Seqless bool

	seq      seqExtender
	lastSeq  uint64        // the shoe's last frame number, extended
	lost     uint64        // frames lost since the last card
	cardSeq  uint64        // the number given to the last card
	next     *round.Event  // the last set shuffled, to load when no shoe is in play
	deferred []round.Event // reports on a set not yet loaded
}

// seqExtender extends the shoe's 16-bit sequence numbers to 64 bits across wraps. The
// first number seen, and the first after the device says hello again (it restarted),
// continue from the last without a gap.
type seqExtender struct {
	last   uint64
	raw    uint16
	resync bool
}

func (s *seqExtender) extend(v uint16) uint64 {
	switch {
	case s.last == 0:
		s.last = 1
	case s.resync:
		s.last++
	default:
		s.last += uint64(v - s.raw) // forward distance, modulo 2^16
	}
	s.raw, s.resync = v, false
	return s.last
}

// Shoe translates an event of the shoe. st is the controller's state before it.
//
// The tablectl protocol numbers every frame (docs/protocol.md), cards and signals alike.
// The controller numbers cards: each card gets the number after the last card's, plus
// one for every frame lost in between, since a lost frame may have been a card. So a gap
// in the cards' numbers is a frame that never arrived.
func (t *Translator) Shoe(ev device.Event, st round.State) []round.Event {
	at := ev.Time
	if ev.HasSeq && ev.Kind != device.Hello {
		n := t.seq.extend(ev.Seq)
		if t.lastSeq != 0 && n > t.lastSeq+1 {
			t.lost += n - t.lastSeq - 1
		}
		t.lastSeq = n
	}
	switch ev.Kind {
	case device.CardDrawn:
		e := round.Event{Kind: round.CardDrawn, At: at, Card: ev.Card}
		if ev.HasSeq {
			t.cardSeq += 1 + t.lost
			t.lost = 0
			e.Seq = t.cardSeq
		}
		if ev.SetID != 0 {
			e.Set = setName(ev.SetID)
		}
		return []round.Event{e}
	case device.Hello:
		t.seq.resync = true
	case device.CutCard:
		return []round.Event{{Kind: round.CutCard, At: at}}
	case device.ShoeEmpty:
		return []round.Event{{Kind: round.ShoeEnd, At: at, Empty: true, Actor: "shoe"}}
	case device.LidOpened:
		// The dealer opens the shoe to take out what is left once its last round is dealt.
		if st.Phase == round.ShoeDone {
			return []round.Event{{Kind: round.ShoeEnd, At: at, Actor: "shoe"}}
		}
	case device.DoubleCard:
		return []round.Event{report(irregularities.SimultaneousDraw, at, "shoe", "two cards sensed at once")}
	case device.Unreadable:
		// With sequence numbers a lost card shows as a gap at the next card; without, an
		// unreadable card in a round is a card the round cannot place (RWS Baccarat 5.5.3).
		if t.Seqless && st.Phase == round.Dealing {
			return []round.Event{report(irregularities.IncorrectCards, at, "shoe", "unreadable card: "+ev.Reason)}
		}
	case device.Disconnected:
		return []round.Event{{Kind: round.DeviceLost, At: at, Detail: "shoe"}}
	case device.Reconnected:
		return []round.Event{{Kind: round.DeviceBack, At: at, Detail: "shoe"}}
	}
	return nil
}

// Shuffler translates an event of the shuffler. A shuffled set is loaded when no shoe is
// in play (at once, or when the current shoe ends: see Pending); a fault reported for a
// set concerns that set, not the shoe being dealt from another one.
func (t *Translator) Shuffler(ev device.Event, st round.State) []round.Event {
	at := ev.Time
	set := setName(ev.SetID)
	switch ev.Kind {
	case device.ShuffleComplete:
		e := round.Event{Kind: round.NewShoe, At: at, Set: set, Decks: ev.Decks, Cards: ev.Cards, Order: ev.Order, Actor: "shuffler"}
		t.next = &e
		return t.Pending(st)
	case device.NotShuffled, device.CountError:
		k, what := irregularities.NotShuffled, "set "+set+" left the shuffler unshuffled"
		if ev.Kind == device.CountError {
			k = irregularities.CardCount
			what = "set " + set + ": the shuffler counted " + strconv.Itoa(ev.Cards) + " cards of " + strconv.Itoa(ev.Expected)
		}
		r := report(k, at, "shuffler", what)
		if st.Phase != round.NoShoe && st.Set == set {
			return []round.Event{r} // the set being dealt
		}
		if t.next != nil && t.next.Set == set {
			t.next = nil // the set waiting to be loaded is refused
		}
		t.deferred = append(t.deferred, r)
		return t.Pending(st)
	case device.Disconnected:
		return []round.Event{{Kind: round.DeviceLost, At: at, Detail: "shuffler"}}
	case device.Reconnected:
		return []round.Event{{Kind: round.DeviceBack, At: at, Detail: "shuffler"}}
	}
	return nil
}

// Pending returns what waits for no shoe to be in play: reports on sets not loaded, then
// the last set shuffled. Call it after each step.
func (t *Translator) Pending(st round.State) []round.Event {
	if st.Phase != round.NoShoe {
		return nil
	}
	out := t.deferred
	t.deferred = nil
	if t.next != nil {
		out = append(out, *t.next)
		t.next = nil
	}
	return out
}

// report is a device's report of an irregularity; devices report with the dealer's role.
func report(k irregularities.Kind, at time.Time, actor, detail string) round.Event {
	return round.Event{Kind: round.Report, At: at, Irregularity: k, Role: irregularities.Dealer, Actor: actor, Detail: detail}
}

func setName(id uint32) string { return strconv.FormatUint(uint64(id), 10) }
