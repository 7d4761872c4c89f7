package console

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/alerts"
)

// clock is a test clock moved by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fakeTable stands in for the broker and the tables: it records what is published and,
// when answer is set, answers each command on the table's reply topic as a table would.
type fakeTable struct {
	mu        sync.Mutex
	published []published
	srv       *Server
	answer    func(topic string, cmd map[string]any) (string, []byte)
}

type published struct {
	topic   string
	payload string
}

func (f *fakeTable) Publish(_ context.Context, topic string, payload []byte) error {
	f.mu.Lock()
	f.published = append(f.published, published{topic, string(payload)})
	answer := f.answer
	f.mu.Unlock()
	if answer != nil {
		var cmd map[string]any
		json.Unmarshal(payload, &cmd)
		if rt, rp := answer(topic, cmd); rt != "" {
			go f.srv.Ingest(rt, rp)
		}
	}
	return nil
}

func (f *fakeTable) sent() []published {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]published(nil), f.published...)
}

// testConsole is a Server with D4 (dealer at t1), S17 (supervisor) and a test clock.
type testConsole struct {
	srv   *Server
	http  *httptest.Server
	clock *clock
	table *fakeTable
	log   *bytes.Buffer
}

func newTestConsole(t *testing.T) *testConsole {
	t.Helper()
	return newTestConsoleWith(t, nil, nil)
}

// newTestConsoleWith is newTestConsole publishing through pub (nil: the fakeTable), with
// M1 (pit manager) among the users besides when pub is given, and with options changed by
// set (when not nil).
func newTestConsoleWith(t *testing.T, pub Publisher, set func(*Options)) *testConsole {
	t.Helper()
	path := filepath.Join(t.TempDir(), "users.json")
	addTestUser(t, path, User{Name: "D4", Role: "dealer", Tables: []string{"t1"}}, "dealer-password-4")
	addTestUser(t, path, User{Name: "S17", Role: "supervisor"}, "supervisor-pass-17")
	if pub != nil {
		addTestUser(t, path, User{Name: "M1", Role: "pit_manager"}, "pit-manager-pass-1")
	}
	us, err := LoadUsers(path)
	if err != nil {
		t.Fatal(err)
	}
	tc := &testConsole{clock: &clock{t: time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)}, table: &fakeTable{}, log: &bytes.Buffer{}}
	var logMu sync.Mutex
	lw := writerFunc(func(p []byte) (int, error) { logMu.Lock(); defer logMu.Unlock(); return tc.log.Write(p) })
	if pub == nil {
		pub = tc.table
	}
	// The wait for a table's reply bounds a failure only: a reply that comes, however
	// late on a busy machine, is taken (TestCommandNotAnsweredIs504NamingTheTable sets
	// its own).
	// No alert rule unless the test sets its own: the rules are checked on a real
	// ticker, and an alert recorded would be one more message published.
	opts := Options{Users: us, Publisher: pub, Now: tc.clock.now, Idle: 10 * time.Minute,
		FailDelay: -1, CommandTimeout: 60 * time.Second, Logger: slog.New(slog.NewTextHandler(lw, nil)), Alerts: &alerts.Rules{}}
	if set != nil {
		set(&opts)
	}
	tc.srv, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	tc.table.srv = tc.srv
	tc.http = httptest.NewServer(tc.srv.Handler())
	t.Cleanup(func() {
		tc.srv.Close()
		tc.http.Close()
	})
	return tc
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// agent is one browser: its cookie and CSRF token.
type agent struct {
	tc     *testConsole
	cookie *http.Cookie
	csrf   string
}

