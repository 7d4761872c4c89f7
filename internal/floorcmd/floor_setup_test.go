//go:build linux

package floorcmd

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/chromedp/chromedp"
	"github.com/tablectl/tablectl/internal/chromiumtest"
	"github.com/tablectl/tablectl/internal/cmdtest"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/internal/pgtest"
)

// floorNS is a mount namespace of the test's own in which /etc, /usr/local, /var/lib,
// /var/log and /run are overlays on the machine's: what is written there lands in the
// test's temporary directory, and the machine's own files are left as they were. So
// deploy/floor-setup.sh runs in it with the paths of a real server, as the docs give
// them.
type floorNS struct {
	pid    int
	holder *exec.Cmd
	shims  string // the test's systemctl and apt-get, and the services' pid files
}

// overlaid are the directories floorNS lays its overlays on.
var overlaid = []string{"/etc", "/usr/local", "/var/lib", "/var/log", "/run"}

func newFloorNS(t *testing.T) *floorNS {
	t.Helper()
	dir := t.TempDir()
	var sh strings.Builder
	sh.WriteString("set -e\n")
	for i, d := range overlaid {
		up, work := filepath.Join(dir, strconv.Itoa(i), "up"), filepath.Join(dir, strconv.Itoa(i), "work")
		for _, p := range []string{up, work} {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		fmt.Fprintf(&sh, "mount -t overlay overlay -o lowerdir=%s,upperdir=%s,workdir=%s %s\n", d, up, work, d)
	}
	sh.WriteString("echo ready\nexec sleep infinity\n")
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "--", "sh", "-c", sh.String())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("unshare: %v", err)
	}
	n := &floorNS{pid: cmd.Process.Pid, holder: cmd, shims: t.TempDir()}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// The line comes once every overlay is mounted; the pipe closes if the shell exits.
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("the namespace's overlays: %q\n%s", line, stderr.String())
	}
	return n
}

// command is name with args, to run in the namespace, in its root directory.
func (n *floorNS) command(name string, args ...string) *exec.Cmd {
	return n.commandIn("/", name, args...)
}

// commandIn is command, run in the directory dir.
func (n *floorNS) commandIn(dir, name string, args ...string) *exec.Cmd {
	return exec.Command("nsenter", append([]string{"--mount=/proc/" + strconv.Itoa(n.pid) + "/ns/mnt", "--wd=" + dir, "--", name}, args...)...)
}

// path is where the test reads and writes path of the namespace.
func (n *floorNS) path(p string) string { return "/proc/" + strconv.Itoa(n.pid) + "/root" + p }

func (n *floorNS) read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(n.path(p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// floorService is a process of the floor, started as its unit would start it.
type floorService struct {
	name string
	cmd  *exec.Cmd
	out  *lockedBuffer
	log  *lockedBuffer
	done chan struct{}
}

// start runs argv in the namespace with env, stopped with SIGTERM when the test ends.
func (n *floorNS) start(t *testing.T, name string, env []string, argv ...string) *floorService {
	t.Helper()
	s := &floorService{name: name, cmd: n.command(argv[0], argv[1:]...), out: &lockedBuffer{}, log: &lockedBuffer{}, done: make(chan struct{})}
	s.cmd.Env = env
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	go func() {
		_ = s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		// SIGTERM again every few seconds: one that comes as a process starts its loop
		// can go unseen. 60 s only bound a failure.
		for i := 0; ; i++ {
			_ = s.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-s.done:
				if t.Failed() {
					t.Logf("%s's log:\n%s%s", name, s.out, s.log)
				}
				return
			case <-time.After(5 * time.Second):
			}
			if i == 12 {
				_ = s.cmd.Process.Kill()
				<-s.done
				t.Errorf("%s did not stop on SIGTERM: killed", name)
				return
			}
		}
	})
	return s
}

// waitFor waits until the service's standard output or error holds want, or it exits.
func (s *floorService) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(2 * time.Minute) // only bounds a failure
	for {
		okOut, outWritten := s.out.Holds(want)
		okLog, logWritten := s.log.Holds(want)
		if okOut || okLog {
			return
		}
		select {
		case <-outWritten:
		case <-logWritten:
		case <-s.done:
			if ok, _ := s.log.Holds(want); !ok {
				t.Fatalf("%s exited before it said %q:\n%s%s", s.name, want, s.out, s.log)
			}
		case <-deadline:
			t.Fatalf("%s has not said %q:\n%s%s", s.name, want, s.out, s.log)
		}
	}
}

