package floorcmd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// floorUnderTest is Mosquitto with the shipped ACL and users, two simulated tables (t1
// and t2) and a console, each run in-process as tablectl runs them.
type floorUnderTest struct {
	broker   *mosquittotest.Broker
	users    map[string]string // the broker's
	url      string            // the console's
	log      *lockedBuffer     // the console's log (the audit)
	journals map[string]string
	stops    map[string]func() error
	client   *http.Client // the people's, when not the default one
}

func startFloor(t *testing.T, consoleArgs ...string) *floorUnderTest {
	t.Helper()
	acl, err := os.ReadFile("../../deploy/mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	f := &floorUnderTest{users: mosquittotest.Users(t, "../../deploy/mosquitto/passwd.example"), log: &lockedBuffer{},
		journals: map[string]string{}, stops: map[string]func() error{}}
	for _, table := range []string{"t1", "t2"} {
		f.users[table] = table + "-password" // each table logs in as its id
	}
	f.broker = mosquittotest.Start(t, mosquittotest.Config{Users: f.users, ACL: string(acl)})
	dir := t.TempDir()
	for _, table := range []string{"t1", "t2"} {
		f.journals[table] = filepath.Join(dir, "journal-"+table)
		ctx, cancel := context.WithCancel(context.Background())
		done, lines := startRun(t, ctx, "--simulate", "--pace", "150ms", "--round-pause", "0", "--simultaneous-window", "0", "--table", table, "--rules", "rws",
			"--journal", f.journals[table], "--mqtt", f.broker.URL(),
			"--mqtt-password", f.users[table], "--http", "")
		go func() {
			for range lines {
			}
		}()
		var once sync.Once
		var runErr error
		stop := func() error {
			once.Do(func() {
				cancel()
				select {
				case runErr = <-done:
				case <-time.After(30 * time.Second):
					runErr = fmt.Errorf("table did not stop")
				}
			})
			return runErr
		}
		f.stops[table] = stop
		t.Cleanup(func() { stop() })
	}

	usersFile := filepath.Join(dir, "users.json")
	for _, u := range []struct{ name, role, password, tables string }{
		{"D4", "dealer", "dealer-password-4", "t1,t2"},
		{"S17", "supervisor", "supervisor-pass-17", ""},
	} {
		args := []string{"console", "user", "add", u.name, "--role", u.role, "--users", usersFile, "--cost", "4"}
		if u.tables != "" {
			args = append(args, "--tables", u.tables)
		}
		if _, _, err := runCmd(t, u.password+"\n", args...); err != nil {
			t.Fatal(err)
		}
	}
	// The console takes its broker, password and users from its configuration file's
	// console section; startConsole's flags and consoleArgs override the rest.
	password := filepath.Join(dir, "console-mqtt-password")
	if err := os.WriteFile(password, []byte(f.users["console"]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "console.yaml")
	yaml := fmt.Sprintf("console:\n  mqtt:\n    url: %s\n    username: console\n    password_file: %s\n  users: %s\n  http: 127.0.0.1:1\n  idle: 1h\n",
		f.broker.URL(), password, usersFile)
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	f.url, f.log = startConsole(t, "", append([]string{"--config", conf}, consoleArgs...)...)
	return f
}

// startConsole runs "tablectl-floor console" in-process on a free loopback port with the
// users file (none given when "") and args, until the test ends; it returns the
// console's URL and its log.
func startConsole(t *testing.T, usersFile string, args ...string) (string, *lockedBuffer) {
	t.Helper()
	log := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		base := []string{"console", "--http", "127.0.0.1:0", "--command-timeout", "10s"}
		if usersFile != "" {
			base = append(base, "--users", usersFile)
		}
		args := append(base, args...)
		err := Run(ctx, args, cli.Stdio{In: strings.NewReader(""), Out: pw, Err: log})
		pw.Close()
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("console: %v", err)
		}
	})
	url := ""
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if addr, ok := strings.CutPrefix(sc.Text(), "console: http://"); ok {
			url = "http://" + strings.TrimSuffix(strings.Fields(addr)[0], "/")
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if url == "" {
		t.Fatalf("the console did not say where it serves; log:\n%s", log)
	}
	return url, log
}

