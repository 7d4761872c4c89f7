package table

import (
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/round"
)

// TestRefusedCommandRebuiltFromTheJournal: a refused command with an id, its record read
// back from the journal after a restart (no snapshot in between), answers its repeat as
// it answered first: refused, with the controller's reason.
func TestRefusedCommandRebuiltFromTheJournal(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	h, err := start(testConfig("rws"), j)
	if err != nil {
		t.Fatal(err)
	}
	steps(t, h, round.Event{Kind: round.NewShoe, Set: "5", Decks: 8})
	first := h.command(t, "c1", t0.Add(time.Minute), round.Event{Kind: round.ConfirmResult})
	if first.OK || first.Error == "" {
		t.Fatalf("confirm with no round dealt: %+v, want it refused", first)
	}
	j.Close()

	j = openJournal(t, dir)
	defer j.Close()
	if h, err = start(testConfig("rws"), j); err != nil {
		t.Fatal(err)
	}
	if _, _, has, _ := j.Snapshot(); has {
		t.Fatal("a snapshot holds the reply: the journal's records are not read for it")
	}
	again := h.command(t, "c1", t0.Add(2*time.Minute), round.Event{Kind: round.ConfirmResult})
	if !again.Repeat || again.OK || again.Error != first.Error {
		t.Errorf("the repeat after a restart: %+v, want the first reply %+v", again, first)
	}
}

// TestCommandRecordingNothingActsAgain: a command that records nothing (a new shoe with
// no set given and none reported, refused) is not remembered: its repeat acts again.
// One that names the decks alone loads a set of them.
func TestCommandRecordingNothingActsAgain(t *testing.T) {
	n, err := New(testConfig("rws"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		n.Command(1, "n1", round.Event{Kind: round.NewShoe, Role: irregularities.Dealer, At: t0})
		rd := n.Ready()
		if r := rd.Replies[0]; r.Repeat || r.OK || !strings.Contains(r.Error, "no set was given") || len(rd.Records) != 0 {
			t.Fatalf("new shoe with no set: %+v, %d records", r, len(rd.Records))
		}
		n.Advance()
	}
	n.Command(1, "n2", round.Event{Kind: round.NewShoe, Decks: 6, Role: irregularities.Dealer, At: t0})
	if r := n.Ready().Replies[0]; !r.OK || n.State().Phase == round.NoShoe || n.State().Decks != 6 {
		t.Errorf("new shoe of 6 decks: %+v, phase %s, %d decks", r, n.State().Phase, n.State().Decks)
	}
}

// TestRememberKeepsTheNodesOwn: answers from outside the journal rank older than the
// node's; an id the node remembers keeps its own answer; one id is remembered once.
func TestRememberKeepsTheNodesOwn(t *testing.T) {
	n, err := New(testConfig("rws"))
	if err != nil {
		t.Fatal(err)
	}
	n.Step(round.Event{Kind: round.NewShoe, Set: "1", Decks: 8, At: t0})
	n.Command(1, "b1", round.Event{Kind: round.BetsClosed, Role: irregularities.Dealer, At: t0,
		Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetBanker, Stake: 100}}})
	own := n.Ready().Replies[0]
	n.Advance()
	n.Remember([]Answer{{Role: "dealer", ID: "b1", OK: false, Error: "kept elsewhere"},
		{Role: "dealer", ID: "old", OK: true, Effects: []string{"kept elsewhere"}},
		{Role: "dealer", ID: "old", OK: true, Effects: []string{"kept elsewhere, again"}}})
	list := n.answers.list()
	var ids []string
	for _, a := range list {
		ids = append(ids, a.ID)
	}
	if got := strings.Join(ids, " "); got != "old b1" {
		t.Errorf("answers remembered %q, want old then b1 (the node's, the more recent), once each", got)
	}
	n.Command(2, "b1", round.Event{Kind: round.BetsClosed, Role: irregularities.Dealer, At: t0})
	if r := n.Ready().Replies[0]; !r.Repeat || r.OK != own.OK || r.Error != own.Error {
		t.Errorf("b1's repeat: %+v, want the node's own answer %+v", r, own)
	}
}

// TestStatusSaysNoInsuranceOnlyWhereOffered: the status says the table offers no
// Insurance (for the notice of NC Insurance 4.2.2) only where its rule set has Insurance
// to offer.
func TestStatusSaysNoInsuranceOnlyWhereOffered(t *testing.T) {
	for rules, want := range map[string]bool{"nc-insurance": true, "rws": false} {
		cfg := testConfig(rules)
		cfg.Round.NoInsurance = true
		n, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := n.statusOf(n.State(), messages.StatusInfo{Table: "T1", Rules: cfg.Round.Rules}).NoInsurance; got != want {
			t.Errorf("%s, no_insurance set: the status says no Insurance %v, want %v", rules, got, want)
		}
	}
}
