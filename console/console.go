// Package console is tablectl's console: the web pages and JSON API with which dealers,
// pit supervisors and managers follow every table of the floor and give the table's
// commands, each person logged in under their own name and role.
//
// A Server keeps a picture of the floor built only from the tables' MQTT messages
// (docs/mqtt.md): the retained status, state and roadmap of every table, its last result
// and the irregularities of its shoe. The people and their roles come from a users file
// (LoadUsers, AddUser, RemoveUser) with bcrypt password hashes. A command given through
// the API is checked against the person's role and tables first, then published on the
// table's cmd/<role> topic with the person's name as its actor, and the table's reply is
// returned. Every login, refusal and command is logged for audit.
//
// The pages, their style sheet and script are embedded in the binary. docs/console.md
// says how to set a console up.
package console

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/tablectl/tablectl/alerts"
	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/internal/ratelog"
)

// Defaults of Options.
const (
	DefaultIdle           = 15 * time.Minute
	DefaultCommandTimeout = 10 * time.Second
	DefaultMaxFailures    = 5
	DefaultFailureWindow  = time.Minute
	DefaultLockFor        = 5 * time.Minute
	DefaultFailDelay      = time.Second
	// DefaultStreamsPerSession and DefaultStreams bound the event streams open at once,
	// for one session and in all: a page holds one or two.
	DefaultStreamsPerSession = 8
	DefaultStreams           = 2000
	DefaultHeartbeat         = 15 * time.Second
	DefaultArchiveLate       = 10 * time.Minute
)

// CookieName is the session cookie's name.
const CookieName = "tablectl_console"

const (
	maxBody     = 64 << 10
	streamBurst = 256
	floorTick   = 250 * time.Millisecond
)

//go:embed static
var static embed.FS

// Options configures a Server.
type Options struct {
	// Users are the people who may log in.
	Users *Users
	// Publisher sends commands to the broker.
	Publisher Publisher
	// Logger receives the audit log (every login, refusal and command) and the
	// console's own events; slog.Default() when nil.
	Logger *slog.Logger
	// Idle is how long a session may go unused before it expires; DefaultIdle when 0.
	Idle time.Duration
	// CommandTimeout bounds the wait for a table's reply; DefaultCommandTimeout when 0.
	CommandTimeout time.Duration
	// MaxFailures failed logins for one name within FailureWindow lock the name for
	// LockFor. Defaults DefaultMaxFailures, DefaultFailureWindow, DefaultLockFor.
	MaxFailures   int
	FailureWindow time.Duration
	LockFor       time.Duration
	// FailDelay is how long a failed login waits before it is answered;
	// DefaultFailDelay when 0, none when negative.
	FailDelay time.Duration
	// SecureCookie marks the session cookie Secure: set it when the console is served
	// over TLS.
	SecureCookie bool
	// StreamsPerSession and Streams bound the event streams open at once, for one
	// session and in all; one more is answered 429. DefaultStreamsPerSession and
	// DefaultStreams when 0.
	StreamsPerSession, Streams int
	// Hosts are the names browsers reach the console by (its certificate's names): a
	// request whose Host header names anything else, but an IP address or localhost, is
	// refused (a page of another site whose name was made to resolve to the console's
	// address must not read it: DNS rebinding).
	Hosts []string
	// LinkPending says the link to the broker is not up yet: the pages show the
	// tables' state as unknown, and commands are refused, until SetBroker(true, "").
	// Without it the console takes its Publisher to be connected.
	LinkPending bool
	// Heartbeat is how often an idle event stream is pinged and its session checked (an
	// expired session's page is told so); DefaultHeartbeat when 0.
	Heartbeat time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// History is the archive the History page searches; nil: the console has none, and
	// the page says so.
	History History
	// ArchiveLate: a table whose status says the archive lacks a record written longer
	// ago than this shows "not archived"; DefaultArchiveLate when 0.
	ArchiveLate time.Duration
	// Rulebooks are the rule sets the pages know (GET /api/rulebook): the rules each
	// cites, its irregularities, whether it offers Insurance; baccarat.Standard when nil.
	Rulebooks *baccarat.Registry
	// Alerts are the site's alert rules (docs/pit.md, "Alerts"); alerts.DefaultRules
	// when nil. AlertArchive is the id of the archive the alerts and their
	// acknowledgements are recorded with (api.DefaultArchiveID when empty); History, when
	// it is that archive's reader (AlertHistory), gives back those raised before a start.
	Alerts       *alerts.Rules
	AlertArchive string
}

