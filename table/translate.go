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
	// UnreadableIsCard: every unreadable input is taken as a card drawn with no name.
	// Set it when the shoe's wire format cannot tell a card that passed unread from
	// noise on the line (!shoe.Format.TellsMisreads: the ASCII and scanner formats). Such
	// a card can only be caught as it happens. Otherwise only a failed read the shoe
	// reports (device.Event.Misread) or a numbered unreadable card is one.
	UnreadableIsCard bool

	// cards and signals are the numbers of the last card and the last signal, the shoe's
	// 16-bit numbers extended to 64 bits. They go on across a restart of the table
	// (Start sets them from the journal): the card number shows the cards that passed
	// while the table was down, and both tell a card or signal the shoe sends again that
	// the table has recorded already.
	cards, signals counter
	next           *round.Event  // the last set shuffled, to load when no shoe is in play
	deferred       []round.Event // reports on a set not yet loaded
}

// counter extends a shoe's 16-bit card or signal numbers to 64 bits.
type counter struct {
	last uint64 // 0 before the first
}

// next is the extended number of a card or signal numbered n (always n modulo 2^16, so
// a number read back from the journal extends the same way); whether the shoe counts from
// 1 again because it was powered off and on; and whether the table has it already. A
// shoe resends, flagged, what it has no acknowledgement for (docs/protocol.md): a number
// at or before the last one is a resend when flagged, and otherwise a shoe that counts
// anew.
func (c *counter) next(n uint16, resent bool) (no uint64, restarted, seen bool) {
	if c.last == 0 {
		no = uint64(n)
		if no == 0 {
			no = 1 << 16
		}
		c.last = no
		return no, false, false
	}
	d := uint64(n - uint16(c.last)) // forward distance, modulo 2^16
	switch {
	case (d == 0 || d >= 1<<15) && resent:
		return c.last, false, true
	case d == 0 || d >= 1<<15:
		// A new count: go on to the next number with the shoe's low 16 bits. The jump is
		// no gap: a card is marked Renumbered.
		restarted = true
		if d == 0 {
			d = 1 << 16
		}
	}
	c.last += d
	return c.last, restarted, false
}

// Shoe translates an event of the shoe. st is the controller's state before it.
//
// Each card's Seq is its card number (docs/protocol.md), so the controller sees a card
// that passed unread as a gap (RWS Baccarat 5.5.3), also across a restart of the table;
// a shoe powered off and on is a technical interruption (RWS Baccarat 5.4). A card or
// signal the shoe sends again that the table has already is dropped; the first event of
// a signal carries its number (round.Event.Signal) into the journal.
func (t *Translator) Shoe(ev device.Event, st round.State) []round.Event {
	at := ev.Time
	var signal uint64
	if ev.HasSignalNo {
		no, _, seen := t.signals.next(ev.SignalNo, ev.Resent)
		if seen {
			return nil // resent: recorded already
		}
		signal = no
	}
	out := t.shoe(ev, st, at)
	if signal != 0 && len(out) > 0 {
		out[0].Signal = signal
	}
	return out
}

func (t *Translator) shoe(ev device.Event, st round.State, at time.Time) []round.Event {
	switch ev.Kind {
	case device.CardDrawn:
		e := round.Event{Kind: round.CardDrawn, At: at, Card: ev.Card, Burned: ev.Burn, Resent: ev.Resent,
			ShoeTime: ev.ShoeTime, ShoeTimed: ev.HasShoeTime}
		if ev.HasCardNo {
			no, restarted, seen := t.cards.next(ev.CardNo, ev.Resent)
			if seen {
				return nil // resent: recorded already
			}
			e.Seq, e.Renumbered = no, restarted // a re-powered shoe: the round applies 5.4
		}
		if ev.SetID != 0 {
			e.Set = setName(ev.SetID)
		}
		return []round.Event{e}
	case device.CutCard:
		return []round.Event{{Kind: round.CutCard, At: at}}
	case device.ShoeEmpty:
		return []round.Event{{Kind: round.ShoeEnd, At: at, Empty: true, Actor: "shoe"}}
	case device.LidOpened:
		return []round.Event{{Kind: round.LidOpened, At: at, Actor: "shoe"}}
	case device.DoubleCard:
		return []round.Event{report(irregularities.SimultaneousDraw, at, "shoe", "two cards sensed at once")}
	case device.Fault:
		return []round.Event{faultReport(ev, "shoe")}
	case device.Unreadable:
		// A numbered card that could not be named still took its number; on a shoe without
		// numbers a damaged line is the only sign of a card. Either is a card drawn with no
		// name: the round decides what it means. Damage with no card in it, on a numbered
		// shoe, shows at the next card's number.
		if ev.HasCardNo {
			no, _, seen := t.cards.next(ev.CardNo, ev.Resent)
			if seen {
				return nil
			}
			return []round.Event{{Kind: round.CardDrawn, At: at, Seq: no, Actor: "shoe", Detail: ev.Reason}}
		}
		if ev.Misread || t.UnreadableIsCard {
			return []round.Event{{Kind: round.CardDrawn, At: at, Actor: "shoe", Detail: ev.Reason}}
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
		if set == st.Set && st.Shoe > 0 {
			return nil // the shuffler repeats its report on a set the table has: after a reconnect
		}
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
	case device.Fault:
		return []round.Event{faultReport(ev, "shuffler")}
	case device.Disconnected:
		return []round.Event{{Kind: round.DeviceLost, At: at, Detail: "shuffler"}}
	case device.Reconnected:
		return []round.Event{{Kind: round.DeviceBack, At: at, Detail: "shuffler"}}
	}
	return nil
}

// Pending returns what waits for a set to be loadable (round.State.AwaitsSet: no shoe in
// play, or the round's set finished at a table that reshuffles after every round):
// reports on sets not loaded, then the last set shuffled. Call it after each step.
func (t *Translator) Pending(st round.State) []round.Event {
	if !st.AwaitsSet() {
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

// faultReport is a device's report of its own fault (an alarm, a warning), in its own
// words.
func faultReport(ev device.Event, actor string) round.Event {
	what := ev.Text
	if what == "" {
		what = "fault code " + strconv.Itoa(int(ev.Code))
	}
	return report(irregularities.DeviceFault, ev.Time, actor, what)
}

func setName(id uint32) string { return strconv.FormatUint(uint64(id), 10) }