// centralConsole runs a console with --central on the central broker of the bridged
// scale test (TLS with a client certificate) and logs a supervisor in.
func centralConsole(t *testing.T, central *mosquittotest.Broker) *person {
	t.Helper()
	usersFile := filepath.Join(t.TempDir(), "users.json")
	if _, _, err := runCmd(t, "supervisor-pass-17\n", "console", "user", "add", "S17", "--role", "supervisor", "--users", usersFile, "--cost", "4"); err != nil {
		t.Fatal(err)
	}
	cert, key := central.ClientCert("console")
	url, log := startConsole(t, usersFile, "--central", "--mqtt", central.TLSURL(), "--mqtt-ca", central.CAFile(),
		"--mqtt-cert", cert, "--mqtt-key", key)
	f := &floorUnderTest{url: url, log: log}
	p, code := f.login(t, "S17", "supervisor-pass-17")
	if code != 200 {
		t.Fatalf("console login: %d", code)
	}
	return p
}

// checkFloor waits until GET /api/tables lists every table of last (table id to the
// round of its last result) with that last round, in a pit of site lv1.
func checkFloor(t *testing.T, p *person, last map[string]uint32) {
	t.Helper()
	ts := p.waitTables(t, fmt.Sprintf("the %d tables with their last rounds", len(last)), func(ts []consoleTable) bool {
		n := 0
		for _, x := range ts {
			if r, ok := last[x.Table]; ok && x.LastResult != nil && x.LastResult.Round == r {
				n++
			}
		}
		return n == len(last)
	})
	if len(ts) != len(last) {
		t.Errorf("the console lists %d tables, want %d", len(ts), len(last))
	}
	_, body, _ := p.do(t, "GET", "/api/tables", "", nil)
	if strings.Count(body, `"site":"lv1","pit":"pit`) != len(last) {
		t.Errorf("not every table has its site and pit: %s", body)
	}
}

// person is one browser session on the console.
type person struct {
	url    string
	client *http.Client
	cookie *http.Cookie
	csrf   string
}

func (f *floorUnderTest) login(t *testing.T, user, password string) (*person, int) {
	t.Helper()
	p := &person{url: f.url, client: f.client}
	if p.client == nil {
		p.client = &http.Client{Timeout: 2 * time.Minute} // only bounds a failure: a login hashes a password, slow under -race on a busy machine
	}
	code, body, resp := p.do(t, "POST", "/api/login", `{"user":"`+user+`","password":"`+password+`"}`, nil)
	if code != 200 {
		return nil, code
	}
	var s struct{ CSRF string }
	json.Unmarshal([]byte(body), &s)
	p.csrf = s.CSRF
	for _, c := range resp.Cookies() {
		if c.Name == "tablectl_console" {
			p.cookie = c
		}
	}
	if p.cookie == nil || p.csrf == "" {
		t.Fatalf("login %s: no cookie or token: %s", user, body)
	}
	return p, code
}

func (p *person) do(t *testing.T, method, path, body string, hdr map[string]string) (int, string, *http.Response) {
	t.Helper()
	req, err := http.NewRequest(method, p.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if p.cookie != nil {
		req.AddCookie(p.cookie)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp
}

// command posts a command object for table with the session's CSRF token.
func (p *person) command(t *testing.T, table, body string) (int, string) {
	t.Helper()
	code, b, _ := p.do(t, "POST", "/api/tables/"+table+"/commands", body, map[string]string{"X-CSRF-Token": p.csrf})
	return code, b
}

// consoleTable is a table of GET /api/tables.
type consoleTable struct {
	Table  string `json:"table"`
	Online bool   `json:"online"`
	Rules  string `json:"rules"`
	Shoe   uint32 `json:"shoe"`
	Round  uint32 `json:"round"`
	Phase  string `json:"phase"`
	Held   *struct {
		ID        uint32   `json:"id"`
		Kind      string   `json:"kind"`
		Choices   []string `json:"choices"`
		DecidedBy string   `json:"decided_by"`
	} `json:"held"`
	Devices    map[string]string `json:"devices"`
	LastResult *struct {
		Shoe   uint32 `json:"shoe"`
		Round  uint32 `json:"round"`
		Winner string `json:"winner"`
	} `json:"last_result"`
}

func (p *person) tables(t *testing.T) []consoleTable {
	t.Helper()
	code, body, _ := p.do(t, "GET", "/api/tables", "", nil)
	if code != 200 {
		t.Fatalf("GET /api/tables: %d %s", code, body)
	}
	var out []consoleTable
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("GET /api/tables: %v: %s", err, body)
	}
	return out
}

// waitTables reads GET /api/tables until ok holds, again at each change the floor's
// event stream tells.
func (p *person) waitTables(t *testing.T, what string, ok func([]consoleTable) bool) []consoleTable {
	t.Helper()
	changed, stop := p.stream(t, "/api/events", "tables", "table")
	defer stop()
	guard := time.NewTimer(60 * time.Second) // only bounds a failure
	defer guard.Stop()
	for {
		ts := p.tables(t)
		if ok(ts) {
			return ts
		}
		select {
		case <-changed:
		case <-guard.C:
			b, _ := json.Marshal(ts)
			t.Fatalf("waiting for %s: tables %s", what, b)
		}
	}
}

// stream opens the console's event stream at path (/api/events, or a table's
// /api/tables/T/events) in p's session; the channel it returns is signalled at each
// event named one of names that comes after the call. stop closes the stream.
func (p *person) stream(t *testing.T, path string, names ...string) (events <-chan struct{}, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", p.url+path, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	req.AddCookie(p.cookie)
	client := *p.client
	client.Timeout = 0 // the stream lasts until stop
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("event stream %s: %v", path, err)
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("event stream %s: %d %s", path, resp.StatusCode, b)
	}
	// The console took the stream's session before it answered: what changes from here
	// on is sent on it.
	ch := make(chan struct{}, 1)
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 4<<20)
		name := ""
		for sc.Scan() {
			line := sc.Text()
			switch n, ok := strings.CutPrefix(line, "event: "); {
			case ok:
				name = n
			case line == "": // the end of an event
				if slices.Contains(names, name) {
					select {
					case ch <- struct{}{}:
					default:
					}
				}
				name = ""
			}
		}
	}()
	stop = func() {
		cancel()
		<-read
	}
	t.Cleanup(stop)
	return ch, stop
}

