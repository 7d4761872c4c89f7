package floorcmd

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/cmdtest"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/internal/pgtest"
	"github.com/tablectl/tablectl/internal/tablecmd"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// e2eShip is the flag that makes the tables ship their journals; the end-to-end test
// fails without it.
var e2eShip = "--archive-ship"

// The commands' packages, for cmdtest.Binary.
const (
	floorPkg = "github.com/tablectl/tablectl/cmd/tablectl-floor"
	tablePkg = "github.com/tablectl/tablectl/cmd/tablectl"
)

// proc is a command of tablectl-floor or tablectl run as its own process, so a test can
// kill it.
type proc struct {
	cmd    *exec.Cmd
	exited chan error
	done   chan struct{} // closed once it exited
	log    *lockedBuffer // its standard error
	out    *lockedBuffer // its standard output
}

// startProc runs tablectl-floor with args as a child process; it is killed when the
// test ends.
func startProc(t *testing.T, args ...string) *proc {
	t.Helper()
	return startProcOf(t, Name, args...)
}

// startTableProc runs tablectl with args as a child process, as startProc does.
func startTableProc(t *testing.T, args ...string) *proc {
	t.Helper()
	return startProcOf(t, tablecmd.Name, args...)
}

// startProcOf runs the program name (tablectl-floor or tablectl) with args: the test
// binary stands in for it (TestMain).
func startProcOf(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	return startBin(t, os.Args[0], []string{"TABLECTL_TEST_MAIN=" + name}, args...)
}

// startBuilt runs the command of pkg with args, built without the race detector
// (cmdtest.Binary), as startProc does. The end-to-end test runs four such processes at
// once, twice: under the race detector they took most of the package's CPU. The same
// commands run in the test's process, with the race detector, in the other tests.
func startBuilt(t *testing.T, pkg string, args ...string) *proc {
	t.Helper()
	return startBin(t, cmdtest.Binary(t, pkg), nil, args...)
}

// startBin runs bin with args and env added to the test's environment.
func startBin(t *testing.T, bin string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{exited: make(chan error, 1), done: make(chan struct{}), log: &lockedBuffer{}, out: &lockedBuffer{}}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stderr, p.cmd.Stdout = p.log, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		close(p.done)
		p.exited <- err
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// kill kills the process with SIGKILL and waits for it.
func (p *proc) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
}

// heldWatch keeps the latest archive/held message of every table.
type heldWatch struct {
	mu      sync.Mutex
	held    map[string]api.ArchiveHeld
	changed chan struct{} // closed and replaced at each message
}

func watchHeld(t *testing.T, url, user, password string) *heldWatch {
	t.Helper()
	w := &heldWatch{held: map[string]api.ArchiveHeld{}, changed: make(chan struct{})}
	n := nextClient()
	filter := api.ArchiveHeldFilter(api.DefaultArchiveID)
	opts := mqtt.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("c%d-e2e-held", n)).
		SetUsername(user).SetPassword(password).SetAutoReconnect(true).SetMaxReconnectInterval(200 * time.Millisecond).
		SetConnectRetry(true).SetConnectRetryInterval(200 * time.Millisecond)
	// The broker restarts in the test: subscribe again at every connect; the retained
	// held messages come again with it.
	opts.SetOnConnectHandler(func(c mqtt.Client) {
		c.Subscribe(filter, 1, func(_ mqtt.Client, m mqtt.Message) {
			var h api.ArchiveHeld
			if err := json.Unmarshal(m.Payload(), &h); err != nil {
				t.Errorf("held message on %s does not read: %v", m.Topic(), err)
				return
			}
			w.mu.Lock()
			w.held[h.Table] = h
			close(w.changed)
			w.changed = make(chan struct{})
			w.mu.Unlock()
		})
	})
	c := mqtt.NewClient(opts)
	if tok := c.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("held watch: connect: %v", tok.Error())
	}
	t.Cleanup(func() { c.Disconnect(50) })
	return w
}

// wait waits until ok holds of the held message of table, or ctx ends.
func (w *heldWatch) wait(t *testing.T, ctx context.Context, table, what string, ok func(api.ArchiveHeld) bool, logs ...*lockedBuffer) api.ArchiveHeld {
	t.Helper()
	return w.waitUnless(t, ctx, nil, table, what, ok, logs...)
}

