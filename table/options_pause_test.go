package table

import (
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// optionsTable is a table (cfg) whose round has an options window open (RWS Baccarat
// 5.10.1, 5.12) since opened, the simultaneous draw decided and a card held.
func optionsTable(t *testing.T, cfg Config) (n *Node, opened time.Time, effects func() []string) {
	t.Helper()
	rc := round.DefaultConfig(baccarat.MustLookup("rws", baccarat.Options{}))
	rc.Burn = round.BurnNone
	cfg.Table, cfg.NoMessages, cfg.Round = "T1", true, rc
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	effects = func() []string {
		for _, s := range n.Ready().Steps {
			for _, e := range s.Effects {
				got = append(got, e.String())
			}
		}
		n.Advance()
		out := got
		got = nil
		return out
	}
	n.Step(round.Event{Kind: round.NewShoe, Set: "1", Decks: 8, At: t0})
	n.Step(round.Event{Kind: round.BetsClosed, At: t0, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetPlayer, Stake: 100},
		{Box: "2", Bet: baccarat.BetBanker, Stake: 100}}})
	opened = t0.Add(time.Second)
	n.Step(round.Event{Kind: round.Report, Irregularity: irregularities.SimultaneousDraw, Role: irregularities.Dealer, At: opened})
	n.Step(round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard("4H"), Seq: 1, At: opened.Add(100 * time.Millisecond)})
	n.Step(round.Event{Kind: round.Decide, Choice: irregularities.AsRead, Role: irregularities.Supervisor, At: opened.Add(200 * time.Millisecond)})
	n.Step(round.Event{Kind: round.BoxChoice, Box: "2", Option: irregularities.OptBetReturned, Role: irregularities.Dealer, At: opened.Add(300 * time.Millisecond)})
	effects()
	return n, opened, effects
}

// TestOptionsPause: a table standing in for the dealer closes the players' options
// window its pause after it opened, the boxes that chose nothing continuing: when told
// the time (Tick), or before an event stamped at or after then. Sooner, it waits.
func TestOptionsPause(t *testing.T) {
	n, opened, effects := optionsTable(t, Config{AutoCloseOptions: true, OptionsPause: 5 * time.Second})
	due, ok := n.OptionsDue()
	if !ok || !due.Equal(opened.Add(5*time.Second)) {
		t.Fatalf("due %s %v, want %s", due, ok, opened.Add(5*time.Second))
	}
	n.Tick(due.Add(-time.Millisecond))
	if got := effects(); len(got) != 0 || !n.State().Window.Open {
		t.Fatalf("before the pause's end: %v", got)
	}
	n.Tick(due)
	got := effects()
	want := []string{"options-closed #1: closed by the table (auto): box 1 continue (chose nothing), box 2 bet-returned", "card-placed P1 4H seq=1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("at the pause's end:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, ok := n.OptionsDue(); ok {
		t.Error("a window is still due after it closed")
	}
	if st := n.State(); st.Held.ID != 0 || st.Window.Open {
		t.Errorf("held %+v, window %+v", st.Held, st.Window)
	}

	// A card read after the pause finds the window closed first, in the events' own time.
	n, opened, effects = optionsTable(t, Config{AutoCloseOptions: true, OptionsPause: 5 * time.Second})
	n.Step(round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard("3D"), Seq: 2, At: opened.Add(6 * time.Second)})
	got = effects()
	if len(got) < 3 || !strings.HasPrefix(got[0], "options-closed #1: closed by the table (auto)") || got[1] != "card-placed P1 4H seq=1" || got[2] != "card-placed B1 3D seq=2" {
		t.Fatalf("a card after the pause: %v", got)
	}
	if s := n.Ready().Steps; len(s) != 0 {
		t.Fatalf("steps left: %v", s)
	}

	// A card read sooner is held with the others.
	n, opened, effects = optionsTable(t, Config{AutoCloseOptions: true, OptionsPause: 5 * time.Second})
	n.Step(round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard("3D"), Seq: 2, At: opened.Add(4 * time.Second)})
	if got := effects(); strings.Join(got, "\n") != "card-held 3D seq=2" {
		t.Fatalf("a card within the pause: %v", got)
	}

	// A table that does not stand in for the dealer leaves the window to the supervisor.
	n, _, effects = optionsTable(t, Config{OptionsPause: 5 * time.Second})
	if _, ok := n.OptionsDue(); ok {
		t.Error("a window is due at a table that does not stand in for the dealer")
	}
	n.Step(round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard("3D"), Seq: 2, At: opened.Add(time.Hour)})
	n.Tick(opened.Add(time.Hour))
	if got := effects(); strings.Join(got, "\n") != "card-held 3D seq=2" {
		t.Fatalf("no stand-in: %v", got)
	}
}

// TestOptionsPauseAfterRestart: a table restarted on a journal that left an options
// window open holds the table for it still, and closes it its pause after the restart.
func TestOptionsPauseAfterRestart(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig("rws")
	cfg.AutoCloseOptions, cfg.OptionsPause = true, 5*time.Second
	j := openJournal(t, dir)
	h, err := start(cfg, j)
	if err != nil {
		t.Fatal(err)
	}
	steps(t, h, round.Event{Kind: round.NewShoe, Set: "1", Decks: 8, At: t0},
		round.Event{Kind: round.BetsClosed, At: t0, Wagers: []baccarat.Wager{{Box: "1", Bet: baccarat.BetPlayer, Stake: 100}}},
		round.Event{Kind: round.Report, Irregularity: irregularities.ExposedCard, Role: irregularities.Dealer, At: t0},
		round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard("4H"), Seq: 1, At: t0.Add(time.Second)})
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	restarted := t0.Add(time.Hour)
	j = openJournal(t, dir)
	defer j.Close()
	n, err := Open(cfg, j, restarted)
	if err != nil {
		t.Fatal(err)
	}
	if st := n.State(); !st.Held.Options || !st.Window.Open || len(st.Held.Pending) != 1 {
		t.Fatalf("after the restart: held %+v window %+v", st.Held, st.Window)
	}
	if due, ok := n.OptionsDue(); !ok || !due.Equal(restarted.Add(5*time.Second)) {
		t.Fatalf("due %s %v, want the pause after the restart", due, ok)
	}
	n.Advance()
	n.Tick(restarted.Add(5 * time.Second))
	var got []string
	for _, s := range n.Ready().Steps {
		for _, e := range s.Effects {
			got = append(got, e.String())
		}
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "options-closed #1: closed by the table (auto): box 1 continue (chose nothing)") ||
		got[1] != "card-placed P1 4H seq=1" {
		t.Fatalf("the pause after the restart: %v", got)
	}
	if len(n.Ready().Records) != 1 {
		t.Errorf("the closing is not journalled: %d records", len(n.Ready().Records))
	}
}
