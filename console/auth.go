package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"sync"
	"time"
)

// session is one person logged in: the cookie's token names it, and every request that
// changes anything carries its CSRF token.
type session struct {
	token    string
	csrf     string
	user     User
	lastSeen time.Time
}

// sessions keeps the sessions in memory: a restart of the console logs everyone out.
type sessions struct {
	mu   sync.Mutex
	idle time.Duration
	byID map[string]*session
}

func newSessions(idle time.Duration) *sessions {
	return &sessions{idle: idle, byID: map[string]*session{}}
}

// randomToken is 32 random bytes, URL-safe base64.
func randomToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("console: crypto/rand: " + err.Error()) // crypto/rand does not fail on supported systems
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// create starts a session for u at now.
func (ss *sessions) create(u User, now time.Time) *session {
	s := &session{token: randomToken(), csrf: randomToken(), user: u, lastSeen: now}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.byID[s.token] = s
	return s
}

// get returns the session of token if it has not been idle longer than the idle time,
// and marks it used at now. An expired session is forgotten.
func (ss *sessions) get(token string, now time.Time) (session, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.byID[token]
	if !ok {
		return session{}, false
	}
	if now.Sub(s.lastSeen) > ss.idle {
		delete(ss.byID, token)
		return session{}, false
	}
	s.lastSeen = now
	return *s, true
}

// drop ends the session of token.
func (ss *sessions) drop(token string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.byID, token)
}

// dropUser ends every session of the person called name.
func (ss *sessions) dropUser(name string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for k, s := range ss.byID {
		if s.user.Name == name {
			delete(ss.byID, k)
		}
	}
}

// sweep forgets the sessions idle longer than the idle time.
func (ss *sessions) sweep(now time.Time) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for k, s := range ss.byID {
		if now.Sub(s.lastSeen) > ss.idle {
			delete(ss.byID, k)
		}
	}
}

// sameToken compares two tokens in constant time.
func sameToken(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// limiter counts failed logins by name: after max failures within window the name is
// refused until lockFor has passed since the last of them.
type limiter struct {
	mu      sync.Mutex
	max     int
	window  time.Duration
	lockFor time.Duration
	fails   map[string][]time.Time
	locked  map[string]time.Time // until
}

func newLimiter(max int, window, lockFor time.Duration) *limiter {
	return &limiter{max: max, window: window, lockFor: lockFor, fails: map[string][]time.Time{}, locked: map[string]time.Time{}}
}

// lockedUntil reports whether name is locked at now, and until when.
func (l *limiter) lockedUntil(name string, now time.Time) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	until, ok := l.locked[name]
	if !ok {
		return time.Time{}, false
	}
	if !now.Before(until) {
		delete(l.locked, name)
		delete(l.fails, name)
		return time.Time{}, false
	}
	return until, true
}

// fail records a failed login for name at now and reports how many failures the name
// has within the window, and whether it is now locked.
func (l *limiter) fail(name string, now time.Time) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	recent := l.fails[name][:0]
	for _, t := range l.fails[name] {
		if now.Sub(t) < l.window {
			recent = append(recent, t)
		}
	}
	recent = append(recent, now)
	l.fails[name] = recent
	if len(recent) >= l.max {
		l.locked[name] = now.Add(l.lockFor)
		return len(recent), true
	}
	return len(recent), false
}

// succeed forgets the failures of name.
func (l *limiter) succeed(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.fails, name)
}

// sweep forgets old failures and expired locks, so names tried once do not pile up.
func (l *limiter) sweep(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for n, until := range l.locked {
		if !now.Before(until) {
			delete(l.locked, n)
		}
	}
	for n, ts := range l.fails {
		if len(ts) == 0 || now.Sub(ts[len(ts)-1]) >= l.window {
			delete(l.fails, n)
		}
	}
}
