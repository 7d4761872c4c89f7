package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
)

// writeOldIDs writes, in dir's old journal of command ids, records as an older version
// wrote them.
func writeOldIDs(t *testing.T, dir string, records ...string) {
	t.Helper()
	j, _, err := journal.Open(filepath.Join(dir, oldCommandIDsDir), journal.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if _, err := j.Append([]byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOldCommandIDsAreRead: a journal directory from an older version holds the command
// ids in a journal of their own. The table reads it: a repeat of an id answered there
// gets its first reply, byte for byte; one begun and recorded by the table journal before
// a crash is answered as done; one begun and never recorded acts. Once a snapshot holds
// the ids, the old journal is removed and the ids are still known after a restart.
func TestOldCommandIDsAreRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := start(t, dir)
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.settle(t)
	last := r.d.j.LastSeq()
	r.close(t)
	first := fmt.Sprintf(`{"schema":%d,"table":"T7","at":"2026-11-22T21:00:00Z","id":"a","role":"dealer","ok":true,"effects":["squeeze requested"]}`, api.Schema)
	writeOldIDs(t, dir,
		fmt.Sprintf(`{"role":"dealer","id":"a","before":%d}`, last-1),
		`{"role":"dealer","id":"a","reply":`+first+`}`,
		fmt.Sprintf(`{"role":"dealer","id":"b","before":%d}`, last-1), // recorded: record last came after
		fmt.Sprintf(`{"role":"dealer","id":"c","before":%d}`, last))   // never recorded

	r = start(t, dir)
	ask := func(r *running, role, payload string) []byte {
		t.Helper()
		n := len(r.rec.Replies())
		if err := r.rec.Inject(role, []byte(payload)); err != nil {
			t.Fatal(err)
		}
		r.settle(t)
		rs := r.rec.Replies()
		if len(rs) != n+1 {
			t.Fatalf("%d replies to %s", len(rs)-n, payload)
		}
		return rs[n].Payload
	}
	if got := ask(r, "dealer", `{"id":"a","cmd":"squeeze"}`); string(got) != first {
		t.Errorf("repeat of a answered\n%s\nnot the first reply\n%s", got, first)
	}
	if got := ask(r, "dealer", `{"id":"b","cmd":"end_shoe"}`); !bytes.Contains(got, []byte(lostReply)) || !bytes.Contains(got, []byte(`"ok":true`)) {
		t.Errorf("repeat of b, recorded before the crash, answered %s", got)
	}
	if st := r.d.State(); st.Phase == round.NoShoe {
		t.Fatal("the repeat of b ended the shoe")
	}
	if got := ask(r, "dealer", `{"id":"c","cmd":"end_shoe"}`); !bytes.Contains(got, []byte("shoe-ended")) {
		t.Errorf("c, never recorded, answered %s: want it carried out", got)
	}
	if _, err := os.Stat(filepath.Join(dir, oldCommandIDsDir)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the old journal of ids is still there after the shoe's snapshot: %v", err)
	}
	r.close(t)

	r = start(t, dir)
	defer r.close(t)
	if got := ask(r, "dealer", `{"id":"a","cmd":"squeeze"}`); string(got) != first {
		t.Errorf("after the migration, repeat of a answered\n%s\nnot the first reply\n%s", got, first)
	}
}

// TestRepeatedCommandIDActsOnceAcrossARestart: a report delivered twice, the second
// time after a restart, raises one irregularity, and the repeat gets the first reply.
func TestRepeatedCommandIDActsOnceAcrossARestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := start(t, dir)
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.f.cards(t, "4S 9H")
	r.settle(t)
	const report = `{"id":"r1","cmd":"report","kind":"wrong_hand","actor":"D4"}`
	ask := func(r *running, payload string) []byte {
		t.Helper()
		n := len(r.rec.Replies())
		if err := r.rec.Inject("dealer", []byte(payload)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "a reply to "+payload, r.rec.Changed, func() bool { return len(r.rec.Replies()) > n })
		rs := r.rec.Replies()
		return rs[len(rs)-1].Payload
	}
	first := ask(r, report)
	if !bytes.Contains(first, []byte(`"ok":true`)) || !bytes.Contains(first, []byte("irregularity-raised #1 wrong_hand")) {
		t.Fatalf("first reply %s", first)
	}
	if again := ask(r, report); !bytes.Equal(again, first) {
		t.Fatalf("repeat before the restart answered\n%s\nnot the first reply\n%s", again, first)
	}
	r.settle(t)
	r.close(t)

	r = start(t, dir)
	if again := ask(r, report); !bytes.Equal(again, first) {
		t.Fatalf("repeat after the restart answered\n%s\nnot the first reply\n%s", again, first)
	}
	// A new id acts, once: the supervisor's report of an error in the round the restart
	// interrupted (RWS Baccarat 5.4 decided that round by the rule).
	const decide = `{"id":"d1","cmd":"report","kind":"late_error","round":1,"actor":"S17"}`
	n := len(r.rec.Replies())
	if err := r.rec.Inject("supervisor", []byte(decide)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a reply to the report", r.rec.Changed, func() bool { return len(r.rec.Replies()) > n })
	d1 := r.rec.Replies()[n].Payload
	if !bytes.Contains(d1, []byte(`"ok":true`)) {
		t.Fatalf("report: %s", d1)
	}
	if err := r.rec.Inject("supervisor", []byte(decide)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a reply to the repeated report", r.rec.Changed, func() bool { return len(r.rec.Replies()) > n+1 })
	if again := r.rec.Replies()[n+1].Payload; !bytes.Equal(again, d1) {
		t.Fatalf("a repeated report answered %s", again)
	}
	r.settle(t)
	if got := irregularityEvents(t, r.rec); got != "raised wrong_hand,resolved wrong_hand,raised late_error" {
		t.Errorf("irregularity messages after the restart: %v", got)
	}
	r.close(t)
}