// waitUnless is wait, which also ends, returning false, once stop is closed.
func (w *heldWatch) waitUnless(t *testing.T, ctx context.Context, stop <-chan struct{}, table, what string, ok func(api.ArchiveHeld) bool, logs ...*lockedBuffer) api.ArchiveHeld {
	t.Helper()
	for {
		w.mu.Lock()
		h, seen := w.held[table]
		ch := w.changed
		w.mu.Unlock()
		if seen && ok(h) {
			return h
		}
		select {
		case <-ch:
		case <-stop:
			return h
		case <-ctx.Done():
			var all strings.Builder
			for _, l := range logs {
				all.WriteString(l.String())
			}
			t.Fatalf("table %s: no held message %s; the last: %+v\n%s", table, what, h, all.String())
		}
	}
}

// heldIn reports whether the journal in dir leaves its table held for an irregularity,
// or ends in a record still being written.
func heldIn(t *testing.T, dir string) bool {
	t.Helper()
	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		return true // a record being written: read again once it is
	}
	defer j.Close()
	ctl, _, err := table.ReplayRecords(j, func(uint64, table.Entry, []round.Effect, *round.Controller) {})
	if err != nil || ctl == nil {
		return true
	}
	return ctl.State().Held.ID != 0
}

// TestArchiveEndToEnd: on SQLite and on PostgreSQL, three simulated tables ship their
// journals through Debian's Mosquitto, with the shipped ACL, to one tablectl-floor archive.
// Mid-run the archive is killed (SIGKILL) and started again, the broker is restarted,
// and a table is killed and started again on its journal. At the end the archive holds
// every record of each table once and in order: the journal exported from it is the
// table's, record for record, and verifies intact with the table's key; its reports are
// the table's own, byte for byte, also once the table's journal is deleted. A forged
// record and a rolled-back journal's records are then raised as alarms in the held
// message, naming the table and the place, and nothing held changes.
func TestArchiveEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the longest run of the archive's tests; the suite without -short runs it")
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel() // each its own broker, database and tables
			dir := t.TempDir()
			dsn := filepath.Join(dir, "archive.db")
			if engine == "postgres" {
				dsn = pgtest.Start(t).NewDatabase(t)
			}
			archiveEndToEnd(t, dir, dsn)
		})
	}
}

