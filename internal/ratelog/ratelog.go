// Package ratelog keeps a flood of one kind of log line from drowning the log: the first
// line of a kind is logged, then at most one every interval, saying how many were left
// out in between. Counters kept elsewhere (the metrics) stay exact; only the log thins.
package ratelog

import (
	"sync"
	"time"
)

// DefaultInterval is the interval New uses when given zero.
const DefaultInterval = 5 * time.Second

// Limiter decides which lines of each kind are logged. It is safe for concurrent use.
type Limiter struct {
	every time.Duration
	now   func() time.Time

	mu    sync.Mutex
	kinds map[string]*kind
}

type kind struct {
	last time.Time // when the last line was logged
	held int       // lines left out since
}

// New returns a Limiter logging at most one line of a kind every interval
// (DefaultInterval when zero); now is the clock (time.Now when nil).
func New(interval time.Duration, now func() time.Time) *Limiter {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if now == nil {
		now = time.Now
	}
	return &Limiter{every: interval, now: now, kinds: map[string]*kind{}}
}

// Allow reports whether a line of the kind is to be logged now and, when it is, how
// many lines of the kind were left out since the last one logged (to be said in it).
func (l *Limiter) Allow(key string) (log bool, leftOut int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	k, ok := l.kinds[key]
	if !ok {
		l.kinds[key] = &kind{last: now}
		return true, 0
	}
	if now.Sub(k.last) < l.every {
		k.held++
		return false, 0
	}
	leftOut = k.held
	k.last, k.held = now, 0
	return true, leftOut
}