func (tc *testConsole) do(t *testing.T, method, path, body string, hdr map[string]string, cookie *http.Cookie) (int, string, *http.Response) {
	t.Helper()
	req, _ := http.NewRequest(method, tc.http.URL+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp
}

func (tc *testConsole) login(t *testing.T, user, password string) *agent {
	t.Helper()
	code, body, resp := tc.do(t, "POST", "/api/login", `{"user":"`+user+`","password":"`+password+`"}`, nil, nil)
	if code != 200 {
		t.Fatalf("login %s: %d %s", user, code, body)
	}
	var s sessionInfo
	json.Unmarshal([]byte(body), &s)
	a := &agent{tc: tc, csrf: s.CSRF}
	for _, c := range resp.Cookies() {
		if c.Name == CookieName {
			a.cookie = c
		}
	}
	if a.cookie == nil || s.CSRF == "" || s.User != user {
		t.Fatalf("login %s: cookie %v, body %s", user, a.cookie, body)
	}
	return a
}

func (a *agent) post(t *testing.T, path, body string) (int, string) {
	t.Helper()
	code, b, _ := a.tc.do(t, "POST", path, body, map[string]string{"X-CSRF-Token": a.csrf}, a.cookie)
	return code, b
}

func (a *agent) get(t *testing.T, path string) (int, string) {
	t.Helper()
	code, b, _ := a.tc.do(t, "GET", path, "", nil, a.cookie)
	return code, b
}

func TestLoginCookieAndCSRF(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	code, body, resp := tc.do(t, "POST", "/api/login", `{"user":"D4","password":"dealer-password-4"}`, nil, nil)
	if code != 200 {
		t.Fatalf("login: %d %s", code, body)
	}
	sc := resp.Header.Get("Set-Cookie")
	for _, want := range []string{CookieName + "=", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(sc, want) {
			t.Errorf("Set-Cookie %q lacks %s", sc, want)
		}
	}
	if strings.Contains(sc, "Secure") {
		t.Errorf("Set-Cookie %q is Secure without TLS", sc)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", csp)
	}
	a := tc.login(t, "D4", "dealer-password-4")
	if code, body := a.get(t, "/api/session"); code != 200 || !strings.Contains(body, `"role":"dealer"`) {
		t.Errorf("session: %d %s", code, body)
	}
	// Logging out needs the token.
	for _, hdr := range []map[string]string{nil, {"X-CSRF-Token": "not-the-token"}} {
		if code, body, _ := tc.do(t, "POST", "/api/logout", "", hdr, a.cookie); code != 403 || !strings.Contains(body, "CSRF") {
			t.Errorf("logout with CSRF header %v: %d %s", hdr, code, body)
		}
	}
	// Another site's origin is refused even with the token.
	if code, _, _ := tc.do(t, "POST", "/api/logout", "", map[string]string{"X-CSRF-Token": a.csrf, "Origin": "https://evil.example"}, a.cookie); code != 403 {
		t.Errorf("logout from another origin: %d", code)
	}
	// A login posted as a form (as another site could) is refused.
	if code, _, _ := tc.do(t, "POST", "/api/login", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, nil); code != 415 {
		t.Errorf("form login: %d", code)
	}
	if code, _ := a.post(t, "/api/logout", ""); code != 204 {
		t.Errorf("logout: %d", code)
	}
	if code, _ := a.get(t, "/api/tables"); code != 401 {
		t.Errorf("tables after logout: %d", code)
	}
	if code, _, _ := tc.do(t, "GET", "/api/tables", "", nil, nil); code != 401 {
		t.Errorf("tables without a session: %d", code)
	}
	if !strings.Contains(tc.log.String(), "audit=login user=D4") || !strings.Contains(tc.log.String(), "audit=logout user=D4") {
		t.Errorf("audit log lacks the login and logout:\n%s", tc.log)
	}
}

func TestWrongPasswordsLockTheName(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	for i := 0; i < DefaultMaxFailures; i++ {
		code, body, _ := tc.do(t, "POST", "/api/login", `{"user":"S17","password":"wrong"}`, nil, nil)
		if code != 401 || !strings.Contains(body, "wrong user name or password") {
			t.Fatalf("failure %d: %d %s", i+1, code, body)
		}
	}
	// Locked now: even the right password is refused, and the answer says for how long.
	code, body, resp := tc.do(t, "POST", "/api/login", `{"user":"S17","password":"supervisor-pass-17"}`, nil, nil)
	if code != 429 || !strings.Contains(body, "too many failed logins for S17") || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("locked login: %d %s", code, body)
	}
	// Another name is not locked.
	tc.login(t, "D4", "dealer-password-4")
	tc.clock.add(DefaultLockFor + time.Second)
	tc.login(t, "S17", "supervisor-pass-17")
	// An unknown name fails like a wrong password.
	if code, body, _ := tc.do(t, "POST", "/api/login", `{"user":"nobody","password":"x"}`, nil, nil); code != 401 || !strings.Contains(body, "wrong user name or password") {
		t.Errorf("unknown name: %d %s", code, body)
	}
	if !strings.Contains(tc.log.String(), "audit=login_failed user=S17") || !strings.Contains(tc.log.String(), "audit=login_locked user=S17") {
		t.Errorf("audit log lacks the failures and the lock:\n%s", tc.log)
	}
}