func archiveEndToEnd(t *testing.T, dir, dsn string) {
	// One identity per table at the broker: each logs in as its id.
	users := map[string]string{"archive-floor": "a-pw", "pitsystem": "p-pw",
		"e2e-bac01": "t1-pw", "e2e-bac02": "t2-pw", "e2e-bac03": "t3-pw"}
	acl, err := api.MosquittoACL(api.ACLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := mosquittotest.Start(t, mosquittotest.Config{Users: users, ACL: string(acl), Persistence: true})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute) // a guard against a hang, not a measure
	defer cancel()

	// Three tables, each with its journal and its key, made before the archive starts so
	// the keys file lists them.
	type table struct {
		id, journal, key string
		seed             int
		run              *proc
	}
	tables := []*table{{id: "e2e-bac01", seed: 3}, {id: "e2e-bac02", seed: 5}, {id: "e2e-bac03", seed: 7}}
	var keys strings.Builder
	for _, tb := range tables {
		tb.journal = filepath.Join(dir, tb.id, "journal")
		if err := os.MkdirAll(filepath.Dir(tb.journal), 0o750); err != nil {
			t.Fatal(err)
		}
		if _, _, err := journal.LoadOrCreateKey(journal.DefaultKeyPath(tb.journal)); err != nil {
			t.Fatal(err)
		}
		out, _, err := runTableCmd(t, "", "key", "show", "--journal", tb.journal)
		if err != nil {
			t.Fatalf("key show: %v", err)
		}
		tb.key = strings.TrimSpace(out)
		fmt.Fprintf(&keys, "%s %s\n", tb.id, tb.key)
	}
	keysFile := filepath.Join(dir, "keys")
	if err := os.WriteFile(keysFile, []byte(keys.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	held := watchHeld(t, b.URL(), "pitsystem", users["pitsystem"])
	startArchive := func() *proc {
		p := startBuilt(t, floorPkg, "archive", "--mqtt", b.URL(), "--mqtt-password", users["archive-floor"], "--db", dsn, "--keys", keysFile,
			"--client-id", "archive-e2e")
		for {
			ok, written := p.log.Holds("MQTT connected and subscribed")
			if ok {
				break
			}
			select {
			case err := <-p.exited:
				t.Fatalf("tablectl-floor archive exited: %v\n%s", err, p.log.String())
			case <-ctx.Done():
				t.Fatalf("tablectl-floor archive did not connect:\n%s", p.log.String())
			case <-written:
			}
		}
		return p
	}
	arch := startArchive()
	const rounds = 80
	startTable := func(tb *table) {
		args := append([]string{"run", "--simulate", "--decks", "1", "--pace", "15ms", "--round-pause", "0",
			"--rounds", strconv.Itoa(rounds), "--seed", strconv.Itoa(tb.seed), "--table", tb.id, "--journal", tb.journal,
			"--http", "", e2eShip, "--mqtt", b.URL(), "--mqtt-user", tb.id, "--mqtt-password", users[tb.id]}, e2eDealers...)
		tb.run = startBuilt(t, tablePkg, args...)
	}
	for _, tb := range tables {
		startTable(tb)
	}
	logs := func() []*lockedBuffer {
		l := []*lockedBuffer{arch.log}
		for _, tb := range tables {
			l = append(l, tb.run.log)
		}
		return l
	}
	// progress waits until the archive holds more of every table than it did, or the
	// table has ended (having waited for the archive to hold all it wrote; checked below).
	progress := func(what string) {
		t.Helper()
		for _, tb := range tables {
			held.mu.Lock()
			before := held.held[tb.id].Seq
			held.mu.Unlock()
			held.waitUnless(t, ctx, tb.run.done, tb.id, what, func(h api.ArchiveHeld) bool { return h.Seq > before }, logs()...)
		}
	}
	progress("with records")
	for _, tb := range tables {
		held.mu.Lock()
		h := held.held[tb.id]
		held.mu.Unlock()
		if h.Seq == 0 {
			t.Fatalf("table %s ended and the archive holds none of its records\n%s\n%s", tb.id, arch.log.String(), tb.run.log.String())
		}
	}

	// A table killed and started again on its journal. A copy of its journal as it was
	// killed is kept: it is rolled back below.
	killed := tables[1]
	select {
	case <-killed.run.done:
		t.Fatalf("table %s ended before it was killed: give it more rounds\n%s", killed.id, killed.run.log.String())
	default:
	}
	// It is killed where it is not held. Killed while held, for a card its shoe could not
	// read, it would start held as its journal left it, for a person to decide, and so
	// would the copy of its journal dealt on below. It is stopped (SIGSTOP) and its
	// journal read; held, it goes on until its log says more, and is stopped again.
	for stops := 1; ; stops++ {
		if err := pause(killed.run.cmd.Process); err != nil {
			t.Fatal(err)
		}
		if !heldIn(t, killed.journal) {
			if stops > 1 {
				t.Logf("table %s was held at %d stops before it was killed", killed.id, stops-1)
			}
			break
		}
		written := killed.run.log.Written()
		if err := resume(killed.run.cmd.Process); err != nil {
			t.Fatal(err)
		}
		select {
		case <-written:
		case <-killed.run.done:
			t.Fatalf("table %s ended before it was killed: give it more rounds\n%s", killed.id, killed.run.log.String())
		case <-ctx.Done():
			t.Fatalf("table %s stayed held:\n%s", killed.id, killed.run.log.String())
		}
	}
	killed.run.kill(t)
	rolledBack := filepath.Join(dir, "rolled-back", "journal")
	if out, err := exec.Command("cp", "-a", filepath.Dir(killed.journal), filepath.Dir(rolledBack)).CombinedOutput(); err != nil {
		t.Fatalf("copy the journal: %v\n%s", err, out)
	}
	startTable(killed)
	progress("after the table's restart")

	// The archive killed and started again.
	arch.kill(t)
	arch = startArchive()
	progress("after the archive's restart")

	// The broker restarted.
	b.Restart()
	progress("after the broker's restart")
	if !strings.Contains(arch.log.String(), "MQTT connection lost") {
		t.Errorf("the archive did not see the broker go:\n%s", arch.log.String())
	}

	// The tables end cleanly; the archive catches up with each.
	for _, tb := range tables {
		select {
		case err := <-tb.run.exited:
			if err != nil {
				t.Fatalf("table %s: %v\n%s", tb.id, err, tb.run.log.String())
			}
		case <-ctx.Done():
			t.Fatalf("table %s did not end\n%s", tb.id, tb.run.log.String())
		}
	}
	for _, tb := range tables {
		last, hash := cmdtest.JournalHead(t, tb.journal)
		h := held.wait(t, ctx, tb.id, fmt.Sprintf("at its last record %d", last),
			func(h api.ArchiveHeld) bool { return h.Seq == last }, logs()...)
		if journal.Hash(h.Hash) != hash || h.Alarms != 0 {
			t.Fatalf("table %s: held %+v, the journal ends with record %d %s", tb.id, h, last, hash)
		}
	}

	// Every record once and in order: the export is the journal, record for record; it
	// verifies intact; the reports from the archive are the journal's, byte for byte,
	// also once the journal is gone.
	formats := [][]string{{"--format", "html"}, {"--format", "csv"}, {"--format", "json"}}
	saved := map[string][]string{}
	records := map[string][]journal.Record{}
	for _, tb := range tables {
		records[tb.id] = cmdtest.JournalRecords(t, tb.journal)
		exported := filepath.Join(dir, "exported-"+tb.id)
		out, _, err := runCmd(t, "", "export", "--archive", dsn, "--table", tb.id, exported)
		if err != nil {
			t.Fatalf("export %s: %v\n%s", tb.id, err, out)
		}
		got := cmdtest.JournalRecords(t, exported)
		if len(got) != len(records[tb.id]) {
			t.Fatalf("table %s: the archive holds %d records, the journal %d", tb.id, len(got), len(records[tb.id]))
		}
		for i, r := range records[tb.id] {
			if g := got[i]; g.Seq != r.Seq || g.Hash != r.Hash || !bytes.Equal(g.Data, r.Data) {
				t.Fatalf("table %s: the archive's record %d is %d %s, the journal's %d %s", tb.id, i+1, g.Seq, g.Hash, r.Seq, r.Hash)
			}
		}
		out, _, err = runTableCmd(t, "", "journal", "verify", "--key", tb.key, exported)
		if err != nil || !strings.Contains(out, "result: intact") {
			t.Fatalf("journal verify of table %s's export: %v\n%s", tb.id, err, out)
		}
		for _, flags := range formats {
			want, _, err := runTableCmd(t, "", append([]string{"report", tb.journal}, flags...)...)
			if err != nil || len(want) < 500 {
				t.Fatalf("report %s %v: %v (%d bytes)", tb.id, flags, err, len(want))
			}
			saved[tb.id] = append(saved[tb.id], want)
		}
		if err := os.RemoveAll(tb.journal); err != nil {
			t.Fatal(err)
		}
	}
	reportsUnchanged := func(when string) {
		t.Helper()
		for _, tb := range tables {
			for i, flags := range formats {
				got, _, err := runCmd(t, "", append([]string{"report", "--archive", dsn, "--table", tb.id}, flags...)...)
				if err != nil || got != saved[tb.id][i] {
					t.Fatalf("%s: report %s %v from the archive (%d bytes, %v) is not the journal's (%d bytes)",
						when, tb.id, flags, len(got), err, len(saved[tb.id][i]))
				}
			}
		}
	}
	reportsUnchanged("the journals deleted")
	ids, jsonReports := []string{}, map[string]string{}
	for _, tb := range tables {
		ids, jsonReports[tb.id] = append(ids, tb.id), saved[tb.id][2]
	}
	checkPitFigures(t, dsn, ids, records, jsonReports)
	t.Logf("records held: %s %d, %s %d, %s %d", tables[0].id, len(records[tables[0].id]), tables[1].id,
		len(records[tables[1].id]), tables[2].id, len(records[tables[2].id]))

	// A rolled-back journal: the killed table's journal as it was killed, continued on its
	// own, so its records after that point differ from those the archive holds.
	cut, _ := cmdtest.JournalHead(t, rolledBack)
	if out, errs, err := runTableCmd(t, "", "run", "--simulate", "--decks", "1", "--pace", "0", "--round-pause", "0", "--rounds", "3",
		"--table", killed.id, "--journal", rolledBack, "--http", "", "--broker-listen", "127.0.0.1:0", "--broker-websocket", ""); err != nil {
		t.Fatalf("the rolled-back table: %v\n%s\n%s", err, out, errs)
	}
	rb := cmdtest.JournalRecords(t, rolledBack)
	held0 := records[killed.id]
	if uint64(len(rb)) <= cut || uint64(len(held0)) <= cut+3 || rb[cut].Hash == held0[cut].Hash {
		t.Fatalf("the rolled-back journal (%d records, cut at %d) does not diverge from the one held (%d)", len(rb), cut, len(held0))
	}
	// send publishes recs as table tb's batch, logged in as tb: signed with key when it
	// is not nil, as the table on that journal would; unsigned otherwise, as someone
	// with the table's broker password but not its key.
	send := func(tb string, key ed25519.PrivateKey, recs ...journal.Record) {
		t.Helper()
		n := nextClient()
		pub := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL()).SetClientID(fmt.Sprintf("c%d-e2e-send", n)).
			SetUsername(tb).SetPassword(users[tb]))
		if tok := pub.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
			t.Fatalf("connect: %v", tok.Error())
		}
		defer pub.Disconnect(50)
		bt := api.ArchiveBatch{Schema: api.Schema, Table: tb, Archive: api.DefaultArchiveID, Written: recs[len(recs)-1].Seq}
		for _, r := range recs {
			bt.Records = append(bt.Records, api.ArchiveRecord{Seq: r.Seq, Hash: api.Hash(r.Hash), Data: r.Data})
		}
		if key != nil {
			last := recs[len(recs)-1]
			c, err := journal.SignTable(key, tb, last.Seq, last.Hash)
			if err != nil {
				t.Fatal(err)
			}
			signed := messages.WireHead(c)
			bt.Signed = &signed
		}
		payload, _ := json.Marshal(bt)
		topics, _ := api.NewTopics(tb)
		if tok := pub.Publish(topics.ArchiveRecords(api.DefaultArchiveID), 1, false, payload); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
			t.Fatalf("publish: %v", tok.Error())
		}
	}
	// The rolled-back records from the cut on, as the table on that journal would send
	// them, signed with its key.
	rbKey, err := journal.LoadKey(journal.DefaultKeyPath(rolledBack))
	if err != nil {
		t.Fatal(err)
	}
	send(killed.id, rbKey, rb[cut:min(len(rb), int(cut)+3)]...)
	last := held0[len(held0)-1]
	h := held.wait(t, ctx, killed.id, "with the rollback's alarm", func(h api.ArchiveHeld) bool { return h.Alarms > 0 }, arch.log)
	if h.Table != killed.id || h.Seq != last.Seq || journal.Hash(h.Hash) != last.Hash || h.Alarm == nil || h.Alarm.Kind != "rollback" || h.Alarm.Seq <= cut ||
		!strings.Contains(h.Alarm.Reason, "record ") {
		t.Fatalf("held after a rolled-back journal's records: %+v alarm %+v", h, h.Alarm)
	}
	// A forged record appended to the first table's chain by someone who has its broker
	// password, not its key: it chains, and no signature of the table covers it.
	first := tables[0]
	fl := records[first.id][len(records[first.id])-1]
	data := []byte(`{"event":{"kind":"confirm","at":"2026-11-27T05:00:00Z","role":"dealer","actor":"MALLORY"}}`)
	send(first.id, nil, journal.Record{Seq: fl.Seq + 1, Hash: journal.ChainHash(fl.Hash, fl.Seq+1, data), Data: data})
	h = held.wait(t, ctx, first.id, "with the forged record's alarm", func(h api.ArchiveHeld) bool { return h.Alarms > 0 }, arch.log)
	if h.Table != first.id || h.Seq != fl.Seq || journal.Hash(h.Hash) != fl.Hash || h.Alarm == nil || h.Alarm.Kind != "not-signed" || h.Alarm.Seq != fl.Seq+1 ||
		!strings.Contains(h.Alarm.Reason, "no head the table signed") {
		t.Fatalf("held after a forged record: %+v alarm %+v", h, h.Alarm)
	}
	// The held message can come before the archive's log line reaches the test's pipe:
	// wait for the line, the test's deadline bounding a failure.
	for _, want := range []string{"alarm=rollback", "table=" + killed.id, "alarm=not-signed", "table=" + first.id} {
		for {
			ok, written := arch.log.Holds(want)
			if ok {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the archive's log does not say %q", want)
			case <-written:
			}
		}
	}
	// Nothing held changed: the same records, the same reports.
	for _, tb := range []*table{first, killed} {
		exported := filepath.Join(dir, "exported-again-"+tb.id)
		if out, _, err := runCmd(t, "", "export", "--archive", dsn, "--table", tb.id, exported); err != nil {
			t.Fatalf("export %s: %v\n%s", tb.id, err, out)
		}
		got := cmdtest.JournalRecords(t, exported)
		want := records[tb.id]
		if len(got) != len(want) || got[len(got)-1].Hash != want[len(want)-1].Hash {
			t.Fatalf("table %s: after the alarms the archive holds %d records, before %d", tb.id, len(got), len(want))
		}
	}
	reportsUnchanged("after the alarms")
}