func find(ts []consoleTable, table string) (consoleTable, bool) {
	for _, x := range ts {
		if x.Table == table {
			return x, true
		}
	}
	return consoleTable{}, false
}

// reportWrongHand has the dealer report a wrong hand at table, again while no round is
// being dealt (the table refuses it between rounds), and returns the held irregularity.
func reportWrongHand(t *testing.T, dealer *person, table string) consoleTable {
	t.Helper()
	cards, stop := dealer.stream(t, "/api/tables/"+table+"/events", "card")
	defer stop()
	guard := time.NewTimer(60 * time.Second) // only bounds a failure
	defer guard.Stop()
	for {
		select {
		case <-cards: // a card before this report
		default:
		}
		code, body := dealer.command(t, table, `{"cmd":"report","kind":"wrong_hand","detail":"P2_dealt_to_banker"}`)
		if code != 200 {
			t.Fatalf("report: %d %s", code, body)
		}
		if strings.Contains(body, `"ok":true`) {
			if !strings.Contains(body, "irregularity-raised") || !strings.Contains(body, "wrong_hand") {
				t.Fatalf("report answered without the irregularity: %s", body)
			}
			break
		}
		// Between rounds the table refuses a report; a dealer sending again too often is
		// told busy (at most 5 a second), and sends again as the reply says. Either way the
		// dealer reports again once the next card is out.
		retry := strings.Contains(body, "no round is being dealt") || strings.Contains(body, `"error":"busy: `)
		if !retry {
			t.Fatalf("report refused: %s", body)
		}
		select {
		case <-cards:
		case <-guard.C:
			t.Fatalf("report refused, and no card came: %s", body)
		}
	}
	ts := dealer.waitTables(t, table+" held", func(ts []consoleTable) bool {
		x, ok := find(ts, table)
		return ok && x.Held != nil
	})
	x, _ := find(ts, table)
	return x
}

