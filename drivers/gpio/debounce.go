package gpio

import (
	"time"

	"periph.io/x/conn/v3/gpio"
)

// minWait is the shortest time the input loop waits for an edge: some hosts read a zero
// timeout as "wait forever".
const minWait = 50 * time.Microsecond

// debouncer decides when an input's level has changed. A change counts only once the new
// level has held, with no edge at all, for the debounce window; an edge restarts the
// window even when the level read afterwards is unchanged, since it shows the contact is
// still moving. It holds no clock: every observation carries its time.
type debouncer struct {
	window time.Duration
	stable gpio.Level // the level last reported
	last   gpio.Level // the level last observed
	since  time.Time  // when last was first observed, or the last edge
}

// newDebouncer starts a debouncer at level l, observed at time at.
func newDebouncer(window time.Duration, l gpio.Level, at time.Time) debouncer {
	return debouncer{window: window, stable: l, last: l, since: at}
}

// observe records that the pin read level l at time at, after an edge if edge is set. It
// reports whether the stable level changed to l; the change began at d.since.
func (d *debouncer) observe(l gpio.Level, edge bool, at time.Time) bool {
	if edge || l != d.last {
		d.last = l
		d.since = at
	}
	if d.last == d.stable || at.Sub(d.since) < d.window {
		return false
	}
	d.stable = d.last
	return true
}

// wait is how long to wait for the next edge at time now: until the pending level would
// have held for the window, or longest when no change is pending, and never less than
// minWait.
func (d *debouncer) wait(now time.Time, longest time.Duration) time.Duration {
	if d.last == d.stable {
		return longest
	}
	return min(max(d.window-now.Sub(d.since), minWait), longest)
}
