package table

import (
	"log/slog"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
)

// early holds the shoe's events that came while the table waited for a set (BeforeSet)
// at a table with a shuffler (Config.ReportWait). A set reaches the shoe only after the
// shuffler has reported it, but the two lines have no order between them: after a
// restart the shoe's resent first cards of a new set can overtake the shuffler's
// repeated report of it. The first such card, and every shoe event after it (the shoe's
// order is kept), wait unacknowledged until a report lets the table load the set, no
// report can come (ShufflerClosed), or ReportWait has run from the first card's time
// (Tick, or a shoe event stamped at or after then). Then they are stepped in order. A
// card drawn with no set reported is judged as it came, only later: not due, or in
// excess.
type early struct {
	events []device.Event
	since  time.Time // the first event's time
	closed bool      // no report can come (ShufflerClosed)
}

// Held is how many shoe events wait for the shuffler's report.
func (n *Node) Held() int { return len(n.early.events) }

// hold reports whether ev waits for the shuffler's report, and keeps it if so.
func (n *Node) hold(ev device.Event) bool {
	if len(n.early.events) == 0 {
		if n.cfg.ReportWait <= 0 || n.early.closed || !n.BeforeSet(ev) {
			return false
		}
		n.early.since = ev.Time
		if n.early.since.IsZero() {
			n.early.since = n.now
		}
		n.note(slog.LevelInfo, "a card came while the table waits for the shuffler's report of the next set: it waits for the report before it is taken",
			slog.String("card", ev.String()), slog.String("wait", n.cfg.ReportWait.String()))
	}
	n.early.events = append(n.early.events, ev)
	if due, _ := n.reportDue(); !ev.Time.Before(due) {
		n.waitOver()
	}
	return true
}

// reportDue is when the events held stop waiting for the shuffler's report.
func (n *Node) reportDue() (time.Time, bool) {
	if len(n.early.events) == 0 {
		return time.Time{}, false
	}
	return n.early.since.Add(n.cfg.ReportWait), true
}

// waitOver steps the events held: no report came in time.
func (n *Node) waitOver() {
	n.note(slog.LevelWarn, "no shuffler report came for a card drawn while the table waits for a set: the card is taken as it came",
		slog.String("card", n.early.events[0].String()), slog.Int("waiting", len(n.early.events)))
	n.release(true)
}

// release steps the events held, in order, up to the first that still comes before its
// set's report; with all, every one of them.
func (n *Node) release(all bool) {
	for len(n.early.events) > 0 {
		ev := n.early.events[0]
		if !all && !n.early.closed && n.BeforeSet(ev) {
			return
		}
		n.early.events = n.early.events[1:]
		n.shoe(ev)
	}
	n.early.events = nil
}

// ShufflerClosed tells the node that no shuffler report can come: the table has no
// shuffler, or its line closed. The shoe events held for a report are stepped, and none
// is held again.
func (n *Node) ShufflerClosed() {
	n.early.closed = true
	n.release(true)
}
