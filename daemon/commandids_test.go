package daemon

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
)

func TestCommandIDsRememberAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	m, err := OpenCommandIDs(dir, 4, 0, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if _, seen := m.Seen("dealer", "a"); seen {
		t.Fatal("an id seen before it was taken")
	}
	if err := m.Begin("dealer", "a", 10); err != nil {
		t.Fatal(err)
	}
	if _, seen := m.Seen("dealer", "a"); seen {
		t.Fatal("an id seen while it is stepped")
	}
	if err := m.Done("dealer", "a", []byte(`{"id":"a","ok":true}`)); err != nil {
		t.Fatal(err)
	}
	if r, seen := m.Seen("dealer", "a"); !seen || string(r) != `{"id":"a","ok":true}` {
		t.Fatalf("Seen: %q %v", r, seen)
	}
	if _, seen := m.Seen("supervisor", "a"); seen {
		t.Fatal("an id of another role was taken for this one")
	}
	// Begun and not answered, then a crash after the table journal recorded it.
	if err := m.Begin("dealer", "b", 11); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m, err = OpenCommandIDs(dir, 4, 12, quiet) // record 12 is b's event
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if r, seen := m.Seen("dealer", "a"); !seen || string(r) != `{"id":"a","ok":true}` {
		t.Fatalf("after reopening, Seen(a): %q %v", r, seen)
	}
	if r, seen := m.Seen("dealer", "b"); !seen || r != nil {
		t.Fatalf("a command recorded before the crash: %q %v, want seen with its reply lost", r, seen)
	}
}

func TestCommandIDNotRecordedBeforeACrashActsOnItsRepeat(t *testing.T) {
	dir := t.TempDir()
	m, err := OpenCommandIDs(dir, 4, 0, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Begin("dealer", "c", 11); err != nil {
		t.Fatal(err)
	}
	m.Close()
	m, err = OpenCommandIDs(dir, 4, 11, quiet) // nothing recorded after 11
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, seen := m.Seen("dealer", "c"); seen {
		t.Fatal("a command that never reached the table journal is taken as done")
	}
	if m.Len() != 0 {
		t.Fatalf("%d ids remembered", m.Len())
	}
}

func TestCommandIDsKeepTheMostRecentAndStaySmall(t *testing.T) {
	dir := t.TempDir()
	m, err := OpenCommandIDs(dir, 4, 0, quiet)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 300<<10) // each reply 300 KiB: segments of 1 MiB fill
	for i := range 40 {
		id := fmt.Sprint("id", i)
		if err := m.Begin("dealer", id, uint64(i)); err != nil {
			t.Fatal(err)
		}
		if err := m.Done("dealer", id, []byte(`{"id":"`+id+`","pad":"`+big+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	m.Close()
	m, err = OpenCommandIDs(dir, 4, 40, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Len() != 4 {
		t.Fatalf("%d ids remembered, want 4", m.Len())
	}
	for i := range 40 {
		_, seen := m.Seen("dealer", fmt.Sprint("id", i))
		if seen != (i >= 36) {
			t.Errorf("id%d seen %v", i, seen)
		}
	}
	var total int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			total += fi.Size()
		}
	}
	if total > 8<<20 {
		t.Fatalf("the ids' journal holds %d bytes after 40 ids of which 4 are kept", total)
	}
}

// TestRepeatedCommandIDActsOnceAcrossARestart: a report delivered twice, the second
// time after a restart, raises one irregularity, and the repeat gets the first reply.
func TestRepeatedCommandIDActsOnceAcrossARestart(t *testing.T) {
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
		deadline := time.Now().Add(60 * time.Second)
		for len(r.rec.Replies()) == n {
			if time.Now().After(deadline) {
				t.Fatal("no reply")
			}
			time.Sleep(time.Millisecond)
		}
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
	for len(r.rec.Replies()) == n {
		time.Sleep(time.Millisecond)
	}
	d1 := r.rec.Replies()[n].Payload
	if !bytes.Contains(d1, []byte(`"ok":true`)) {
		t.Fatalf("report: %s", d1)
	}
	if err := r.rec.Inject("supervisor", []byte(decide)); err != nil {
		t.Fatal(err)
	}
	for len(r.rec.Replies()) == n+1 {
		time.Sleep(time.Millisecond)
	}
	if again := r.rec.Replies()[n+1].Payload; !bytes.Equal(again, d1) {
		t.Fatalf("a repeated report answered %s", again)
	}
	r.settle(t)
	if got := irregularityEvents(t, r.rec); got != "raised wrong_hand,resolved wrong_hand,raised late_error" {
		t.Errorf("irregularity messages after the restart: %v", got)
	}
	r.close(t)
}
