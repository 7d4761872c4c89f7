package floorcmd

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/journal"
)

// procGuard bounds a wait on a process: it only bounds a failure.
const procGuard = 60 * time.Second

// waitOutput waits until buf, p's output or log, holds want n times; it fails the test
// if p exits first.
func (p *proc) waitOutput(t *testing.T, buf *lockedBuffer, want string, n int) {
	t.Helper()
	guard := time.NewTimer(procGuard)
	defer guard.Stop()
	for {
		// The wake first, then the count: a write between them wakes the wait.
		written := buf.Written()
		if strings.Count(buf.String(), want) >= n {
			return
		}
		select {
		case <-written:
		case <-p.done:
			t.Fatalf("exited before %d × %q: %v\n%s", n, want, p.cmd.ProcessState, p.log.String())
		case <-guard.C:
			t.Fatalf("no %d × %q:\n%s", n, want, p.log.String())
		}
	}
}

// signal sends sig to p.
func (p *proc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// stopped sends p SIGTERM and fails the test unless it exits with status 0.
func (p *proc) stopped(t *testing.T) {
	t.Helper()
	p.signal(t, syscall.SIGTERM)
	select {
	case err := <-p.exited:
		if err != nil {
			t.Fatalf("on SIGTERM: %v\n%s", err, p.log.String())
		}
	case <-time.After(procGuard):
		t.Fatalf("did not stop on SIGTERM:\n%s", p.log.String())
	}
}

// alive fails the test if p has exited.
func (p *proc) alive(t *testing.T, when string) {
	t.Helper()
	select {
	case <-p.done:
		t.Fatalf("exited %s: %v\n%s", when, p.cmd.ProcessState, p.log.String())
	default:
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key into dir, as the console's
// tls_cert and tls_key, and returns a pool that trusts it.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "pit-console.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "https.crt"), filepath.Join(dir, "https.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// dropStreams opens the floor's event stream of p over HTTP/2 n times and drops each
// once it is live, as a browser leaving a page does (or curl --http2 --max-time 1).
func dropStreams(t *testing.T, p *person, n int) {
	t.Helper()
	for i := range n {
		ctx, cancel := context.WithTimeout(context.Background(), procGuard)
		req, _ := http.NewRequestWithContext(ctx, "GET", p.url+"/api/events", nil)
		req.AddCookie(p.cookie)
		resp, err := p.client.Do(req)
		if err != nil {
			cancel()
			t.Fatalf("event stream %d: %v", i+1, err)
		}
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		cancel()
		resp.Body.Close()
		if resp.ProtoMajor != 2 || resp.StatusCode != 200 || line != "retry: 1000\n" || err != nil {
			t.Fatalf("event stream %d: %s %d, first line %q, %v", i+1, resp.Proto, resp.StatusCode, line, err)
		}
	}
}

// TestReloads: SIGHUP is a reload for the console's server and the archive alone; a
// table, and the console's user subcommands, stop on it.
func TestReloads(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"run", "--simulate"}, false},
		{[]string{"watch"}, false},
		{[]string{"console"}, true},
		{[]string{"console", "--config", "console.yaml"}, true},
		{[]string{"console", "user", "add", "D4"}, false},
		{[]string{"archive", "--config", "archive.yaml"}, true},
	} {
		if got := reloads(c.args); got != c.want {
			t.Errorf("reloads(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// TestConsoleReloadsOnSIGHUP runs the console as its unit does, a process with a
// configuration file that serves HTTPS (tls_cert, tls_key) with HTTP/2. Event streams
// dropped over and over leave it serving. A person removed with 'console user remove'
// is still served until SIGHUP; after it the console still serves, the person removed
// is refused, their session too, and another person is served on. A users file with a
// fault is not taken: SIGHUP then keeps the users of before. SIGTERM stops it with
// status 0.
func TestConsoleReloadsOnSIGHUP(t *testing.T) {
	t.Parallel()
	acl, err := os.ReadFile("../../deploy/mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	users := mosquittotest.Users(t, "../../deploy/mosquitto/passwd.example")
	b := mosquittotest.Start(t, mosquittotest.Config{Users: users, ACL: string(acl)})
	dir := t.TempDir()
	usersFile := filepath.Join(dir, "users.json")
	for _, u := range []struct{ name, role, password string }{
		{"D4", "dealer", "dealer-password-4"},
		{"S17", "supervisor", "supervisor-pass-17"},
	} {
		if _, _, err := runCmd(t, u.password+"\n", "console", "user", "add", u.name, "--role", u.role, "--users", usersFile, "--cost", "4"); err != nil {
			t.Fatal(err)
		}
	}
	password := filepath.Join(dir, "mqtt-password")
	if err := os.WriteFile(password, []byte(users["console"]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, key, pool := selfSigned(t, dir)
	conf := filepath.Join(dir, "console.yaml")
	yaml := fmt.Sprintf("console:\n  mqtt:\n    url: %s\n    username: console\n    password_file: %s\n  users: %s\n  http: 127.0.0.1:0\n  tls_cert: %s\n  tls_key: %s\n",
		b.URL(), password, usersFile, cert, key)
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, "console", "--config", conf)
	p.waitOutput(t, p.out, "console: https://", 1)
	addr := strings.Fields(strings.SplitN(p.out.String(), "console: https://", 2)[1])[0]
	client := &http.Client{Timeout: procGuard, Transport: &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections()
	f := &floorUnderTest{url: "https://" + strings.TrimSuffix(addr, "/"), client: client}
	login := func(user, pw string) *person {
		t.Helper()
		who, code := f.login(t, user, pw)
		if code != 200 {
			t.Fatalf("login %s: %d", user, code)
		}
		return who
	}
	session := func(who *person) int {
		t.Helper()
		code, _, resp := who.do(t, "GET", "/api/session", "", nil)
		if resp.ProtoMajor != 2 {
			t.Errorf("GET /api/session came over %s, not HTTP/2", resp.Proto)
		}
		return code
	}
	s17, d4 := login("S17", "supervisor-pass-17"), login("D4", "dealer-password-4")
	dropStreams(t, s17, 40)
	p.alive(t, "with event streams dropped over HTTP/2")

	if _, _, err := runCmd(t, "", "console", "user", "remove", "D4", "--users", usersFile); err != nil {
		t.Fatal(err)
	}
	if code := session(d4); code != 200 {
		t.Fatalf("D4 removed from the file, before SIGHUP: session %d, want 200", code)
	}
	p.signal(t, syscall.SIGHUP)
	p.waitOutput(t, p.log, `msg="users file reloaded"`, 1)
	p.alive(t, "after SIGHUP")
	if code := session(d4); code != 401 {
		t.Errorf("D4's session after the reload: %d, want 401", code)
	}
	if _, code := f.login(t, "D4", "dealer-password-4"); code != 401 {
		t.Errorf("D4's login after the reload: %d, want 401", code)
	}
	if code := session(s17); code != 200 {
		t.Errorf("S17's session after the reload: %d, want 200", code)
	}
	dropStreams(t, s17, 8)

	// A users file others may read is refused: the users of before stay.
	if err := os.Chmod(usersFile, 0o644); err != nil {
		t.Fatal(err)
	}
	p.signal(t, syscall.SIGHUP)
	p.waitOutput(t, p.log, `msg="users file not reloaded: the users of before are kept"`, 1)
	if code := session(s17); code != 200 {
		t.Errorf("S17's session after a reload refused: %d, want 200", code)
	}
	p.alive(t, "after a reload refused")
	p.stopped(t)
}

// TestArchiveReloadsOnSIGHUP runs the archive as its unit does, a process with a
// configuration file. Its keys file names no table at first: the table's batch is not
// stored. The table added, SIGHUP: the archive serves on, and the table's batches are
// stored. The table taken away, SIGHUP: its next batch is not stored, and what is held
// of it stays; put back, it is stored from where it was. A keys file with a fault is not
// taken: the tables of before stay. SIGTERM stops it with status 0.
func TestArchiveReloadsOnSIGHUP(t *testing.T) {
	t.Parallel()
	// marker is a second table, always in the keys file: the archive takes the batches
	// in the order the broker passed them on, so once a batch of marker published after
	// one of table is held, that one was taken too.
	const table, marker = "pit3-bac07", "pit3-bac99"
	b := mosquittotest.Start(t, mosquittotest.Config{Users: map[string]string{"archive-floor": "a-pw", table: "t-pw", marker: "m-pw"}, ACL: shippedACL(t)})
	dir := t.TempDir()
	pub, err := os.ReadFile(filepath.Join(archivedTable, "public.key"))
	if err != nil {
		t.Fatal(err)
	}
	markerPub, markerKey, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	keys, pw, db := filepath.Join(dir, "keys"), filepath.Join(dir, "mqtt-password"), filepath.Join(dir, "archive.db")
	writeKeys := func(text string) {
		t.Helper()
		text += marker + " " + journal.PublicKeyString(markerPub) + "\n"
		if err := os.WriteFile(keys, []byte("# the floor's tables\n"+text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeKeys("")
	if err := os.WriteFile(pw, []byte("a-pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "archive.yaml")
	if err := os.WriteFile(conf, []byte("archive:\n  mqtt:\n    url: "+b.URL()+"\n    username: archive-floor\n    password_file: "+pw+
		"\n  db: "+db+"\n  keys: "+keys+"\n  client_id: archive-reload-test\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	// The table: its held messages, in order, and batches of its records.
	held := make(chan api.ArchiveHeld, 100)
	topics, _ := api.NewTopics(table)
	tc := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL()).SetClientID("archive-reload-table").
		SetUsername(table).SetPassword("t-pw"))
	if tok := tc.Connect(); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	defer tc.Disconnect(100)
	if tok := tc.Subscribe(topics.ArchiveHeld("floor"), 1, func(_ mqtt.Client, m mqtt.Message) {
		var h api.ArchiveHeld
		if json.Unmarshal(m.Payload(), &h) == nil {
			held <- h
		}
	}); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	j, _, err := journal.Open(filepath.Join(archivedTable, "journal"), journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var records []api.ArchiveRecord
	for r, err := range j.Records(1) {
		if err != nil {
			t.Fatal(err)
		}
		records = append(records, api.ArchiveRecord{Seq: r.Seq, Hash: api.Hash(r.Hash), Data: r.Data})
	}
	j.Close()
	publish := func(c mqtt.Client, id string, key ed25519.PrivateKey, from, to uint64) {
		t.Helper()
		batch := api.ArchiveBatch{Schema: api.Schema, Table: id, Archive: "floor", Written: to, Records: records[from-1 : to]}
		signBatch(t, key, &batch)
		payload, _ := json.Marshal(batch)
		tp, _ := api.NewTopics(id)
		if tok := c.Publish(tp.ArchiveRecords("floor"), 1, false, payload); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
			t.Fatalf("publish: %v", tok.Error())
		}
	}
	send := func(from, to uint64) { t.Helper(); publish(tc, table, archivedKey(t), from, to) }
	mc := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL()).SetClientID("archive-reload-marker").
		SetUsername(marker).SetPassword("m-pw"))
	if tok := mc.Connect(); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	defer mc.Disconnect(100)
	markerHeld := make(chan uint64, 100)
	markers, _ := api.NewTopics(marker)
	if tok := mc.Subscribe(markers.ArchiveHeld("floor"), 1, func(_ mqtt.Client, m mqtt.Message) {
		var h api.ArchiveHeld
		if json.Unmarshal(m.Payload(), &h) == nil {
			markerHeld <- h.Seq
		}
	}); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	markerSeq := uint64(0)
	// taken waits until the archive took every batch published before: marker's next
	// batch, published after them, is held.
	taken := func() {
		t.Helper()
		markerSeq++
		publish(mc, marker, markerKey, markerSeq, markerSeq)
		for {
			select {
			case seq := <-markerHeld:
				if seq == markerSeq {
					return
				}
			case <-time.After(procGuard):
				t.Fatalf("marker's batch %d not held", markerSeq)
			}
		}
	}
	p := startProc(t, "archive", "--config", conf)
	// nextHeld is the next held message; it fails the test if the archive exits first.
	nextHeld := func(what string) api.ArchiveHeld {
		t.Helper()
		select {
		case h := <-held:
			return h
		case <-p.done:
			t.Fatalf("the archive exited before a held message %s: %v\n%s", what, p.cmd.ProcessState, p.log.String())
		case <-time.After(procGuard):
			t.Fatalf("no held message %s:\n%s", what, p.log.String())
		}
		return api.ArchiveHeld{}
	}
	heldAt := func(seq uint64) {
		t.Helper()
		if h := nextHeld(fmt.Sprintf("at %d", seq)); h.Seq != seq {
			t.Fatalf("held at %d, want %d", h.Seq, seq)
		}
	}
	reloaded := 0
	reload := func() {
		t.Helper()
		p.signal(t, syscall.SIGHUP)
		reloaded++
		p.waitOutput(t, p.log, `msg="keys file reloaded"`, reloaded)
		p.alive(t, "after SIGHUP")
	}
	p.waitOutput(t, p.log, "MQTT connected and subscribed", 1)

	send(1, 10)
	p.waitOutput(t, p.log, "a table the keys file does not name", 1)
	writeKeys(table + " " + string(pub))
	reload()
	if !strings.Contains(p.log.String(), "added=["+table+"] removed=[]") {
		t.Errorf("the reload does not say the table added:\n%s", p.log.String())
	}
	send(1, 10)
	heldAt(10)

	// Taken away, its batch is not stored; put back, the batch after it waits for it.
	writeKeys("")
	reload()
	send(11, 20)
	taken() // 11 to 20 taken while the table is not in the keys file
	writeKeys(table + " " + string(pub))
	reload()
	send(21, 30)
	heldAt(10) // 21 to 30 wait: 11 to 20 were not stored
	send(11, 20)
	heldAt(30)

	// A bad keys file is not taken: the table is stored on.
	writeKeys(table + " not-a-key\n")
	p.signal(t, syscall.SIGHUP)
	p.waitOutput(t, p.log, `msg="keys file not reloaded: the tables of before are kept"`, 1)
	send(31, 40)
	heldAt(40)
	p.stopped(t)
	out, _, err := runCmd(t, "", "export", "--archive", db, "--table", table, filepath.Join(dir, "exported"))
	if err != nil || !strings.Contains(out, "40 records (to 40)") {
		t.Fatalf("export: %v\n%s", err, out)
	}
}