// startUnit starts the floor's unit name as systemd would: its User, its
// EnvironmentFile and its ExecStart, with $VAR of the environment split into words,
// and env over the file's (the test's ports).
func (n *floorNS) startUnit(t *testing.T, name string, env ...string) *floorService {
	t.Helper()
	unit := n.read(t, "/etc/systemd/system/"+name+".service")
	key := func(k string) string {
		m := regexp.MustCompile(`(?m)^` + k + `=(.*)$`).FindStringSubmatch(unit)
		if m == nil {
			t.Fatalf("%s.service has no %s", name, k)
		}
		return m[1]
	}
	vars := map[string]string{}
	envFile := strings.TrimPrefix(key("EnvironmentFile"), "-")
	text, err := os.ReadFile(n.path(envFile))
	if err != nil {
		t.Fatalf("%s's environment file: %v", name, err)
	}
	for _, kv := range append(strings.Split(strings.TrimSpace(string(text)), "\n"), env...) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	var argv []string
	for _, f := range strings.Fields(key("ExecStart")) {
		if v, ok := strings.CutPrefix(f, "$"); ok {
			argv = append(argv, strings.Fields(vars[v])...)
			continue
		}
		argv = append(argv, f)
	}
	account := key("User")
	environ := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TABLECTL_TEST_MAIN=1"}
	for k, v := range vars {
		environ = append(environ, k+"="+v)
	}
	s := n.start(t, name, environ, append([]string{"setpriv", "--reuid=" + account, "--regid=" + account, "--init-groups", "--"}, argv...)...)
	pidFile := filepath.Join(n.shims, name+".pid")
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(s.cmd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// freeLoopbackPort is a loopback TCP port that was free a moment ago.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// floorTables are the tables of the floor the test sets up, and floorRounds the rounds
// each deals.
var floorTables = []string{"pit3-t11", "pit3-t12"}

const floorRounds = 6

// TestFloorSetUpFromTheDocs sets a floor's server up from nothing with
// deploy/floor-setup.sh, the steps of docs/deploy.md, docs/archive.md and
// docs/console.md, in a mount namespace whose /etc, /usr/local, /var/lib, /var/log and
// /run are the test's own: Debian's Mosquitto with the ACL, TLS and passwords the
// script made, PostgreSQL with the roles it made (each logging in with its password),
// the archive and the console each started as its unit says, as its unit's user.
// systemd, apt-get and "runuser -u postgres" are the test's: the services start once
// the script is done, and the broker listens on ports of the test's.
//
// Two tables are enrolled on their Pis as docs/deploy.md says: one given to the script,
// the other added with deploy/floor-add-table.sh to the running floor, whose reloads
// take it. Each deals its rounds, logged in as its own id over TLS with the floor's CA,
// and ships its journal. The archive then holds every round: the report docs/archive.md
// gives, run as surveillance, has them; the console's first user logs in over HTTPS, and
// History in Chromium lists them.
//
// The script installs tablectl-floor and tablectl built without the race detector
// (cmdtest.Binary), as the tables and services it starts run them: the same commands run
// under the race detector in the test's process in the other tests.
func TestFloorSetUpFromTheDocs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a whole floor set up; the suite without -short runs it")
	}
	if os.Geteuid() != 0 {
		if os.Getenv(mosquittotest.RequireEnv) == "1" {
			t.Fatal("the floor's set-up runs as root, in a mount namespace of its own")
		}
		t.Skip("the floor's set-up runs as root, in a mount namespace of its own")
	}
	mosquittotest.Binary(t)
	for _, tool := range []string{"unshare", "nsenter", "setpriv", "runuser", "openssl", "psql", "mosquitto_passwd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pg := pgtest.StartWith(t, pgtest.Options{Passwords: true})
	n := newFloorNS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute) // only bounds a failure
	defer cancel()

	// Each table's Pi: enroll as docs/deploy.md says, its output kept in a file.
	pis := map[string]string{}
	for _, id := range floorTables {
		pi := filepath.Join(t.TempDir(), id)
		if err := os.MkdirAll(pi, 0o750); err != nil {
			t.Fatal(err)
		}
		out, _, err := runTableCmd(t, "", "enroll", "--table", id, "--journal", filepath.Join(pi, "journal"), "--password-file", filepath.Join(pi, "mqtt-password"))
		if err != nil {
			t.Fatalf("enroll %s: %v", id, err)
		}
		write(t, filepath.Join(pi, id+".enroll"), out)
		pis[id] = pi
	}

	// The test's systemctl notes each call, and sends a reload to the service's process
	// once the test started it. Its apt-get installs nothing: it checks that each
	// package named is installed.
	write(t, filepath.Join(n.shims, "systemctl"), fmt.Sprintf(`#!/bin/sh
echo "$*" >>%[1]s/systemctl.log
if [ "$1" = reload ] && [ -f %[1]s/"$2".pid ]; then kill -HUP "$(cat %[1]s/"$2".pid)"; fi
exit 0
`, n.shims))
	write(t, filepath.Join(n.shims, "apt-get"), fmt.Sprintf(`#!/bin/sh
echo "$*" >>%s/apt-get.log
[ "$1 $2" = "install -y" ] || { echo "apt-get: not install -y: $*" >&2; exit 2; }
shift 2
for p; do dpkg -s "$p" >/dev/null 2>&1 || { echo "apt-get: $p is not installed here" >&2; exit 1; }; done
`, n.shims))
	for _, f := range []string{"systemctl", "apt-get"} {
		if err := os.Chmod(filepath.Join(n.shims, f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	scriptEnv := append(os.Environ(), "TABLECTL_TEST_MAIN=1", "FLOOR_HOST=floor.casino.lan", "FIRST_USER=SM1",
		"FLOOR_BIN="+cmdtest.Binary(t, floorPkg), "BIN="+cmdtest.Binary(t, tablePkg), "SYSTEMCTL="+filepath.Join(n.shims, "systemctl"), "APT_GET="+filepath.Join(n.shims, "apt-get"),
		fmt.Sprintf("AS_POSTGRES=env PGHOST=127.0.0.1 PGPORT=%d PGUSER=tablectl PGDATABASE=postgres", pg.Port()))
	const firstPassword = "shift-manager-password-1"
	setup := n.commandIn(repo, "bash", "deploy/floor-setup.sh", filepath.Join(pis[floorTables[0]], floorTables[0]+".enroll"))
	setup.Env, setup.Stdin = scriptEnv, strings.NewReader(firstPassword+"\n")
	out, err := setup.CombinedOutput()
	if err != nil {
		t.Fatalf("deploy/floor-setup.sh: %v\n%s", err, out)
	}
	t.Logf("deploy/floor-setup.sh:\n%s", out)
	calls, _ := os.ReadFile(filepath.Join(n.shims, "systemctl.log"))
	if want := "daemon-reload\nrestart mosquitto\nreload mosquitto\nenable --now tablectl-archive\nreload mosquitto\nenable --now tablectl-console\nreload mosquitto\nreload tablectl-archive\n"; string(calls) != want {
		t.Errorf("the script's systemctl:\n%s\nwant:\n%s", calls, want)
	}
	for _, want := range []string{"/etc/tablectl/archive/archive.yaml: OK", "/etc/tablectl/console/console.yaml: OK"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the script did not print %q", want)
		}
	}

	// Mosquitto as Debian's unit starts it, on the test's ports.
	mqttPort, tlsPort, wsPort := freeLoopbackPort(t), freeLoopbackPort(t), freeLoopbackPort(t)
	conf := n.read(t, "/etc/mosquitto/conf.d/tablectl.conf")
	for from, to := range map[string]string{"listener 1883 127.0.0.1": fmt.Sprintf("listener %d 127.0.0.1", mqttPort),
		"listener 8883": fmt.Sprintf("listener %d 127.0.0.1", tlsPort), "listener 8884": fmt.Sprintf("listener %d 127.0.0.1", wsPort)} {
		if !strings.Contains(conf, "\n"+from+"\n") {
			t.Fatalf("tablectl.conf has no line %q", from)
		}
		conf = strings.Replace(conf, "\n"+from+"\n", "\n"+to+"\n", 1)
	}
	write(t, n.path("/etc/mosquitto/conf.d/tablectl.conf"), conf)
	mosq, err := user.Lookup("mosquitto")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(mosq.Uid)
	if err := os.MkdirAll(n.path("/run/mosquitto"), 0o740); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(n.path("/run/mosquitto"), uid, -1); err != nil {
		t.Fatal(err)
	}
	broker := n.start(t, "mosquitto", []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}, mosquittotest.Binary(t), "-c", "/etc/mosquitto/mosquitto.conf")
	write(t, filepath.Join(n.shims, "mosquitto.pid"), strconv.Itoa(broker.cmd.Process.Pid)+"\n")
	brokerURL := fmt.Sprintf("ssl://127.0.0.1:%d", tlsPort)
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	write(t, caFile, n.read(t, "/etc/tablectl/ca/ca.crt"))
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(n.read(t, "/etc/tablectl/ca/ca.crt"))) {
		t.Fatal("the floor's CA does not read")
	}
	// The broker logs in its first table once it has read the files the script wrote.
	// It says nothing the test can wait on but its log file, so the test tries to log in
	// until it is let in.
	firstPassword1, _ := os.ReadFile(filepath.Join(pis[floorTables[0]], "mqtt-password"))
	waitLogin(t, ctx, brokerURL, pool, floorTables[0], strings.TrimSpace(string(firstPassword1)))

	// The archive and the console, as their units start them.
	pgPort := fmt.Sprintf("PGPORT=%d", pg.Port())
	archiveSvc := n.startUnit(t, "tablectl-archive", pgPort, "TABLECTL_ARCHIVE_ARGS=--mqtt "+brokerURL)
	archiveSvc.waitFor(t, "archive floor: 1 table in /etc/tablectl/archive/keys")
	consolePort := freeLoopbackPort(t)
	consoleSvc := n.startUnit(t, "tablectl-console", pgPort, fmt.Sprintf("TABLECTL_CONSOLE_ARGS=--mqtt %s --http 127.0.0.1:%d", brokerURL, consolePort))
	consoleSvc.waitFor(t, fmt.Sprintf("console: https://127.0.0.1:%d/", consolePort))

	// The second table joins the running floor.
	add := n.commandIn(repo, "bash", "deploy/floor-add-table.sh", filepath.Join(pis[floorTables[1]], floorTables[1]+".enroll"))
	add.Env = scriptEnv
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("deploy/floor-add-table.sh: %v\n%s", err, out)
	}
	archiveSvc.waitFor(t, `"msg":"keys file reloaded","keys":"/etc/tablectl/archive/keys","tables":2,"added":["pit3-t12"]`)
	second, _ := os.ReadFile(filepath.Join(pis[floorTables[1]], "mqtt-password"))
	waitLogin(t, ctx, brokerURL, pool, floorTables[1], strings.TrimSpace(string(second)))

	// Both tables deal and ship, each logged in as its own id over TLS.
	var tables []*proc
	for _, id := range floorTables {
		password, _ := os.ReadFile(filepath.Join(pis[id], "mqtt-password"))
		tables = append(tables, startBuilt(t, tablePkg, "run", "--simulate", "--table", id, "--rounds", strconv.Itoa(floorRounds), "--pace", "0",
			"--round-pause", "0", "--journal", filepath.Join(pis[id], "journal"), "--http", "", "--mqtt", brokerURL, "--mqtt-ca", caFile,
			"--mqtt-password", strings.TrimSpace(string(password)), "--archive-ship"))
	}
	for i, p := range tables {
		select {
		case err := <-p.exited:
			if err != nil || strings.Contains(p.log.String(), "not all in the floor's archive") {
				t.Fatalf("table %s: %v\n%s", floorTables[i], err, p.log)
			}
		case <-ctx.Done():
			t.Fatalf("table %s did not end:\n%s", floorTables[i], p.log)
		}
	}

	// The report docs/archive.md gives, as surveillance.
	doc, err := os.ReadFile("../../docs/archive.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^sudo PGPASSFILE=(\S+) tablectl-floor report --archive (\S+) --table pit3-t12 --out pit3-t12\.html$`).FindStringSubmatch(string(doc))
	if m == nil {
		t.Fatal("docs/archive.md has no line 'sudo PGPASSFILE=... tablectl-floor report --archive ... --table pit3-t12 --out pit3-t12.html'")
	}
	for _, id := range floorTables {
		html := filepath.Join(t.TempDir(), id+".html")
		report := n.command("env", "PGPASSFILE="+m[1], pgPort, "TABLECTL_TEST_MAIN=1", "tablectl-floor", "report", "--archive", m[2], "--table", id, "--out", html)
		if out, err := report.CombinedOutput(); err != nil {
			t.Fatalf("the report of %s as surveillance: %v\n%s", id, err, out)
		}
		b, _ := os.ReadFile(html)
		own := filepath.Join(t.TempDir(), id+"-journal.html")
		if _, _, err := runTableCmd(t, "", "report", filepath.Join(pis[id], "journal"), "--out", own); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(own)
		checkFloorReport(t, id, string(b), string(want))
	}

	// The console's first user over HTTPS, and History in Chromium.
	base := fmt.Sprintf("https://127.0.0.1:%d", consolePort)
	client := &http.Client{Timeout: 2 * time.Minute, // only bounds a failure, as in login
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	f := &floorUnderTest{url: base, client: client}
	p, code := f.login(t, "SM1", firstPassword)
	if code != 200 {
		t.Fatalf("the first user's login: %d\n%s", code, consoleSvc.log)
	}
	code, body, _ := p.do(t, "GET", "/api/history/rounds?table="+strings.Join(floorTables, ","), "", nil)
	var page struct {
		Rounds []struct {
			Table string `json:"table"`
		} `json:"rounds"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &page) != nil || len(page.Rounds) != floorRounds*len(floorTables) {
		t.Fatalf("History: %d %s", code, body)
	}
	block, _ := pem.Decode([]byte(n.read(t, "/etc/tablectl/console/https.crt")))
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if err := cert.VerifyHostname("floor.casino.lan"); err != nil {
		t.Errorf("the console's certificate: %v", err)
	}
	bctx := chromiumtest.NewTrusting(t, 1600, 1000, cert)
	pageLogin(t, bctx, base, "SM1", firstPassword)
	browse(t, bctx, "History",
		chromedp.Navigate(base+"/history.html?table="+strings.Join(floorTables, "%2C")),
		waitJS(fmt.Sprintf(`document.body.dataset.ready === "1" && document.querySelectorAll(".round-row").length === %d`, floorRounds*len(floorTables))))
	rows := evalJS[[]string](t, bctx, `[...document.querySelectorAll(".round-row")].map((r) => r.cells[1].textContent)`)
	for _, id := range floorTables {
		if c := strings.Count(strings.Join(rows, " "), id); c != floorRounds {
			t.Errorf("History lists %d rounds of %s, want %d: %q", c, id, floorRounds, rows)
		}
	}
	screenshot(t, bctx, "floor-setup-history.png")
}

// waitLogin tries to log in to the broker as user until it is let in: a broker that
// read its password file again says so in its log alone. Each try is refused at once
// until then.
func waitLogin(t *testing.T, ctx context.Context, url string, pool *x509.CertPool, user, password string) {
	t.Helper()
	var last error
	for {
		opts := mqtt.NewClientOptions().AddBroker(url).SetClientID("floor-login-" + user).SetUsername(user).SetPassword(password).
			SetTLSConfig(&tls.Config{RootCAs: pool}).SetConnectTimeout(5 * time.Second)
		c := mqtt.NewClient(opts)
		tok := c.Connect()
		if tok.WaitTimeout(10*time.Second) && tok.Error() == nil {
			c.Disconnect(0)
			return
		}
		last = tok.Error()
		select {
		case <-ctx.Done():
			t.Fatalf("the broker does not let %s in: %v", user, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// checkFloorReport checks the report of a table the test dealt, from the archive: every
// round, and the bytes of the report of the table's own journal.
func checkFloorReport(t *testing.T, id, html, own string) {
	t.Helper()
	rounds := fmt.Sprintf("<div>Rounds<b>%d</b></div>", floorRounds)
	if !strings.Contains(html, id) || !strings.Contains(html, rounds) || strings.Count(html, `<td class="r-`) != floorRounds {
		t.Errorf("the report of %s does not hold its %d rounds:\n%.3000s", id, floorRounds, html)
	}
	if html != own {
		t.Errorf("the report of %s from the archive is not its journal's: %d bytes, the journal's %d", id, len(html), len(own))
	}
}