// Server is the console: its API, pages and event streams. Create it with New, feed it
// every MQTT message of the tables with Ingest, serve Handler, and end it with Close.
type Server struct {
	opts     Options
	log      *slog.Logger
	usersMu  sync.RWMutex
	users    *Users
	sess     *sessions
	limit    *limiter
	floor    *floor
	wait     *waiter
	streams  *streams
	files    http.Handler
	quit     chan struct{}
	wg       sync.WaitGroup
	once     sync.Once
	dummyPwd []byte
	quiet    *ratelog.Limiter // thins the log of requests refused for their host or streams
	alerts   *alertBook
	// integrity holds the integrity alarms' acknowledgements not yet shown by the archive.
	integrity integrityAcks
	brokerMu  sync.Mutex
	broker    BrokerState
}

// New checks the options and returns a Server.
func New(opts Options) (*Server, error) {
	if opts.Users == nil {
		return nil, errors.New("console: no users")
	}
	if opts.Publisher == nil {
		return nil, errors.New("console: no publisher")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Idle == 0 {
		opts.Idle = DefaultIdle
	}
	if opts.CommandTimeout == 0 {
		opts.CommandTimeout = DefaultCommandTimeout
	}
	if opts.MaxFailures == 0 {
		opts.MaxFailures = DefaultMaxFailures
	}
	if opts.FailureWindow == 0 {
		opts.FailureWindow = DefaultFailureWindow
	}
	if opts.LockFor == 0 {
		opts.LockFor = DefaultLockFor
	}
	if opts.FailDelay == 0 {
		opts.FailDelay = DefaultFailDelay
	}
	if opts.StreamsPerSession == 0 {
		opts.StreamsPerSession = DefaultStreamsPerSession
	}
	if opts.Streams == 0 {
		opts.Streams = DefaultStreams
	}
	if opts.Heartbeat == 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	if opts.ArchiveLate == 0 {
		opts.ArchiveLate = DefaultArchiveLate
	}
	if opts.ArchiveLate < 0 || opts.Heartbeat < 0 || opts.Idle < 0 || opts.CommandTimeout < 0 || opts.MaxFailures < 0 || opts.FailureWindow < 0 || opts.LockFor < 0 ||
		opts.StreamsPerSession < 0 || opts.Streams < 0 {
		return nil, errors.New("console: a negative idle time, command timeout, failure count, window, lock time or stream limit")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rulebooks == nil {
		opts.Rulebooks = baccarat.Standard
	}
	rules := alerts.DefaultRules
	if opts.Alerts != nil {
		rules = *opts.Alerts
	}
	if err := rules.Check(); err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	if opts.AlertArchive == "" {
		opts.AlertArchive = api.DefaultArchiveID
	}
	if err := api.CheckArchiveID(opts.AlertArchive); err != nil {
		return nil, fmt.Errorf("console: alerts: %w", err)
	}
	sub, err := fs.Sub(static, "static")
	if err != nil {
		return nil, fmt.Errorf("console: embedded files: %w", err)
	}
	// Unknown names are checked against a hash of the users' cost, so that a wrong name
	// takes as long to refuse as a wrong password.
	cost := DefaultBcryptCost
	if l := opts.Users.List(); len(l) > 0 {
		if c, err := bcrypt.Cost([]byte(l[0].Hash)); err == nil {
			cost = c
		}
	}
	dummy, err := bcrypt.GenerateFromPassword([]byte("not a password of anyone"), cost)
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	s := &Server{
		opts:      opts,
		log:       opts.Logger.With("component", "console"),
		users:     opts.Users,
		sess:      newSessions(opts.Idle),
		limit:     newLimiter(opts.MaxFailures, opts.FailureWindow, opts.LockFor),
		floor:     newFloor(opts.Now, opts.ArchiveLate),
		wait:      newWaiter(),
		files:     http.FileServerFS(sub),
		quit:      make(chan struct{}),
		dummyPwd:  dummy,
		quiet:     ratelog.New(0, nil),
		alerts:    newAlertBook(rules),
		integrity: integrityAcks{pending: map[string]api.AlertAck{}},
	}
	if !opts.LinkPending {
		s.broker = BrokerState{Up: true}
	}
	s.streams = newStreams(s.floor, s.log, opts.StreamsPerSession, opts.Streams)
	s.floor.changed = s.streams.changed
	s.floor.reply = s.wait.deliver
	s.wg.Add(2)
	go s.sweep()
	go func() {
		defer s.wg.Done()
		s.streams.run(s.quit)
	}()
	return s, nil
}

// Ingest takes one MQTT message of a table (any topic under tablectl/v1/, or under
// casino/<site>/<pit>/tablectl/v1/ on a central broker). It never blocks for long: call
// it from the MQTT client's message handler. A message the console cannot use is logged
// and dropped. A message under a table id that is a service user's name
// (api.CheckTableUser) is dropped too, with one log line every few seconds.
func (s *Server) Ingest(topic string, payload []byte) {
	err := s.floor.ingest(topic, payload)
	if err == nil {
		s.roundEnded(topic, payload)
	}
	var nt *notTableError
	switch {
	case errors.As(err, &nt):
		// Any service user may publish under its own name: one line now and then.
		if ok, leftOut := s.quiet.Allow("not a table"); ok {
			s.log.Warn("ignoring messages under a table id that is a service user's", "error", err, "not_logged_since_last", leftOut)
		}
	case err != nil:
		s.log.Warn("ignoring an MQTT message", "error", err)
	}
}

// SetUsers replaces the users (after the file changed). The sessions of people no
// longer in it, or whose entry changed, end.
func (s *Server) SetUsers(us *Users) {
	s.usersMu.Lock()
	old := s.users
	s.users = us
	s.usersMu.Unlock()
	for _, u := range old.List() {
		nu, ok := us.Lookup(u.Name)
		if !ok || nu.Hash != u.Hash || nu.Role != u.Role || fmt.Sprint(nu.Tables, nu.Pits) != fmt.Sprint(u.Tables, u.Pits) {
			s.sess.dropUser(u.Name)
		}
	}
}

func (s *Server) lookup(name string) (User, bool) {
	s.usersMu.RLock()
	defer s.usersMu.RUnlock()
	return s.users.Lookup(name)
}

// Close ends every event stream and the console's goroutines.
func (s *Server) Close() error {
	s.once.Do(func() {
		close(s.quit)
		s.streams.close()
	})
	s.wg.Wait()
	return nil
}

// archiveTick is how often the tables' archive lateness is looked at again.
const archiveTick = 15 * time.Second

// sweep forgets expired sessions and old login failures once a minute, and tells the
// streams of each table whose archive grew late (or caught up) as time went on.
func (s *Server) sweep() {
	defer s.wg.Done()
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	late := time.NewTicker(archiveTick)
	defer late.Stop()
	check := time.NewTicker(alertTick)
	defer check.Stop()
	s.loadAlerts(context.Background())
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
			now := s.opts.Now()
			s.sess.sweep(now)
			s.limit.sweep(now)
		case <-late.C:
			// A table's archive grows late with time alone, no message telling it.
			for table, ev := range s.floor.lateChanged() {
				s.streams.changed(table, archiveEvent, ev)
			}
		case <-check.C:
			s.checkAlerts()
		}
	}
}

