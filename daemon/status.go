package daemon

import "github.com/tablectl/tablectl/messages"

// StatusNow is the latest status the table published, brought up to its latest state
// message's shoe and round, as st ("online" or "offline") at this moment: the transport's online status on a connect, and its offline status on
// a clean stop, with the stop's time (display.Options.OnlineFunc and OfflineFunc). It
// reads only the outbox, so it is safe from any goroutine. Before any status was queued
// it is nil, and the transport falls back to its fixed payloads.
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
