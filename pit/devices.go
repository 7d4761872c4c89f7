package pit

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// The kinds of a device's event (DeviceEvent.Kind), in the order the figures list them
// (docs/pit.md, "Devices").
const (
	DeviceUnreadable   = "unreadable"   // a card the shoe could not name
	DeviceMissed       = "missed"       // cards that passed the reader unread: a gap in the shoe's card numbers
	DeviceRestarted    = "restarted"    // the shoe's card numbers started again: it was powered off and on
	DeviceFault        = "fault"        // a device's alarm or warning, in its own words
	DeviceReport       = "reported"     // another irregularity a device reported: cards sensed at once, a set not shuffled or miscounted
	DeviceShuffle      = "shuffle"      // a set the shuffler reported
	DeviceDisconnected = "disconnected" // a device disconnected
	DeviceReconnected  = "reconnected"  // a device came back
)

// DeviceKinds are the kinds of a device's event, in order.
var DeviceKinds = []string{DeviceUnreadable, DeviceMissed, DeviceRestarted, DeviceFault, DeviceReport,
	DeviceShuffle, DeviceDisconnected, DeviceReconnected}

// DeviceEvent is one event of a table's device, as the archive holds it.
type DeviceEvent struct {
	Table, Pit string
	Device     string // "shoe", "shuffler"; empty for a fault a person reported
	Kind       string
	At         time.Time
	Detail     string // what was read, or what the device said
	// Cards is the cards the event concerns: the cards missed, the set's count of a
	// shuffle (0: not known).
	Cards int
	// Delay is a shuffle's time from the shoe's end before it, and a reconnect's from
	// its disconnect; Delayed says it is known.
	Delay   time.Duration
	Delayed bool
}

// Outage is a stretch a table's device was disconnected, cut to the range it was read
// for. Open: it had not come back by the range's end.
type Outage struct {
	Table, Pit, Device string
	From, To           time.Time
	Open               bool
}

// DeviceFigure is one device's figures at one table over one period.
type DeviceFigure struct {
	Table, Pit, Device string
	From, To           time.Time      // the period
	Counts             map[string]int // the events of each kind of DeviceKinds
	Missed             int            // the cards that passed the reader unread
	// Delays is the shuffles whose delay is known; DelayMean and DelayMax their mean
	// and longest delay.
	Delays              int
	DelayMean, DelayMax time.Duration
	Offline             time.Duration // the time the device was disconnected in the period
}

// Devices computes the devices' figures of events and outages, per table and device,
// cut by buckets: an event counts in the period of its time; an outage that crosses
// periods counts in each for the part inside it. The figures come ordered by period,
// then table, then device.
func Devices(events []DeviceEvent, outages []Outage, buckets Buckets) []DeviceFigure {
	type slot struct {
		table, device string
		from          time.Time
	}
	type acc struct {
		f     DeviceFigure
		delay time.Duration
	}
	groups := map[slot]*acc{}
	get := func(table, pit, device string, t time.Time) *acc {
		from, to := buckets.Of(t)
		s := slot{table, device, from}
		a := groups[s]
		if a == nil {
			a = &acc{f: DeviceFigure{Table: table, Pit: pit, Device: device, From: from, To: to, Counts: map[string]int{}}}
			groups[s] = a
		}
		return a
	}
	for _, e := range events {
		if e.At.IsZero() {
			continue
		}
		a := get(e.Table, e.Pit, e.Device, e.At)
		a.f.Counts[e.Kind]++
		switch {
		case e.Kind == DeviceMissed:
			a.f.Missed += e.Cards
		case e.Kind == DeviceShuffle && e.Delayed:
			a.f.Delays++
			a.delay += e.Delay
			a.f.DelayMax = max(a.f.DelayMax, e.Delay)
		}
	}
	for _, o := range outages {
		for t := o.From; t.Before(o.To); {
			a := get(o.Table, o.Pit, o.Device, t)
			end := earlier(o.To, a.f.To)
			if !end.After(t) { // a bucket that does not move on: stop rather than loop
				break
			}
			a.f.Offline += end.Sub(t)
			t = end
		}
	}
	out := make([]DeviceFigure, 0, len(groups))
	for _, a := range groups {
		if a.f.Delays > 0 {
			a.f.DelayMean = a.delay / time.Duration(a.f.Delays)
		}
		out = append(out, a.f)
	}
	slices.SortFunc(out, func(p, q DeviceFigure) int {
		return cmp.Or(p.From.Compare(q.From), strings.Compare(p.Table, q.Table), strings.Compare(p.Device, q.Device))
	})
	return out
}

// earlier is the earlier of two times.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
