package daemon

import "github.com/tablectl/tablectl/messages"

// StatusNow returns the table's status as st ("online" or "offline"), stamped now. It is
// the latest status the table published, brought up to the shoe and round of its latest
// state message. It is nil while no status is queued, or when it cannot be built (logged);
// the transport then sends its fixed payloads. StatusNow reads only the outbox, so it is safe from any goroutine.
//
// The transport sends it as its online status on a connect, and as its offline status on
// a clean stop, with the stop's time (display.Options.OnlineFunc and OfflineFunc).
func (d *Daemon) StatusNow(st string) []byte {
	d.out.mu.Lock()
	latest := d.out.retained[d.topics.Status()]
	state := d.out.retained[d.topics.State()]
	d.out.mu.Unlock()
	if latest == nil {
		return nil
	}
	b, err := messages.StatusAs(latest, state, st, d.clock.Now())
	if err != nil {
		d.log.Error("status", "err", err)
		return nil
	}
	return b
}