// TestConsoleAPIWithMosquitto runs the console against Mosquitto with the shipped ACL
// and two simulated tables: a dealer reports a wrong hand and the table is held; the
// dealer may not decide (403, nothing reaches the table); a supervisor decides
// "reconstructed" and the table goes on; the journal names the supervisor. A missing or
// wrong CSRF token, an expired session, a wrong password and a forged actor are each
// refused.
func TestConsoleAPIWithMosquitto(t *testing.T) {
	t.Parallel()
	f := startFloor(t, "--idle", "3s")
	// Every command the broker delivers to t2, as the table sees them.
	cmds := collect(t, f.broker.URL(), "t2", f.users["t2"], "tablectl/v1/t2/cmd/+")

	if _, code := f.login(t, "D4", "not-the-password"); code != 401 {
		t.Errorf("wrong password: %d", code)
	}
	dealer, code := f.login(t, "D4", "dealer-password-4")
	if code != 200 {
		t.Fatalf("dealer login: %d", code)
	}
	dealer.waitTables(t, "both tables online", func(ts []consoleTable) bool {
		a, ok1 := find(ts, "t1")
		b, ok2 := find(ts, "t2")
		return ok1 && ok2 && a.Online && b.Online && a.Rules == "rws" && b.Phase != ""
	})
	// A table's status goes out again as each device connects: the shoe may come after
	// the first one, on a busy machine.
	dealer.waitTables(t, "t1's shoe connected", func(ts []consoleTable) bool {
		x, ok := find(ts, "t1")
		return ok && x.Devices["shoe"] == "connected"
	})

	held := reportWrongHand(t, dealer, "t2")
	if held.Held.Kind != "wrong_hand" || held.Held.DecidedBy != "supervisor" || strings.Join(held.Held.Choices, ",") != "reconstructed,continue" {
		t.Errorf("held: %+v", held.Held)
	}
	if ts := dealer.tables(t); ts[0].Table != "t2" {
		t.Errorf("the held table is not first: %+v", ts)
	}
	decide := fmt.Sprintf(`{"cmd":"decide","irregularity":%d,"choice":"reconstructed"}`, held.Held.ID)

	// The dealer may not decide: refused before anything is published.
	code, body := dealer.command(t, "t2", decide)
	if code != 403 || !strings.Contains(body, `a dealer may not give \"decide\"`) {
		t.Errorf("dealer's decision: %d %s", code, body)
	}
	// Missing and wrong CSRF tokens.
	for _, token := range []string{"", "wrong-token"} {
		code, body, _ := dealer.do(t, "POST", "/api/tables/t2/commands", `{"cmd":"end_shoe"}`, map[string]string{"X-CSRF-Token": token})
		if code != 403 || !strings.Contains(body, "CSRF") {
			t.Errorf("CSRF token %q: %d %s", token, code, body)
		}
	}

	sup, code := f.login(t, "S17", "supervisor-pass-17")
	if code != 200 {
		t.Fatalf("supervisor login: %d", code)
	}
	// A forged actor is refused.
	forged := strings.Replace(decide, "{", `{"actor":"S99",`, 1)
	if code, body := sup.command(t, "t2", forged); code != 403 || !strings.Contains(body, "cannot name another") {
		t.Errorf("forged actor: %d %s", code, body)
	}
	code, body = sup.command(t, "t2", decide)
	if code != 200 || !strings.Contains(body, `"ok":true`) || !strings.Contains(body, "reconstructed by supervisor S17") || !strings.Contains(body, `"role":"supervisor"`) {
		t.Fatalf("supervisor's decision: %d %s", code, body)
	}
	// The table saw the supervisor's decision, and never the dealer's nor the forged one
	// (published before it, they would have arrived first).
	cmds.waitFor(t, `"cmd":"decide"`, `"actor":"S17"`)
	msgs := cmds.Messages()
	for _, m := range msgs {
		if strings.Contains(m, `"decide"`) && (strings.Contains(m, `"actor":"D4"`) || strings.Contains(m, "S99")) {
			t.Errorf("a refused decision reached the table: %s", m)
		}
		if strings.Contains(m, "end_shoe") {
			t.Errorf("a command without its CSRF token reached the table: %s", m)
		}
	}

	// The table goes on: no longer held, and a later round is settled.
	sup.waitTables(t, "t2 dealing on", func(ts []consoleTable) bool {
		x, _ := find(ts, "t2")
		return x.Held == nil && x.LastResult != nil && x.LastResult.Shoe == held.Shoe && x.LastResult.Round > held.Round
	})

	// An idle session expires (3 s here): the dealer's, unused while the supervisor worked.
	// The console run as tablectl runs it reads the system clock, and a session expires
	// unseen (it is checked when next used): no event tells it, so the test waits the
	// idle time out. The console's own tests expire sessions on a clock of their own.
	time.Sleep(3500 * time.Millisecond)
	if code, body := dealer.command(t, "t2", `{"cmd":"confirm"}`); code != 401 || !strings.Contains(body, "expired") {
		t.Errorf("expired session: %d %s", code, body)
	}
	if code, _, _ := sup.do(t, "POST", "/api/logout", "", map[string]string{"X-CSRF-Token": sup.csrf}); code != 401 {
		t.Errorf("the supervisor's session, idle too, was not expired: %d", code)
	}

	// The journal keeps the supervisor's name with the decision.
	if err := f.stops["t2"](); err != nil {
		t.Fatalf("t2: %v", err)
	}
	out, _, err := runTableCmd(t, "", "journal", "replay", f.journals["t2"])
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("irregularity-resolved #%d wrong_hand reconstructed by supervisor S17", held.Held.ID)
	if !strings.Contains(out, want) {
		t.Errorf("journal replay lacks %q", want)
	}
	audit := f.log.String()
	for _, want := range []string{"audit=login user=D4 role=dealer", "audit=login_failed user=D4", "audit=refused user=D4 role=dealer",
		"missing or wrong CSRF token", "audit=command user=S17 role=supervisor", "cmd=decide", "choice=reconstructed", "cannot name another"} {
		if !strings.Contains(audit, want) {
			t.Errorf("the audit log lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("console log:\n%s", audit)
	}
}
