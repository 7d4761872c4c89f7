package tablecmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/journal"
)

// fakeArchive is the archive's side of shipping, plainly: it takes each table's batch in
// order, keeps every record once, drops one ahead of a gap, and publishes, retained,
// what it holds under the table's own signed head of it (the table believes nothing
// else). lose, once held reaches it, makes it forget the records after keep (after the
// last record at or before keep that a batch's signed head covers).
type fakeArchive struct {
	t      *testing.T
	url    string
	pass   string
	topics api.Topics

	mu        sync.Mutex
	c         mqtt.Client
	recs      []api.ArchiveRecord // held in order
	heads     map[uint64]api.Checkpoint
	signed    map[uint64]api.Checkpoint // the batches' signed heads, by record
	dups      int
	times     map[uint64]int // how often each record came
	gaps      int
	batches   int
	lose      uint64
	keep      int
	lost      chan struct{} // closed when it forgot records
	connected bool
	stored    time.Time // when it last stored a record
}

func (a *fakeArchive) connect() {
	a.t.Helper()
	n := nextClient()
	opts := mqtt.NewClientOptions().AddBroker(a.url).SetClientID(fmt.Sprintf("c%d-archive", n)).
		SetUsername("archive-floor").SetPassword(a.pass).SetOrderMatters(true).SetAutoReconnect(false)
	c := mqtt.NewClient(opts)
	if tok := c.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		a.t.Fatalf("fake archive: connect: %v", tok.Error())
	}
	if tok := c.Subscribe(a.topics.ArchiveRecords("floor"), 1, a.onBatch); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		a.t.Fatalf("fake archive: subscribe: %v", tok.Error())
	}
	a.mu.Lock()
	a.c, a.connected = c, true
	a.publishHeld()
	a.mu.Unlock()
}

func (a *fakeArchive) disconnect() {
	a.mu.Lock()
	c := a.c
	a.connected = false
	a.mu.Unlock()
	c.Disconnect(50)
}

// publishHeld publishes, retained, what the archive holds; the caller holds the lock.
func (a *fakeArchive) publishHeld() {
	h := api.ArchiveHeld{Schema: api.Schema, Table: a.topics.Table(), Archive: "floor", At: a.stored}
	if n := len(a.recs); n > 0 {
		h.Seq, h.Hash = a.recs[n-1].Seq, a.recs[n-1].Hash
		c := a.signed[h.Seq]
		h.Signed = &c
	}
	b, _ := json.Marshal(h)
	a.c.Publish(a.topics.ArchiveHeld("floor"), 1, true, b) // not waited for: this is paho's goroutine
}