// Handler serves the API under /api/ and the pages.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/login", s.login)
	mux.HandleFunc("POST /api/logout", s.authed(true, s.logout))
	mux.HandleFunc("GET /api/session", s.authed(false, s.session))
	mux.HandleFunc("GET /api/commands", s.authed(false, s.commands))
	mux.HandleFunc("GET /api/tables", s.authed(false, s.tables))
	mux.HandleFunc("GET /api/tables/{table}", s.authed(false, s.table))
	mux.HandleFunc("GET /api/broker", s.authed(false, s.brokerEndpoint))
	mux.HandleFunc("GET /api/rulebook", s.authed(false, s.rulebookEndpoint))
	mux.HandleFunc("GET /api/events", s.authed(false, s.floorEvents))
	mux.HandleFunc("GET /api/alerts", s.authed(false, s.alertsEndpoint))
	mux.HandleFunc("GET /api/pit", s.authed(false, s.pitEndpoint))
	mux.HandleFunc("POST /api/alerts/ack", s.authed(true, s.ackEndpoint))
	mux.HandleFunc("GET /api/integrity", s.authed(false, s.integrityEndpoint))
	mux.HandleFunc("POST /api/integrity/ack", s.authed(true, s.integrityAckEndpoint))
	mux.HandleFunc("GET /api/tables/{table}/events", s.authed(false, s.tableEvents))
	mux.HandleFunc("POST /api/tables/{table}/commands", s.authed(true, s.command))
	mux.HandleFunc("GET /api/history/rounds", s.authed(false, s.historyRounds))
	mux.HandleFunc("GET /api/history/rounds.csv", s.authed(false, s.historyCSV))
	mux.HandleFunc("GET /api/history/rounds/{table}/{seq}", s.authed(false, s.historyRound))
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such API: "+r.Method+" "+r.URL.Path)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "the pages are read with GET")
			return
		}
		s.files.ServeHTTP(w, r)
	})
	return s.knownHost(securityHeaders(mux, s.opts.SecureCookie))
}

