package round

import (
	"fmt"
	"strings"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// report takes an irregularity reported by a dealer, a supervisor or a device.
func (c *Controller) report() {
	k := c.ev.Irregularity
	e := irregularities.Lookup(k)
	switch {
	case e.Kind == 0:
		c.refuse("unknown irregularity kind %d", k)
		return
	case c.ev.Role < irregularities.Dealer || c.ev.Role > irregularities.ShiftManager:
		c.refuse("a report needs the role of who makes it")
		return
	case c.st.Held.ID != 0 && len(e.Choices) > 0:
		c.refuse("the table is already held for irregularity #%d (%s)", c.st.Held.ID, c.st.Held.Kind)
		return
	}
	what := c.ev.Detail
	if what == "" {
		what = "reported by the " + c.ev.Role.String()
	}
	inRound := c.st.Phase == Dealing || c.st.Phase == Complete
	switch k {
	case irregularities.WrongHand, irregularities.ExposedCard, irregularities.SimultaneousDraw,
		irregularities.IncorrectCards, irregularities.ExcessCard:
		if k == irregularities.SimultaneousDraw && c.st.Phase == BettingOpen && c.cfg.CloseBetsOnFirstCard && c.st.Held.ID == 0 {
			// Cards drawn together are the round's first cards: betting is over.
			c.closeBets(nil)
			inRound = c.st.Phase == Dealing
		}
		if !inRound {
			c.refuse("%s: no round is being dealt (%s)", k, c.st.Phase)
			return
		}
		c.raise(k, what)
	case irregularities.LateError:
		// RWS Baccarat 5.11: noticed after a later round began; the later rounds stand.
		if c.ev.Role < irregularities.Supervisor {
			c.refuse("a late error is reported by a supervisor or above")
			return
		}
		if c.ev.Round == 0 || c.ev.Round >= c.st.Round {
			c.refuse("round %d is not an earlier round of shoe %d (round %d is in play)", c.ev.Round, c.st.Shoe, c.st.Round)
			return
		}
		c.raise(k, fmt.Sprintf("round %d: %s; the rounds after it stand", c.ev.Round, what))
	case irregularities.ForeignCard:
		if c.st.Phase == NoShoe {
			c.refuse("no shoe is in play")
			return
		}
		c.foundForeign(what)
	case irregularities.TechnicalInterruption:
		if c.st.Phase != Dealing {
			c.refuse("no round is being dealt (%s)", c.st.Phase)
			return
		}
		c.raise(k, what)
	case irregularities.InsufficientCards, irregularities.NotShuffled, irregularities.CardCount:
		// The set cannot go on: the round in play is void (RWS Baccarat 5.5) and no more
		// rounds are dealt from this shoe.
		if c.st.Phase == NoShoe {
			c.raise(k, what)
			return
		}
		c.raise(k, what)
		if c.roundInPlay() && c.st.Phase != Complete {
			c.void(fmt.Sprintf("%s (%s)", irregularities.Lookup(k).Display, c.rule(k)))
		}
		if c.st.Phase != ShoeDone {
			c.st.Phase = ShoeDone
			c.emit(Effect{Kind: ShoeFinished})
		}
	case irregularities.InsuranceNotOffered:
		if !c.cfg.Rules.Insurance {
			c.refuse("rule set %s offers no insurance", c.cfg.Rules.Name)
			return
		}
		c.raise(k, what)
	default:
		c.refuse("%s is raised by the controller, not reported", k)
	}
}

// decide applies a decision on the held irregularity.
func (c *Controller) decide() {
	h := c.st.Held
	e := irregularities.Lookup(h.Kind)
	switch {
	case h.ID == 0:
		c.refuse("no irregularity is waiting for a decision")
	case c.ev.ID != 0 && c.ev.ID != h.ID:
		c.refuse("irregularity #%d (%s) is waiting for a decision, not #%d", h.ID, h.Kind, c.ev.ID)
	case !e.Allows(c.ev.Choice):
		c.refuse("%q is not a decision for %s: allowed are %s", c.ev.Choice, h.Kind, choiceList(e.Choices))
	case c.ev.Role < e.DecidedBy || c.ev.Role > irregularities.ShiftManager:
		c.refuse("a %s may not decide %s: it takes a %s or above (%s)", roleName(c.ev.Role), h.Kind, e.DecidedBy, c.rule(h.Kind))
	default:
		c.resolve(c.ev.Choice, c.ev.Role, c.ev.Actor, "")
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

// resolve ends the hold with choice, made by role and actor (role 0: by the rules
// themselves), and carries it out.
func (c *Controller) resolve(choice irregularities.Choice, role irregularities.Role, actor, why string) {
	h := c.st.Held
	c.st.Held = Held{}
	c.emit(Effect{Kind: IrregularityResolved, ID: h.ID, Irregularity: h.Kind, Choice: choice, Role: role, Actor: actor, Reason: why})
	switch choice {
	case irregularities.Void:
		if c.roundInPlay() {
			reason := why
			if reason == "" {
				reason = fmt.Sprintf("%s decided void (%s)", h.Kind, c.rule(h.Kind))
			}
			c.void(reason)
		}
		c.afterVoid()
	case irregularities.AsRead:
		c.dealPending(h.Pending)
	case irregularities.Swapped:
		pending := h.Pending
		if h.Paired && len(pending) > 0 {
			// The card placed last and the first held card came out together: the held one
			// goes first.
			last, seq := c.unplaceLast()
			c.emit(Effect{Kind: Reconstructed, Coup: c.st.Coup})
			pending = append([]Kept{pending[0], {Card: last, Seq: seq}}, pending[1:]...)
		} else if len(pending) >= 2 {
			pending = append([]Kept{pending[1], pending[0]}, pending[2:]...)
		}
		c.dealPending(pending)
	case irregularities.Reconstructed:
		c.emit(Effect{Kind: Reconstructed, Coup: c.st.Coup})
		c.dealPending(h.Pending)
	case irregularities.Proceed:
		switch h.Kind {
		case irregularities.ForeignCard:
			c.afterVoid()
		case irregularities.TechnicalInterruption:
			if c.st.Phase == Dealing && c.st.Coup.Len() > 0 && !c.cfg.Rules.Established(c.st.Coup) && role == 0 {
				c.void("technical interruption before any outcome was established (RWS Baccarat 5.4.2)")
				c.afterVoid()
				return
			}
			c.emit(Effect{Kind: Resumed, Reason: "the round continues (RWS Baccarat 5.4.1)"})
			c.dealPending(h.Pending)
		default:
			c.dealPending(h.Pending)
		}
	}
}

// afterVoid opens the next round once a void round is over (or ends the shoe after the
// cut card). When no round was voided there is nothing to open.
func (c *Controller) afterVoid() {
	if c.st.Voided && c.st.Phase == Complete {
		c.nextRound()
	}
}

// roundInPlay reports whether a round is open and not yet settled or void.
func (c *Controller) roundInPlay() bool {
	return !c.st.Voided && (c.st.Phase == BettingOpen || c.st.Phase == Dealing || c.st.Phase == Complete)
}

// dealPending places the cards held during an irregularity, in order; those the round
// has no place for are excess cards (RWS Baccarat 5.7).
func (c *Controller) dealPending(ks []Kept) {
	for _, k := range ks {
		if c.st.Phase == Dealing {
			c.place(k.Card, k.Seq)
			continue
		}
		c.excess(k.Card, k.Seq, "the round is complete")
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
			seqs = append(seqs, c.st.Seqs[s-1])
		}
	}
	last, lastSeq := cards[len(cards)-1], seqs[len(seqs)-1]
	c.st.Coup = baccarat.Coup{}
	c.st.Seqs = [6]uint64{}
	for i, cd := range cards[:len(cards)-1] {
		slot := c.st.Coup.Place(cd)
		c.st.Seqs[slot-1] = seqs[i]
	}
	c.st.Phase = Dealing
	return last, lastSeq
}

func (c *Controller) deviceLost() {
	if c.st.Phase == Dealing && c.st.Held.ID == 0 {
		c.raise(irregularities.TechnicalInterruption, fmt.Sprintf("%s disconnected with round %d being dealt", deviceName(c.ev.Detail), c.st.Round))
	}
}

func (c *Controller) deviceBack() {
	if c.st.Held.ID != 0 && c.st.Held.Kind == irregularities.TechnicalInterruption {
		c.decideByRule(c.st.Held.ID)
	}
}

func deviceName(s string) string {
	if s == "" {
		return "a device"
	}
	return s
}