func TestFailuresSpreadOverMoreThanAMinuteDoNotLock(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	for i := 0; i < 2*DefaultMaxFailures; i++ {
		tc.do(t, "POST", "/api/login", `{"user":"S17","password":"wrong"}`, nil, nil)
		tc.clock.add(DefaultFailureWindow / 4)
	}
	tc.login(t, "S17", "supervisor-pass-17")
}

func TestIdleSessionExpires(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	a := tc.login(t, "S17", "supervisor-pass-17")
	tc.clock.add(9 * time.Minute)
	if code, _ := a.get(t, "/api/tables"); code != 200 {
		t.Fatalf("after 9 minutes: %d", code)
	}
	tc.clock.add(9 * time.Minute) // used 9 minutes ago: still alive
	if code, _ := a.get(t, "/api/tables"); code != 200 {
		t.Fatalf("9 minutes after the last use: %d", code)
	}
	tc.clock.add(10*time.Minute + time.Second)
	if code, body := a.get(t, "/api/tables"); code != 401 || !strings.Contains(body, "expired") {
		t.Fatalf("after the idle time: %d %s", code, body)
	}
	if code, _ := a.post(t, "/api/tables/t1/commands", `{"cmd":"confirm"}`); code != 401 {
		t.Errorf("command on an expired session: %d", code)
	}
	if n := len(tc.table.sent()); n != 0 {
		t.Errorf("%d commands published", n)
	}
}

// TestSetUsersEndsTheSessionsOfPeopleRemoved: after the users file changes, the
// sessions of people no longer in it, or whose entry changed, end; the others go on.
func TestSetUsersEndsTheSessionsOfPeopleRemoved(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	dealer := tc.login(t, "D4", "dealer-password-4")
	sup := tc.login(t, "S17", "supervisor-pass-17")
	path := filepath.Join(t.TempDir(), "users.json")
	s17, _ := tc.srv.lookup("S17")
	addTestUser(t, path, User{Name: "X1", Role: "dealer"}, "another-password")
	us, err := LoadUsers(path)
	if err != nil {
		t.Fatal(err)
	}
	us.list = append(us.list, s17) // S17 unchanged, D4 removed
	tc.srv.SetUsers(us)
	if code, _ := dealer.get(t, "/api/session"); code != 401 {
		t.Errorf("D4, removed, still has a session: %d", code)
	}
	if code, _ := sup.get(t, "/api/session"); code != 200 {
		t.Errorf("S17's session ended: %d", code)
	}
	if code, _, _ := tc.do(t, "POST", "/api/login", `{"user":"D4","password":"dealer-password-4"}`, nil, nil); code != 401 {
		t.Errorf("D4 can still log in: %d", code)
	}
}
