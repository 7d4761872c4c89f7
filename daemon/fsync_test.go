package daemon

import (
	"bytes"
	"os"
	"testing"

	"github.com/tablectl/tablectl/drivers/device"
)

// journalSyncs is how many fsyncs the table's journal has made so far. It is the only
// journal the table writes: TestOneSyncPerCommandWithAnID checks that no other is made.
func journalSyncs(d *Daemon) int64 { return d.j.Stats().Syncs }

// TestOneSyncPerCommandWithAnID: a command with an id costs the table one fsync: its
// id rides in the journal's own record of the command. Its repeat costs none, and is
// answered with the first reply.
func TestOneSyncPerCommandWithAnID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := start(t, dir)
	defer r.close(t)
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.settle(t)
	ask := func(payload string) []byte {
		t.Helper()
		n := len(r.rec.Replies())
		if err := r.rec.Inject("dealer", []byte(payload)); err != nil {
			t.Fatal(err)
		}
		r.settle(t)
		rs := r.rec.Replies()
		if len(rs) != n+1 {
			t.Fatalf("%d replies to %s, want 1", len(rs)-n, payload)
		}
		return rs[n].Payload
	}
	const cmd = `{"id":"b1","cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":100}]}`
	before := journalSyncs(r.d)
	first := ask(cmd)
	if got := journalSyncs(r.d) - before; got != 1 {
		t.Errorf("a command with an id cost %d fsyncs, want 1", got)
	}
	if !bytes.Contains(first, []byte(`"ok":true`)) {
		t.Fatalf("reply %s", first)
	}
	before = journalSyncs(r.d)
	if again := ask(cmd); !bytes.Equal(again, first) {
		t.Errorf("the repeat answered\n%s\nnot the first reply\n%s", again, first)
	}
	if got := journalSyncs(r.d) - before; got != 0 {
		t.Errorf("a repeated command cost %d fsyncs, want none", got)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("the journal directory holds %s/: the table keeps a journal besides its own", e.Name())
		}
	}
}
