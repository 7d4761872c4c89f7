package board

import (
	"fmt"
	"net"
	"net/http"
	"sync"
)

// Default limits of the event streams, when Options.MaxStreams and
// Options.MaxStreamsPerAddress are zero: a table's screens and a few supervisors' tabs
// fit well within them; a flood of connections does not grow the process past them.
const (
	DefaultMaxStreams           = 64
	DefaultMaxStreamsPerAddress = 8
)

// StreamLimiter bounds the event streams open at once, from one client address and in
// all. It is safe for concurrent use.
type StreamLimiter struct {
	perAddr, total int

	mu     sync.Mutex
	n      int
	byAddr map[string]int
}

// NewStreamLimiter returns a limiter of perAddr streams per address and total in all.
func NewStreamLimiter(perAddr, total int) *StreamLimiter {
	return &StreamLimiter{perAddr: perAddr, total: total, byAddr: map[string]int{}}
}

// LimitError is a stream refused: the HTTP status to answer and why.
type LimitError struct {
	Status int
	Reason string
}

// Error says why.
func (e *LimitError) Error() string { return e.Reason }

// Acquire takes a stream for the client at remoteAddr (host:port, as in
// http.Request.RemoteAddr; the port is ignored) and returns the function that gives it
// back, or a *LimitError: 429 when the address has its share, 503 when all are taken.
func (l *StreamLimiter) Acquire(remoteAddr string) (release func(), err error) {
	host, _, splitErr := net.SplitHostPort(remoteAddr)
	if splitErr != nil {
		host = remoteAddr
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n >= l.total {
		return nil, &LimitError{Status: http.StatusServiceUnavailable,
			Reason: fmt.Sprintf("the board serves at most %d event streams at once", l.total)}
	}
	if l.byAddr[host] >= l.perAddr {
		return nil, &LimitError{Status: http.StatusTooManyRequests,
			Reason: fmt.Sprintf("at most %d event streams from one address", l.perAddr)}
	}
	l.n++
	l.byAddr[host]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.n--
			if l.byAddr[host]--; l.byAddr[host] <= 0 {
				delete(l.byAddr, host)
			}
		})
	}, nil
}

// Open is how many streams are open.
func (l *StreamLimiter) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// refuseStream answers a stream refused by the limiter.
func refuseStream(w http.ResponseWriter, err error) {
	status := http.StatusServiceUnavailable
	if le, ok := err.(*LimitError); ok {
		status = le.Status
	}
	w.Header().Set("Retry-After", "10")
	http.Error(w, err.Error(), status)
}
