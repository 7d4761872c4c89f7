package table

import (
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/round"
)

// TestReshuffleSessionSurvivesRestart: at a Royal table that reshuffles after every round
// (Royal Baccarat, End of round), the shoe's roads run across its sets, also across a
// restart: the journal is replayed from the last shoe's end, so the node started again
// holds the roads of every round of the shoe in play (and none of the shoe before), and
// the next set the shuffler reports is loaded into the same shoe, its round numbered on.
func TestReshuffleSessionSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig("royal")
	cfg.Round.SetPerRound, cfg.Round.CloseBetsOnFirstCard, cfg.AutoConfirm = true, true, true
	j := openJournal(t, dir)
	tbl, err := start(cfg, j)
	if err != nil {
		t.Fatal(err)
	}
	set, seq := uint32(0), uint64(0)
	at := t0
	// dealRound deals one round of a new set: the shuffler reports it, then a natural is dealt.
	dealRound := func(tbl *harness) {
		t.Helper()
		set++
		at = at.Add(time.Minute)
		if err := tbl.Shuffler(device.Event{Kind: device.ShuffleComplete, Time: at, SetID: set, Decks: 2, Cards: 104}); err != nil {
			t.Fatal(err)
		}
		for _, c := range cards(t, "9H 2D KS 6C") {
			seq++
			at = at.Add(time.Second)
			c.Seq, c.At = seq, at
			if err := tbl.Step(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	dealRound(tbl)
	dealRound(tbl)
	if err := tbl.Step(round.Event{Kind: round.ShoeEnd, At: at.Add(time.Second), Actor: "dealer"}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		dealRound(tbl)
	}
	if st := tbl.State(); st.Shoe != 2 || st.Round != 3 || st.Phase != round.NextSet || tbl.build.Roadmap().Len() != 3 {
		t.Fatalf("before the restart: shoe %d round %d %s, roads of %d rounds; want shoe 2, round 3, next-set, 3",
			st.Shoe, st.Round, st.Phase, tbl.build.Roadmap().Len())
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	j = openJournal(t, dir)
	defer j.Close()
	tbl, err = start(cfg, j)
	if err != nil {
		t.Fatal(err)
	}
	if st := tbl.State(); st.Shoe != 2 || st.Round != 3 || st.Phase != round.NextSet {
		t.Fatalf("after the restart: shoe %d round %d %s; want shoe 2, round 3, next-set", st.Shoe, st.Round, st.Phase)
	}
	if n := tbl.build.Roadmap().Len(); n != 3 {
		t.Fatalf("after the restart the roads hold %d rounds, want the shoe's 3", n)
	}
	dealRound(tbl)
	st, road := tbl.State(), tbl.build.Roadmap()
	if st.Shoe != 2 || st.Round != 4 || road.Len() != 4 || road.Stats().Player != 4 {
		t.Errorf("the next set: shoe %d round %d, roads %d rounds %+v; want shoe 2, round 4, 4 Player wins",
			st.Shoe, st.Round, road.Len(), road.Stats())
	}
	if st.Set != "6" {
		t.Errorf("set in play %q, want 6", st.Set)
	}
}
