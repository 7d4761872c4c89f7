package daemon

import (
	"time"

	"github.com/tablectl/tablectl/drivers/device"
)

// DefaultReportWait is how long a card drawn while the table waits for a set waits for
// the shuffler's report when Config.ReportWait is zero.
const DefaultReportWait = 5 * time.Second

// early keeps the shoe's events that came while the table waited for a set
// (table.Node.BeforeSet) at a table with a shuffler: a set reaches the shoe only after
// the shuffler has reported it, but the two lines have no order between them, and after
// a restart the shoe's resent first cards of a new set can overtake the shuffler's
// repeated report of it. The first such card, and every shoe event after it (the shoe's
// order is kept), wait unacknowledged until a report lets the table load the set, the
// shuffler's line closes, or the wait runs out; then they are stepped in order. A card
// drawn with no set reported is judged as it came, only later: not due, or in excess.
type early struct {
	events []device.Event
	timer  *time.Timer
	expiry <-chan time.Time // the timer's channel while events wait; nil otherwise
}

// keep reports whether ev waits: events wait already, or ev is a card drawn before its
// set's report at a table whose shuffler is connected to the loop.
func (l *loop) keep(ev device.Event) bool {
	if len(l.early.events) == 0 && (l.shuffler == nil || !l.d.node.BeforeSet(ev)) {
		return false
	}
	if len(l.early.events) == 0 {
		wait := l.d.cfg.ReportWait
		if wait <= 0 {
			wait = DefaultReportWait
		}
		l.d.log.Info("a card came while the table waits for the shuffler's report of the next set: it waits for the report before it is taken",
			"card", ev.String(), "wait", wait.String())
		l.early.timer = time.NewTimer(wait)
		l.early.expiry = l.early.timer.C
	}
	l.early.events = append(l.early.events, ev)
	return true
}

// release steps the waiting events, in order, up to the first that still comes before
// its set's report; with all, every one of them.
func (l *loop) release(all bool) {
	for len(l.early.events) > 0 {
		ev := l.early.events[0]
		if !all && l.shuffler != nil && l.d.node.BeforeSet(ev) {
			return
		}
		l.early.events = l.early.events[1:]
		l.d.deviceEvent("shoe", ev)
	}
	l.stopEarly()
}

// expired steps the waiting events when no report came in time.
func (l *loop) expired() error {
	if len(l.early.events) > 0 {
		l.d.log.Warn("no shuffler report came for a card drawn while the table waits for a set: the card is taken as it came",
			"card", l.early.events[0].String(), "waiting", len(l.early.events))
	}
	l.early.expiry = nil
	l.release(true)
	return nil
}

// stopEarly stops the wait's timer once nothing waits.
func (l *loop) stopEarly() {
	if len(l.early.events) == 0 && l.early.timer != nil {
		l.early.timer.Stop()
		l.early.timer, l.early.expiry = nil, nil
	}
}