func (a *fakeArchive) onBatch(_ mqtt.Client, m mqtt.Message) {
	var b api.ArchiveBatch
	if err := json.Unmarshal(m.Payload(), &b); err != nil {
		a.t.Errorf("fake archive: a batch that does not read: %v", err)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.connected {
		return
	}
	a.batches++
	if b.Table != a.topics.Table() || len(b.Records) == 0 || len(b.Records) > api.MaxArchiveBatch {
		a.t.Errorf("fake archive: batch of table %q with %d records", b.Table, len(b.Records))
	}
	for i, r := range b.Records {
		if i > 0 && r.Seq != b.Records[i-1].Seq+1 {
			a.t.Errorf("fake archive: a batch with a gap: record %d after %d", r.Seq, b.Records[i-1].Seq)
		}
		held := uint64(len(a.recs))
		a.times[r.Seq]++
		switch {
		case r.Seq <= held:
			a.dups++
			if kept := a.recs[r.Seq-1]; kept.Hash != r.Hash || string(kept.Data) != string(r.Data) {
				a.t.Errorf("fake archive: record %d sent again differs", r.Seq)
			}
		case r.Seq == held+1:
			a.recs, a.stored = append(a.recs, r), time.Now()
		default:
			a.gaps++
		}
	}
	last := b.Records[len(b.Records)-1].Seq
	if b.Signed == nil || b.Signed.Seq != last || b.Signed.Table != a.topics.Table() {
		a.t.Errorf("fake archive: a batch ending at %d signed %+v", last, b.Signed)
	} else {
		a.signed[last] = *b.Signed
	}
	// Held is the last record a signed head covers.
	for len(a.recs) > 0 {
		if _, ok := a.signed[a.recs[len(a.recs)-1].Seq]; ok {
			break
		}
		a.recs = a.recs[:len(a.recs)-1]
	}
	for _, h := range b.Heads {
		if h.Seq > last {
			a.t.Errorf("fake archive: head of record %d in a batch ending at %d", h.Seq, last)
		}
		a.heads[h.Seq] = h
	}
	if b.Written < last {
		a.t.Errorf("fake archive: batch says written %d, holds record %d", b.Written, last)
	}
	if a.lose > 0 && uint64(len(a.recs)) >= a.lose {
		a.recs, a.lose, a.stored = a.recs[:a.keep], 0, time.Now()
		for len(a.recs) > 0 {
			if _, ok := a.signed[a.recs[len(a.recs)-1].Seq]; ok {
				break
			}
			a.recs = a.recs[:len(a.recs)-1]
		}
		close(a.lost)
	}
	a.publishHeld()
}

// TestShippingToTheArchiveThroughMosquitto: a simulated table that ships its journal,
// through Debian's Mosquitto with the shipped ACL, to an archive that forgets records
// and is away for a while: the archive ends with every record of the table's journal
// once, in order, and every signed head; the table's status said how far behind the
// archive was, and at the end that it holds everything.
func TestShippingToTheArchiveThroughMosquitto(t *testing.T) {
	t.Parallel()
	acl, err := os.ReadFile("../../deploy/mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	users := mosquittotest.Users(t, "../../deploy/mosquitto/passwd.example")
	users["archive-floor"], users["bac-07"] = "archive-password", "bac-07-password"
	b := mosquittotest.Start(t, mosquittotest.Config{Users: users, ACL: string(acl)})
	topics, _ := api.NewTopics("bac-07")
	status := collect(t, b.URL(), "pitsystem", users["pitsystem"], topics.Status())
	sent := collect(t, b.URL(), "archive-floor", users["archive-floor"], topics.ArchiveRecords("floor")) // every batch, as the broker passed it on

	a := &fakeArchive{t: t, url: b.URL(), pass: users["archive-floor"], topics: topics, heads: map[uint64]api.Checkpoint{},
		signed: map[uint64]api.Checkpoint{}, times: map[uint64]int{}, lose: 120, keep: 40, lost: make(chan struct{})}
	a.connect()
	dir := filepath.Join(t.TempDir(), "journal")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	done, lines, logs := startRunLogged(t, ctx, "--simulate", "--pace", "3ms", "--round-pause", "0", "--rounds", "60",
		"--table", "bac-07", "--http", "", "--journal", dir, "--archive-ship",
		"--mqtt", b.URL(), "--mqtt-user", "bac-07", "--mqtt-password", users["bac-07"])
	go func() {
		for range lines {
		}
	}()
	select {
	case <-a.lost:
	case err := <-done:
		t.Fatalf("the run ended before the archive forgot records: %v\n%s", err, logs)
	case <-ctx.Done():
		t.Fatalf("the archive never held 120 records\n%s", logs)
	}
	// Away for a while: what the table sends meanwhile is lost to it. The archive comes
	// back once the table sent a record it never got.
	a.disconnect()
	a.mu.Lock()
	got := uint64(0)
	for seq := range a.times {
		got = max(got, seq)
	}
	a.mu.Unlock()
	for sentPast(t, sent) <= got {
		select {
		case <-sent.More():
		case err := <-done:
			t.Fatalf("the run ended before the table sent a record past %d while the archive was away: %v\n%s", got, err, logs)
		case <-ctx.Done():
			t.Fatalf("the table sent no record past %d while the archive was away\n%s", got, logs)
		}
	}
	a.connect()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v\n%s", err, logs)
		}
	case <-ctx.Done():
		t.Fatalf("the run did not end\n%s", logs)
	}
	a.disconnect()

	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for r, err := range j.Records(1) {
		if err != nil {
			t.Fatal(err)
		}
		if n >= len(a.recs) {
			t.Fatalf("the archive holds %d records, the journal has record %d\n%s", len(a.recs), r.Seq, logs)
		}
		if got := a.recs[n]; got.Seq != r.Seq || journal.Hash(got.Hash) != r.Hash || string(got.Data) != string(r.Data) {
			t.Fatalf("the archive's record %d is %d %s, the journal's %d %s", n, got.Seq, got.Hash, r.Seq, r.Hash)
		}
		n++
	}
	if n != len(a.recs) || n < 200 {
		t.Fatalf("the journal has %d records, the archive %d", n, len(a.recs))
	}
	heads, err := j.Checkpoints()
	if err != nil || len(heads) < 10 {
		t.Fatalf("%d heads: %v", len(heads), err)
	}
	for _, h := range heads {
		if got, ok := a.heads[h.Seq]; !ok || journal.Hash(got.Hash) != h.Hash || string(got.Sig) != string(h.Sig) {
			t.Errorf("head of record %d: the archive has %+v", h.Seq, got)
		}
	}
	for seq := uint64(a.keep + 1); seq <= 120; seq++ {
		if a.times[seq] < 2 {
			t.Fatalf("record %d came %d times: the table did not send again what the archive forgot", seq, a.times[seq])
		}
	}
	t.Logf("%d records, %d heads, %d batches, %d sent again, %d after a gap", n, len(heads), a.batches, a.dups, a.gaps)
	if !strings.Contains(logs.String(), "the archive holds less than it said") {
		t.Errorf("the table did not see the archive hold less:\n%s", logs)
	}

	// The status said the archive was behind, then that it holds every record.
	behind := status.waitFor(t, `"archive":{"held":`, `"since":`)
	if strings.Contains(behind, `"behind":0`) {
		t.Errorf("a status behind says none behind: %s", behind)
	}
	last := status.waitFor(t, fmt.Sprintf(`"archive":{"held":%d,"behind":0}`, n), `"state":"offline"`)
	t.Logf("last status: %s", last)
	msgs := status.Messages()
	n = len(msgs)
	for _, m := range msgs {
		var st api.Status
		_ = json.Unmarshal([]byte(m), &st)
		t.Logf("status %s at %s, round %d: archive %+v", st.State, st.At.Format("15:04:05.000"), st.Round, st.Archive)
	}
	t.Logf("%d status messages", n)
}

// sentPast is the last record of the batches col has seen (0: none).
func sentPast(t *testing.T, col *collector) uint64 {
	t.Helper()
	last := uint64(0)
	for _, m := range col.Messages() {
		var b api.ArchiveBatch
		if err := json.Unmarshal([]byte(m), &b); err != nil {
			t.Fatalf("a batch that does not read: %v", err)
		}
		for _, r := range b.Records {
			last = max(last, r.Seq)
		}
	}
	return last
}