// knownHost refuses a request whose Host header is not one of the console's names
// (Options.Hosts), an IP address or localhost: a browser sends the name it resolved,
// so a page of another site whose name was made to resolve to the console's address
// (DNS rebinding) is refused, whatever cookies it could get.
func (s *Server) knownHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if name, _, err := net.SplitHostPort(host); err == nil {
			host = name
		}
		host = strings.TrimSuffix(strings.ToLower(host), ".")
		if host == "localhost" || net.ParseIP(strings.Trim(host, "[]")) != nil ||
			slices.ContainsFunc(s.opts.Hosts, func(n string) bool { return strings.EqualFold(n, host) }) {
			h.ServeHTTP(w, r)
			return
		}
		if ok, leftOut := s.quiet.Allow("host " + host); ok {
			s.audit("refused", "remote", remote(r), "request", r.Method+" "+r.URL.Path, "reason", "unknown Host header",
				"host", r.Host, "not_logged_since_last", leftOut)
		}
		writeError(w, http.StatusMisdirectedRequest, fmt.Sprintf("the console is not served as %q: use one of its names (console.hosts)", r.Host))
	})
}

// securityHeaders sets the headers every response carries: nothing loads from
// elsewhere, no page may frame the console, nothing is cached; under TLS, browsers are
// told to keep to HTTPS.
func securityHeaders(h http.Handler, tls bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		if tls {
			hd.Set("Strict-Transport-Security", "max-age=31536000")
		}
		hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// writeJSON answers status with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"cannot encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// readJSON reads a JSON request body of at most maxBody bytes; a request that does not
// say it is JSON is refused (a form posted from another site cannot say so).
func readJSON(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "the request body must be JSON (Content-Type: application/json)")
		return nil, false
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes or unreadable", maxBody))
		return nil, false
	}
	return b, true
}

// sameOrigin refuses a request whose Origin header names another site.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

func remote(r *http.Request) string { return r.RemoteAddr }

