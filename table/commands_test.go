package table

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// command gives the node a dealer's command with id at, carries out its Ready, and
// returns the reply.
func (h *harness) command(t *testing.T, id string, at time.Time, ev round.Event) Reply {
	t.Helper()
	ev.At, ev.Role = at, irregularities.Dealer
	h.Command(1, id, ev)
	rd := h.Ready()
	if len(rd.Replies) != 1 {
		t.Fatalf("%d replies, want 1", len(rd.Replies))
	}
	if err := h.carryOut(); err != nil {
		t.Fatal(err)
	}
	return rd.Replies[0]
}

// TestCommandIDInTheJournal: a command with an id is recorded with its id in the table
// journal's own records: after a restart its repeat is not stepped, and its reply is
// the first one, rebuilt from the journal, across the shoe's snapshot too.
func TestCommandIDInTheJournal(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	h, err := start(testConfig("rws"), j)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Shuffler(device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416, Time: t0}); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Minute)
	bets := round.Event{Kind: round.BetsClosed, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetBanker, Stake: 100}}}
	closed := h.command(t, "s1", at, bets)
	refused := h.command(t, "c1", at.Add(time.Second), round.Event{Kind: round.ConfirmResult})
	if !closed.OK || refused.OK || refused.Error == "" {
		t.Fatalf("closed %+v, confirm %+v: want the confirmation refused", closed, refused)
	}
	records := j.LastSeq()
	// The ids' records: each holds its command's id.
	for rec, err := range j.Records(records - 1) {
		if err != nil {
			t.Fatal(err)
		}
		e, err := DecodeEntry(rec.Seq, rec.Data)
		if err != nil || e.Command == nil || e.Command.Role != "dealer" {
			t.Fatalf("record %d: %+v %v, want a dealer's command id", rec.Seq, e.Command, err)
		}
	}
	// The next set given while the shoe is in play: the shoe ends (a snapshot) and the
	// set is loaded, under one id.
	shoe := h.command(t, "n1", at.Add(2*time.Second), round.Event{Kind: round.NewShoe, Set: "6", Decks: 8})
	if !shoe.OK || !strings.Contains(strings.Join(shoe.Effects, "\n"), "shoe-ended") {
		t.Fatalf("new_shoe: %+v", shoe)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	j = openJournal(t, dir)
	defer j.Close()
	h, err = start(testConfig("rws"), j)
	if err != nil {
		t.Fatal(err)
	}
	if _, has, _ := func() (uint64, bool, error) { s, _, ok, err := j.Snapshot(); return s, ok, err }(); !has {
		t.Fatal("no snapshot at the shoe's end")
	}
	for _, c := range []struct {
		id    string
		ev    round.Event
		first Reply
	}{
		{"s1", bets, closed},
		{"c1", round.Event{Kind: round.ConfirmResult}, refused},
		{"n1", round.Event{Kind: round.NewShoe, Set: "6", Decks: 8}, shoe},
	} {
		before := j.LastSeq()
		got := h.command(t, c.id, time.Now(), c.ev)
		if j.LastSeq() != before {
			t.Errorf("%s: the repeat recorded %d records", c.id, j.LastSeq()-before)
		}
		want := c.first
		want.Repeat = true
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the repeat after a restart answered\n%+v\nwant\n%+v", c.id, got, want)
		}
	}
}

// TestCommandNotRecordedActsAgain: a command whose records never reached the journal
// (the process stopped before they were written) is not remembered: its repeat acts.
func TestCommandNotRecordedActsAgain(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	h, err := start(testConfig("rws"), j)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Shuffler(device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416, Time: t0}); err != nil {
		t.Fatal(err)
	}
	h.Command(1, "e1", round.Event{Kind: round.ShoeEnd, Role: irregularities.Dealer, At: t0.Add(time.Minute)})
	j.Close() // the Ready is never persisted

	j = openJournal(t, dir)
	defer j.Close()
	h, err = start(testConfig("rws"), j)
	if err != nil {
		t.Fatal(err)
	}
	r := h.command(t, "e1", t0.Add(2*time.Minute), round.Event{Kind: round.ShoeEnd})
	if r.Repeat || !strings.Contains(strings.Join(r.Effects, "\n"), "shoe-ended") {
		t.Errorf("the repeat of a command never recorded: %+v, want it carried out", r)
	}
}

// TestCommandIDsRemembered: the node remembers the most recent RememberedCommands ids.
func TestCommandIDsRemembered(t *testing.T) {
	n, err := New(testConfig("rws"))
	if err != nil {
		t.Fatal(err)
	}
	n.Step(round.Event{Kind: round.NewShoe, Set: "1", Decks: 8, At: t0})
	for i := range RememberedCommands + 1 {
		n.Command(uint64(i), fmt.Sprint("q", i), round.Event{Kind: round.SqueezeRequested, Role: irregularities.Dealer, At: t0})
	}
	n.Advance()
	for _, c := range []struct {
		id     string
		repeat bool
	}{{"q1", true}, {fmt.Sprint("q", RememberedCommands), true}, {"q0", false}} {
		n.Command(0, c.id, round.Event{Kind: round.SqueezeRequested, Role: irregularities.Dealer, At: t0})
		if got := n.Ready().Replies[0].Repeat; got != c.repeat {
			t.Errorf("%s: repeat %v, want %v", c.id, got, c.repeat)
		}
		n.Advance()
	}
}
