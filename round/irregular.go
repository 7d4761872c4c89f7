package round

import (
	"fmt"
	"strings"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// report takes an irregularity reported by a dealer, a supervisor or a device.
func (c *Controller) report(ev *Event) {
	k := ev.Irregularity
	e := irregularities.Lookup(k)
	switch {
	case e.Kind == 0:
		c.refuse(ev, "unknown irregularity kind %d", k)
		return
	case ev.Role < Report.Info().By || ev.Role > irregularities.ShiftManager:
		c.refuse(ev, "a report needs the role of who makes it")
		return
	case c.st.Held.ID != 0 && len(e.Choices) > 0 && k != irregularities.ForeignCard:
		c.refuse(ev, "the table is already held for irregularity #%d (%s)", c.st.Held.ID, c.st.Held.Kind)
		return
	}
	what := ev.Detail
	if what == "" {
		what = "reported by the " + ev.Role.String()
	}
	inRound := c.st.Phase == Dealing || c.st.Phase == Complete
	switch k {
	case irregularities.WrongHand, irregularities.ExposedCard, irregularities.SimultaneousDraw,
		irregularities.IncorrectCards, irregularities.ExcessCard:
		if k == irregularities.SimultaneousDraw && c.st.Phase == BettingOpen && c.cfg.CloseBetsOnFirstCard && c.st.Held.ID == 0 {
			// Cards drawn together are the round's first cards: betting is over.
			c.closeBets(ev, nil)
			inRound = c.st.Phase == Dealing
		}
		if !inRound {
			c.refuse(ev, "%s: no round is being dealt (%s)", k, c.st.Phase)
			return
		}
		c.raise(ev, k, what)
	case irregularities.LateError:
		// RWS Baccarat 5.11: noticed after a later round began; the later rounds stand.
		if ev.Role < irregularities.Supervisor {
			c.refuse(ev, "a late error is reported by a supervisor or above")
			return
		}
		if ev.Round == 0 || ev.Round >= c.st.Round {
			c.refuse(ev, "round %d is not an earlier round of shoe %d (round %d is in play)", ev.Round, c.st.Shoe, c.st.Round)
			return
		}
		c.raise(ev, k, fmt.Sprintf("round %d: %s; the rounds after it stand", ev.Round, what))
	case irregularities.ForeignCard:
		if c.st.Phase == NoShoe {
			c.refuse(ev, "no shoe is in play")
			return
		}
		if h := c.st.Held; h.ID != 0 {
			c.unheldForeign(h, ev.Card)
			c.endHold(ev, fmt.Sprintf("a card not of this set was found (%s)", c.rule(k)))
		}
		c.raise(ev, k, what)
	case irregularities.TechnicalInterruption:
		if c.st.Phase != Dealing {
			c.refuse(ev, "no round is being dealt (%s)", c.st.Phase)
			return
		}
		c.raise(ev, k, what)
	case irregularities.InsufficientCards, irregularities.NotShuffled, irregularities.CardCount:
		// The set cannot go on: the round in play, complete but not yet confirmed
		// included (RWS Baccarat 1.19: a round ends with its settlement), is void (5.5) and
		// no more rounds are dealt from this shoe.
		if k == irregularities.InsufficientCards && c.st.Phase == Complete && !c.st.Voided {
			c.refuse(ev, "round %d is complete: it had the cards it needed", c.st.Round)
			return
		}
		if c.st.Held.ID != 0 && c.roundInPlay() {
			c.endHold(ev, fmt.Sprintf("%s (%s)", irregularities.Lookup(k).VoidReason, c.rule(k)))
		}
		c.raise(ev, k, what)
		c.finishShoe(ev)
		c.maybeEnd(ev)
	case irregularities.DeviceFault:
		c.raise(ev, k, what) // whatever the phase: the device said it, and it is recorded
	case irregularities.InsuranceNotOffered:
		if !c.cfg.Rules.Insurance {
			c.refuse(ev, "rule set %s offers no insurance", c.cfg.Rules.Name)
			return
		}
		if c.cfg.NoInsurance {
			c.refuse(ev, "this table offers no insurance (NC Insurance 4.2.2): 5.13 does not apply")
			return
		}
		c.raise(ev, k, what)
	default:
		c.refuse(ev, "%s is raised by the controller, not reported", k)
	}
}

// decide applies a decision on the held irregularity.
func (c *Controller) decide(ev *Event) {
	h := c.st.Held
	e := irregularities.Lookup(h.Kind)
	switch {
	case h.ID == 0:
		c.refuse(ev, "no irregularity is waiting for a decision")
	case h.Options:
		c.refuse(ev, "irregularity #%d (%s) is decided: the table is held for the boxes' options (%s) until each box has chosen or a supervisor closes them",
			h.ID, h.Kind, c.optionsRule())
	case ev.ID != 0 && ev.ID != h.ID:
		c.refuse(ev, "irregularity #%d (%s) is waiting for a decision, not #%d", h.ID, h.Kind, ev.ID)
	case !e.Allows(ev.Choice):
		c.refuse(ev, "%q is not a decision for %s: allowed are %s", ev.Choice, h.Kind, choiceList(e.Choices))
	case ev.Role < e.DecidedBy || ev.Role > irregularities.ShiftManager:
		c.refuse(ev, "a %s may not decide %s: it takes a %s or above (%s)", roleName(ev.Role), h.Kind, e.DecidedBy, c.rule(h.Kind))
	case e.Action == irregularities.ByRule:
		// The rule decides; the supervisor confirms it.
		if want, why := c.ruleChoice(); ev.Choice != want {
			c.refuse(ev, "%s is not for the supervisor to choose: %s, so the round is %s", h.Kind, why, choiceWord(want))
			return
		}
		_, why := c.ruleChoice()
		c.resolve(ev, ev.Choice, ev.Role, ev.Actor, why)
	default:
		c.resolve(ev, ev.Choice, ev.Role, ev.Actor, "")
	}
}

func roleName(r irregularities.Role) string {
	if r == 0 {
		return "report with no role"
	}
	return r.String()
}

func choiceList(cs []irregularities.Choice) string {
	s := make([]string, len(cs))
	for i, ch := range cs {
		s[i] = ch.String()
	}
	return strings.Join(s, ", ")
}

func choiceWord(ch irregularities.Choice) string {
	if ch == irregularities.Void {
		return "void"
	}
	return "continued"
}

// resolve ends the hold with choice, made by role and actor (role 0: by the rules
// themselves), and carries it out.
func (c *Controller) resolve(ev *Event, choice irregularities.Choice, role irregularities.Role, actor, why string) {
	c.resolveHold(ev, choice, role, actor, why)
	c.maybeEnd(ev)
}

// maybeEnd ends the shoe whose empty signal was waiting, once nothing holds it: no
// decision or option awaited, and no round awaiting its confirmation. A round still
// being dealt cannot have the cards it needs: it is void (RWS Baccarat 5.5.4), as it is
// when the shoe ends with no hold in the way; a round open for bets is void unplayed.
func (c *Controller) maybeEnd(ev *Event) {
	if !c.st.EndPending || c.st.Held.ID != 0 || c.st.Phase == NoShoe || c.st.Phase == Complete && !c.st.Voided {
		return
	}
	switch {
	case c.st.Voided:
	case c.st.Phase == BettingOpen:
		c.void(ev, "the shoe ended before the round was dealt")
	case c.st.Phase == Dealing:
		c.raise(ev, irregularities.InsufficientCards, fmt.Sprintf("the shoe ended with round %d incomplete", c.st.Round))
	}
	c.pendingEnd(ev)
}

func (c *Controller) resolveHold(ev *Event, choice irregularities.Choice, role irregularities.Role, actor, why string) {
	h := c.st.Held
	c.st.Held = Held{}
	c.emitPart(Effect{Kind: IrregularityResolved, ID: h.ID, Irregularity: h.Kind, Choice: choice, Role: role}, part{actor: actor, reason: why})
	switch choice {
	case irregularities.Void:
		if c.roundInPlay() {
			reason := why
			if reason == "" {
				reason = fmt.Sprintf("%s decided void (%s)", h.Kind, c.rule(h.Kind))
			}
			c.void(ev, reason)
			c.discard(ev, h.Pending)
			c.afterVoid(ev)
			return
		}
		c.dealPending(ev, h.Pending)
	case irregularities.AsRead:
		c.release(ev, h, h.Pending)
	case irregularities.Swapped:
		pending := h.Pending
		if h.Paired && len(pending) > 0 {
			// The card placed last and the first held card came out together: the held one
			// goes first.
			last, seq := c.unplaceLast()
			c.emitPart(Effect{Kind: Reconstructed}, part{coup: c.st.Coup})
			pending = append([]Kept{pending[0], {Card: last, Seq: seq}}, pending[1:]...)
		} else if len(pending) >= 2 {
			pending = append([]Kept{pending[1], pending[0]}, pending[2:]...)
		}
		c.release(ev, h, pending)
	case irregularities.Reconstructed:
		c.emitPart(Effect{Kind: Reconstructed}, part{coup: c.st.Coup})
		c.release(ev, h, h.Pending)
	case irregularities.Proceed:
		switch h.Kind {
		case irregularities.ForeignCard:
			// The next round opens; the cards held meanwhile come to it first, as they
			// were drawn, and a shoe whose empty signal waits ends after them (maybeEnd).
			end := c.st.EndPending
			c.st.EndPending = false
			c.afterVoid(ev)
			c.st.EndPending = end
		case irregularities.TechnicalInterruption:
			c.emitPart(Effect{Kind: Resumed}, part{reason: "the round continues (" + c.rule(h.Kind) + ".1)"})
		case irregularities.WrongHand:
			// The cards cannot be reconstructed: the round continues as dealt, and the
			// players have the options of 5.12 (RWS Baccarat 5.8), before any further
			// card is shown. Once the round is complete its outcome is known: no option
			// is left to give (window.go).
			if c.st.Phase == Dealing {
				c.st.OptionsOpen = true
				c.openWindow(ev, h.ID, h.Kind)
			}
		}
		if c.st.Phase == Burning && h.Missing > 0 && c.st.BurnLeft > 0 {
			// The cards set aside were burn cards (the burn's first card, unread, leaves
			// the next card to show the count).
			n := min(h.Missing, c.st.BurnLeft)
			c.st.BurnLeft -= n
			c.emitPart(Effect{Kind: CardBurned, Count: c.st.BurnLeft}, part{reason: cardsText(n, "set aside unread")})
		}
		if c.st.Phase == Burning && c.st.BurnLeft == 0 {
			c.nextRound(ev) // the burn's last card was set aside
		}
		c.release(ev, h, h.Pending)
	}
}

// afterVoid opens the next round once a void round is over (or ends the shoe after the
// cut card, or when the shoe reported itself empty). When no round was voided there is
// nothing to open.
func (c *Controller) afterVoid(ev *Event) {
	if c.st.Voided && c.st.Phase == Complete {
		if c.st.EndPending && c.st.Held.ID == 0 {
			c.pendingEnd(ev)
			return
		}
		c.nextRound(ev)
	}
}

// roundInPlay reports whether a round is open and not yet settled or void.
func (c *Controller) roundInPlay() bool {
	return !c.st.Voided && (c.st.Phase == BettingOpen || c.st.Phase == Dealing || c.st.Phase == Complete)
}

// dealPending gives the cards held during an irregularity their places, in order, as
// they would have had with no hold: burned, placed, or excess cards (RWS Baccarat 5.7).
// A card that raises a new hold holds the rest with it.
func (c *Controller) dealPending(ev *Event, ks []Kept) {
	for _, k := range ks {
		if c.st.Held.ID != 0 {
			c.hold(ev, k.Card, k.Seq)
			continue
		}
		c.deal(ev, k.Card, k.Seq)
	}
}

// unplaceLast takes the last placed card out of the round and returns it with its
// sequence number.
func (c *Controller) unplaceLast() (card baccarat.Card, seq uint64) {
	var cards []baccarat.Card
	var seqs []uint64
	for s := baccarat.P1; s <= baccarat.B3; s++ {
		if cd, ok := c.st.Coup.SlotCard(s); ok {
			cards = append(cards, cd)
			seqs = append(seqs, c.st.CardNos[s-1])
		}
	}
	last, lastSeq := cards[len(cards)-1], seqs[len(seqs)-1]
	c.st.Coup = baccarat.Coup{}
	c.st.CardNos = [6]uint64{}
	for i, cd := range cards[:len(cards)-1] {
		slot := c.st.Coup.Place(cd)
		c.st.CardNos[slot-1] = seqs[i]
	}
	c.st.Phase = Dealing
	return last, lastSeq
}

// deviceLost: a shoe that drops out while a round is dealt is a technical interruption
// (RWS Baccarat 5.4); the rule decides when it is back. A shuffler that drops out does
// not interrupt dealing from the shoe: it is recorded in the journal and nothing else.
func (c *Controller) deviceLost(ev *Event) {
	if isShuffler(ev.Detail) || c.st.Phase != Dealing {
		return
	}
	what := fmt.Sprintf("%s disconnected with round %d being dealt", deviceName(ev.Detail), c.st.Round)
	if c.st.Held.ID == 0 {
		c.raise(ev, irregularities.TechnicalInterruption, what)
		return
	}
	// Held for something else: 5.4 applies all the same once the shoe is back.
	c.st.ShoeLost = true
	c.record(ev, irregularities.TechnicalInterruption, fmt.Sprintf("%s while the table is held for irregularity #%d", what, c.st.Held.ID))
}

func (c *Controller) deviceBack(ev *Event) {
	if isShuffler(ev.Detail) {
		return
	}
	lost := c.st.ShoeLost
	c.st.ShoeLost = false
	if c.st.Held.ID != 0 && (c.st.Held.Kind == irregularities.TechnicalInterruption || lost && c.st.Phase == Dealing) {
		c.interrupted(ev)
	}
}

func isShuffler(detail string) bool { return strings.HasPrefix(detail, "shuffler") }

func deviceName(s string) string {
	if s == "" {
		return "a device"
	}
	return s
}

// unheldForeign takes card, held out of the recorded order and now reported not of the
// set, out of the set's count, and puts the recorded order back where it was before the
// card came: the set's own copy of it is still to come, in its place.
func (c *Controller) unheldForeign(h Held, card baccarat.Card) {
	if !card.Valid() || len(h.Pending) == 0 || h.Pending[0].Card != card {
		return
	}
	c.st.Foreign++ // read from the shoe, and none of the set's cards (RWS Baccarat 5.5.2)
	if c.st.Seen[card.Index()] > 0 {
		c.st.Seen[card.Index()]--
	}
	if h.OrderPos > 0 {
		c.st.OrderPos = h.OrderPos - 1
		c.st.Skipped = c.st.Skipped[:min(len(c.st.Skipped), h.Skipped-1)]
	}
}