// login checks a name and password and starts a session.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		s.audit("login_refused", "remote", remote(r), "reason", "request from another origin", "origin", r.Header.Get("Origin"))
		writeError(w, http.StatusForbidden, "the request comes from another site")
		return
	}
	body, ok := readJSON(w, r)
	if !ok {
		return
	}
	var req struct {
		User     string `json:"user"`
		Password string `json:"password"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.User == "" {
		writeError(w, http.StatusBadRequest, `want {"user":...,"password":...}`)
		return
	}
	if checkName(req.User) != nil {
		req.User = "(invalid name)" // not echoed into the log as given
	}
	now := s.opts.Now()
	if until, locked := s.limit.lockedUntil(req.User, now); locked {
		secs := int(until.Sub(now).Seconds()) + 1
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		s.audit("login_locked", "user", req.User, "remote", remote(r), "until", until.UTC().Format(time.RFC3339))
		writeError(w, http.StatusTooManyRequests, fmt.Sprintf("too many failed logins for %s: try again in %d seconds", req.User, secs))
		return
	}
	u, known := s.lookup(req.User)
	hash := s.dummyPwd
	if known {
		hash = []byte(u.Hash)
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(req.Password)) != nil || !known {
		n, locked := s.limit.fail(req.User, now)
		s.audit("login_failed", "user", req.User, "remote", remote(r), "failures", n, "locked", locked)
		if s.opts.FailDelay > 0 {
			select {
			case <-time.After(s.opts.FailDelay):
			case <-r.Context().Done():
			}
		}
		writeError(w, http.StatusUnauthorized, "wrong user name or password")
		return
	}
	s.limit.succeed(req.User)
	ss := s.sess.create(u, now)
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: ss.token, Path: "/", HttpOnly: true,
		Secure: s.opts.SecureCookie, SameSite: http.SameSiteStrictMode})
	s.audit("login", "user", u.Name, "role", u.Role, "remote", remote(r))
	writeJSON(w, http.StatusOK, s.sessionView(*ss))
}

// sessionInfo is what a page learns of its session.
type sessionInfo struct {
	User   string   `json:"user"`
	Role   string   `json:"role"`
	Tables []string `json:"tables,omitempty"`
	Pits   []string `json:"pits,omitempty"`
	CSRF   string   `json:"csrf"`
	// History says the History page's state for the person: "open" (the console has an
	// archive and the role reads it), "role" (the role does not) or "none" (no archive).
	History string `json:"history"`
	// Integrity says the Integrity page's state for the person, as History does: "open"
	// for a supervisor or above, or surveillance, on a console with an archive.
	Integrity string `json:"integrity"`
	// Now is the console's time (RFC 3339, to the second): the History page opens on the
	// hour before it, whatever the clock of the screen.
	Now string `json:"now"`
}

func (s *Server) sessionView(ss session) sessionInfo {
	h := "open"
	switch {
	case s.opts.History == nil:
		h = "none"
	case !mayReadHistory(ss.user):
		h = "role"
	}
	in := "open"
	switch {
	case s.integrityHistory() == nil:
		in = "none"
	case !mayWatchIntegrity(ss.user):
		in = "role"
	}
	return sessionInfo{User: ss.user.Name, Role: ss.user.Role, Tables: ss.user.Tables, Pits: ss.user.Pits, CSRF: ss.csrf, History: h,
		Integrity: in, Now: s.opts.Now().UTC().Truncate(time.Second).Format(time.RFC3339)}
}

// authed wraps h: the request needs a live session, and when it changes anything also
// the session's CSRF token in X-CSRF-Token and no foreign Origin.
func (s *Server) authed(changes bool, h func(http.ResponseWriter, *http.Request, session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(CookieName)
		if err != nil {
			writeError(w, http.StatusUnauthorized, "not logged in")
			return
		}
		ss, ok := s.sess.get(c.Value, s.opts.Now())
		if !ok {
			writeError(w, http.StatusUnauthorized, "the session has expired or ended: log in again")
			return
		}
		if changes {
			if !sameToken(r.Header.Get("X-CSRF-Token"), ss.csrf) {
				s.audit("refused", "user", ss.user.Name, "role", ss.user.Role, "remote", remote(r),
					"request", r.Method+" "+r.URL.Path, "reason", "missing or wrong CSRF token")
				writeError(w, http.StatusForbidden, "missing or wrong CSRF token (X-CSRF-Token)")
				return
			}
			if !sameOrigin(r) {
				s.audit("refused", "user", ss.user.Name, "remote", remote(r), "request", r.Method+" "+r.URL.Path,
					"reason", "request from another origin", "origin", r.Header.Get("Origin"))
				writeError(w, http.StatusForbidden, "the request comes from another site")
				return
			}
		}
		h(w, r, ss)
	}
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request, ss session) {
	s.sess.drop(ss.token)
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: s.opts.SecureCookie, SameSite: http.SameSiteStrictMode})
	s.audit("logout", "user", ss.user.Name, "remote", remote(r))
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) session(w http.ResponseWriter, _ *http.Request, ss session) {
	writeJSON(w, http.StatusOK, s.sessionView(ss))
}

func (s *Server) tables(w http.ResponseWriter, _ *http.Request, _ session) {
	writeJSON(w, http.StatusOK, s.floor.summaries())
}

func (s *Server) table(w http.ResponseWriter, r *http.Request, _ session) {
	d, ok := s.floor.detail(r.PathValue("table"))
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("table %s has published nothing the console has seen", r.PathValue("table")))
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// command checks a person's command, publishes it on the table's cmd/<role> topic with
// the person's name as actor, and answers the table's reply.
func (s *Server) command(w http.ResponseWriter, r *http.Request, ss session) {
	table := r.PathValue("table")
	u := ss.user
	body, ok := readJSON(w, r)
	if !ok {
		return
	}
	refused := func(status int, reason string, c api.Command) {
		s.audit("refused", "user", u.Name, "role", u.Role, "remote", remote(r), "table", table, "cmd", c.Cmd,
			"irregularity", c.Irregularity, "choice", c.Choice, "reason", reason)
		writeError(w, status, reason)
	}
	c, err := parseCommand(body)
	if err != nil {
		refused(statusOf(err), err.Error(), c)
		return
	}
	prefix, pit, h, known := s.floor.commandTarget(table)
	if !known {
		refused(http.StatusNotFound, fmt.Sprintf("table %s has published nothing the console has seen", table), c)
		return
	}
	if err := authorize(u, c, table, pit, h); err != nil {
		refused(statusOf(err), err.Error(), c)
		return
	}
	if b := s.brokerState(); !b.Up {
		refused(http.StatusServiceUnavailable, notSent(table, b), c)
		return
	}
	c.Actor = u.Name
	if c.ID == "" {
		c.ID = newCommandID()
	}
	payload, err := json.Marshal(c)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if _, _, err := api.ParseCommand(u.Role, payload); err != nil {
		refused(http.StatusBadRequest, err.Error(), c) // as the table would refuse it
		return
	}
	replies, done, err := s.wait.expect(table, c.ID)
	if err != nil {
		refused(statusOf(err), err.Error(), c)
		return
	}
	defer done()
	topic := prefix + api.CommandLevel + "/" + u.Role
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.CommandTimeout)
	defer cancel()
	if err := s.opts.Publisher.Publish(ctx, topic, payload); err != nil {
		s.audit("command_failed", "user", u.Name, "role", u.Role, "table", table, "cmd", c.Cmd, "id", c.ID, "error", err.Error())
		b := s.brokerState()
		if b.Up {
			b = BrokerState{Since: s.opts.Now().UTC().Format(time.RFC3339), Error: err.Error()}
		}
		writeError(w, http.StatusServiceUnavailable, notSent(table, b))
		return
	}
	s.audit("command", "user", u.Name, "role", u.Role, "remote", remote(r), "table", table, "topic", topic,
		"cmd", c.Cmd, "id", c.ID, "irregularity", c.Irregularity, "choice", c.Choice, "kind", c.Kind)
	select {
	case rep := <-replies:
		var res struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		_ = json.Unmarshal(rep, &res)
		s.audit("command_answered", "user", u.Name, "table", table, "cmd", c.Cmd, "id", c.ID, "ok", res.OK, "error", res.Error)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(append(rep, '\n'))
	case <-ctx.Done():
		s.audit("command_unanswered", "user", u.Name, "table", table, "cmd", c.Cmd, "id", c.ID, "timeout", s.opts.CommandTimeout.String())
		writeError(w, http.StatusGatewayTimeout, fmt.Sprintf("table %s did not answer command %s within %v", table, c.ID, s.opts.CommandTimeout))
	}
}

// notSent says that a command for table was not sent, the broker being out of reach.
func notSent(table string, b BrokerState) string {
	since := ""
	if t, err := time.Parse(time.RFC3339Nano, b.Since); err == nil {
		since = " since " + t.UTC().Format("15:04:05 UTC")
	}
	why := ""
	if b.Error != "" {
		why = " (" + b.Error + ")"
	}
	return fmt.Sprintf("not sent: the console cannot reach its broker%s%s, so the command did not reach table %s; give it again once the broker is back", since, why, table)
}

// audit logs one audited event.
func (s *Server) audit(event string, attrs ...any) {
	s.log.Info("audit: "+event, append([]any{"audit", event}, attrs...)...)
}
