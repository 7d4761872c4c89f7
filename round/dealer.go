package round

import "github.com/tablectl/tablectl/irregularities"

// The dealers on the table (DealerOn, DealerOff). A dealer takes or leaves the table in
// their own name; a supervisor or above records any dealer, for one without a login. A
// table's status says who is on; the floor credits each round to the dealer on at its
// first card (docs/pit.md). Taking and leaving the table changes nothing of the round:
// it is allowed in every phase, held or not.

// dealerOn steps DealerOn: ev.Dealer, or the dealer giving it (ev.Actor), takes the
// table; the dealer on before leaves it.
func (c *Controller) dealerOn(ev *Event) {
	name, ok := c.dealerNamed(ev)
	if !ok {
		return
	}
	switch {
	case name == "":
		c.refuse(ev, "no dealer named")
		return
	case name == c.st.Dealer:
		c.refuse(ev, "%s is on the table already", quote(name))
		return
	}
	if c.st.Dealer != "" {
		c.emitPart(Effect{Kind: DealerLeft, Role: ev.Role},
			part{dealer: c.st.Dealer, actor: ev.Actor, reason: "relieved by " + quote(name)})
	}
	c.st.Dealer = name
	c.emitPart(Effect{Kind: DealerStarted, Role: ev.Role}, part{dealer: name, actor: ev.Actor})
}

// dealerOff steps DealerOff: the dealer on leaves the table. ev.Dealer, when given, must
// be that dealer.
func (c *Controller) dealerOff(ev *Event) {
	name, ok := c.dealerNamed(ev)
	if !ok {
		return
	}
	switch {
	case c.st.Dealer == "":
		c.refuse(ev, "no dealer is on the table")
		return
	case name != "" && name != c.st.Dealer:
		c.refuse(ev, "%s is not on the table: %s is", quote(name), quote(c.st.Dealer))
		return
	}
	left := c.st.Dealer
	c.st.Dealer = ""
	c.emitPart(Effect{Kind: DealerLeft, Role: ev.Role}, part{dealer: left, actor: ev.Actor})
}

// dealerNamed is the dealer ev names, after the check of who gives it: a dealer names
// only themselves (ev.Dealer empty or their own id); a supervisor or above names any.
// It refuses ev and reports false when ev may not be given.
func (c *Controller) dealerNamed(ev *Event) (string, bool) {
	switch {
	case ev.Role < ev.Kind.Info().By || ev.Role > irregularities.ShiftManager:
		c.refuse(ev, "a dealer on or off is recorded with the role of who records it")
		return "", false
	case ev.Role == irregularities.Dealer && ev.Dealer != "" && ev.Actor != "" && ev.Dealer != ev.Actor:
		c.refuse(ev, "a dealer takes or leaves the table in their own name (%s), not %s: a supervisor records another dealer",
			quote(ev.Actor), quote(ev.Dealer))
		return "", false
	case ev.Role == irregularities.Dealer && ev.Dealer == "":
		return ev.Actor, true
	}
	return ev.Dealer, true
}
