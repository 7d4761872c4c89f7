package round

import (
	"fmt"
	"strings"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// The players' options window (RWS Baccarat 5.12; NC Insurance 5.12).
//
// A dealing error that gives the players the options of 5.12 (5.7.1, 5.8, 5.9, 5.10.1)
// gives them at the moment it is found, before any further card of the round is shown:
// otherwise a player who sees his bet lose could still ask for it back. So the error
// opens a window for the boxes in play, and the table stays held while it is open: a
// decision the error needs is taken as usual, but the cards held meanwhile are placed
// only once the window closes. It closes when every box in play has chosen, or when a
// supervisor (or the table's stand-in for the dealer) closes it; a box that chose nothing
// continues. An option given once the window is closed, and so once the outcome is
// known, is refused with its rule. A round void under 5.5 (insufficient cards, say)
// returns every bet, and its window closes with it: 5.12 is for dealing errors not of
// 5.5.

// Window is the players' options window of a round: the irregularity that gave the
// options (ID 0: none this round), and whether it is still open.
type Window struct {
	ID   uint32              `json:"id"`
	Kind irregularities.Kind `json:"kind"`
	Open bool                `json:"open,omitempty"`
}

// WindowBox is one box in play in an options window and its choice (0: none yet).
type WindowBox struct {
	Box    string                `json:"box"`
	Option irregularities.Option `json:"option,omitempty"`
}

// WindowBoxes lists the boxes in play this round, in the order their first wager was
// placed, each with its choice of the options of RWS Baccarat 5.12 in the window of
// state s (0: none yet; a bet-returned choice of an earlier window of the round stands).
func (s State) WindowBoxes() []WindowBox {
	var out []WindowBox
	for i, w := range s.Wagers {
		if i < len(s.Decisions) && s.Decisions[i].Verdict == baccarat.Refused || s.firstWager(i) != i {
			continue
		}
		out = append(out, WindowBox{Box: w.Box, Option: s.windowChoice(w.Box)})
	}
	return out
}

// firstWager is the index of the first wager in play of the box of wager i.
func (s State) firstWager(i int) int {
	for j, w := range s.Wagers[:i] {
		if w.Box == s.Wagers[i].Box && (j >= len(s.Decisions) || s.Decisions[j].Verdict != baccarat.Refused) {
			return j
		}
	}
	return i
}

// windowChoice is box's choice of the options of 5.12 in the window of s, or 0.
func (s State) windowChoice(box string) irregularities.Option {
	for _, o := range s.Options {
		if o.Box != box || !fivePointTwelve(o.Option) {
			continue
		}
		if o.Window == s.Window.ID || o.Option == irregularities.OptBetReturned {
			return o.Option
		}
	}
	return 0
}

// fivePointTwelve says whether o is one of the options of RWS Baccarat 5.12.
func fivePointTwelve(o irregularities.Option) bool {
	return o == irregularities.OptContinue || o == irregularities.OptReconstructed || o == irregularities.OptBetReturned
}

// openWindow opens the players' options window for irregularity id of kind k, when none
// is open and there are boxes in play to choose; a window already open stays the one.
func (c *Controller) openWindow(ev *Event, id uint32, k irregularities.Kind) {
	if c.st.Window.Open || !c.anyBox() {
		return
	}
	c.st.Window = Window{ID: id, Kind: k, Open: true}
	var b strings.Builder
	b.WriteString("boxes ")
	for i, wb := range c.st.WindowBoxes() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(wb.Box)
	}
	c.emitPart(Effect{Kind: OptionsOpened, ID: id, Irregularity: k}, part{reason: b.String() + " (" + c.optionsRule() + ")"})
}

// anyBox says whether a wager is in play this round.
func (c *Controller) anyBox() bool {
	for i := range c.st.Wagers {
		if c.decision(i).Verdict != baccarat.Refused {
			return true
		}
	}
	return false
}

// everyBoxChose says whether each box in play has chosen in the open window.
func (c *Controller) everyBoxChose() bool {
	for i, w := range c.st.Wagers {
		if c.decision(i).Verdict != baccarat.Refused && c.st.windowChoice(w.Box) == 0 {
			return false
		}
	}
	return true
}

// optionsClosed closes the open options window at the command of a supervisor or above
// (or of the table's stand-in for the dealer, with no role).
func (c *Controller) optionsClosed(ev *Event) {
	switch {
	case !c.st.Window.Open:
		c.refuse(ev, "no options window is open")
	case ev.Role != 0 && (ev.Role < OptionsWindowClosed.Info().By || ev.Role > irregularities.ShiftManager):
		c.refuse(ev, "a %s may not close the options: it takes a %s or above (%s)", ev.Role, OptionsWindowClosed.Info().By, c.optionsRule())
	default:
		why := "closed by the table"
		if ev.Role != 0 {
			why = ""
		} else if ev.Actor != "" {
			why += " (" + ev.Actor + ")"
		}
		c.closeWindow(ev, why)
	}
}

// closeWindow closes the open options window, saying why (""; the role and actor of ev
// say who) and each box's choice; a box that chose nothing continues. The table held for
// the options only is then released: the cards held meanwhile are placed.
func (c *Controller) closeWindow(ev *Event, why string) {
	w := c.st.Window
	c.st.Window.Open = false
	var b strings.Builder
	if why != "" {
		b.WriteString(why + ": ")
	}
	for i, wb := range c.st.WindowBoxes() {
		if i > 0 {
			b.WriteString(", ")
		}
		if wb.Option == 0 {
			fmt.Fprintf(&b, "box %s %s (chose nothing)", wb.Box, irregularities.OptContinue)
			continue
		}
		fmt.Fprintf(&b, "box %s %s", wb.Box, wb.Option)
	}
	e, pt := Effect{Kind: OptionsClosed, ID: w.ID, Irregularity: w.Kind}, part{reason: b.String()}
	if why == "" {
		e.Role, pt.actor = ev.Role, ev.Actor
	}
	c.emitPart(e, pt)
	if h := c.st.Held; h.ID != 0 && h.Options {
		c.st.Held = Held{}
		c.dealPending(ev, h.Pending)
		c.maybeEnd(ev)
	}
}

// release goes on from hold h, decided: its cards, pending in the order decided, are
// placed, unless the players' options window is open, when the table stays held for it.
// A round that cannot be completed (the shoe reported itself empty and the cards held do
// not complete it) is void under RWS Baccarat 5.5.4 at once: 5.12 is for dealing errors
// not of 5.5, so no option waits.
func (c *Controller) release(ev *Event, h Held, pending []Kept) {
	if c.st.Window.Open && c.roundInPlay() && !(c.st.EndPending && !c.completes(pending)) {
		c.st.Held = Held{ID: c.st.Window.ID, Kind: c.st.Window.Kind, Reason: h.Reason, Role: h.Role, Actor: h.Actor, At: h.At,
			Options: true, Pending: pending}
		if c.st.Window.ID != h.ID {
			c.st.Held.Reason, c.st.Held.Role, c.st.Held.Actor, c.st.Held.At = "", 0, "", time.Time{}
		}
		return
	}
	c.dealPending(ev, pending)
}

// completes says whether the cards ks, placed in order, complete the round being dealt.
func (c *Controller) completes(ks []Kept) bool {
	if c.st.Phase != Dealing {
		return true
	}
	coup := c.st.Coup
	for _, k := range ks {
		if _, next := coup.PlaceNext(k.Card); next == baccarat.NoSlot {
			return true
		}
	}
	return false
}
