package table

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/round"
)

// TestStartFromSnapshot: the end of a shoe writes a snapshot covering every record so
// far; a table started again reads it and replays only the records after it, and reaches
// exactly the state a replay of the whole journal reaches, the shoe's signal number and
// the owner's extra included.
func TestStartFromSnapshot(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	cfg := testConfig("classic")
	cfg.AutoConfirm = true
	cfg.Round.CloseBetsOnFirstCard = true
	tbl, err := start(cfg, j)
	if err != nil {
		t.Fatal(err)
	}
	// Cards numbered by the shoe, as the tablectl protocol numbers them: a restart then
	// goes on from the last number, with nothing for RWS Baccarat 5.4 to decide.
	seq := uint64(0)
	numbered := func(s string) []round.Event {
		evs := cards(t, s)
		for i := range evs {
			seq++
			evs[i].Seq = seq
		}
		return evs
	}
	steps(t, tbl, round.Event{Kind: round.NewShoe, Set: "A", Decks: 1})
	steps(t, tbl, numbered("9H 5C KS KD 2H 3D 4C 5D")...)
	cut := device.Event{Kind: device.CutCard, SignalNo: 3, HasSignalNo: true, Time: t0}
	if err := tbl.Shoe(cut); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := j.Snapshot(); ok {
		t.Fatal("a snapshot before the shoe ended")
	}
	steps(t, tbl, round.Event{Kind: round.ShoeEnd, Actor: "dealer"})
	snapSeq, _, ok, err := j.Snapshot()
	if err != nil || !ok || snapSeq != j.LastSeq() {
		t.Fatalf("after the shoe's end: snapshot at %d (ok %v, %v), want at the last record %d", snapSeq, ok, err, j.LastSeq())
	}
	steps(t, tbl, round.Event{Kind: round.NewShoe, Set: "B", Decks: 1})
	steps(t, tbl, numbered("AS 2S 3S 4S")...)
	after := j.LastSeq() - snapSeq
	messagesBefore := tbl.MessageSeq()
	j.Close()

	j = openJournal(t, dir)
	defer j.Close()
	full, _, err := Replay(j, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err = start(cfg, j)
	if err != nil {
		t.Fatal(err)
	}
	if uint64(tbl.Replayed()) != after {
		t.Errorf("replayed %d events, want the %d after the snapshot", tbl.Replayed(), after)
	}
	if tbl.MessageSeq() != messagesBefore || messagesBefore == 0 {
		t.Errorf("messages numbered on from %d after the restart, want %d", tbl.MessageSeq(), messagesBefore)
	}
	if tbl.tr.signals.last != 3 {
		t.Errorf("last signal %d after the restart, want 3 from the snapshot", tbl.tr.signals.last)
	}
	want, _ := json.Marshal(full.State())
	got, _ := json.Marshal(tbl.State())
	if string(got) != string(want) {
		t.Errorf("state from the snapshot:\n%s\nfrom the whole journal:\n%s", got, want)
	}
	// The table goes on from there as it would have: the fifth card completes the round
	// (Player AS 3S 5S, 9; Banker 2S 4S, 6), confirmed at once.
	if err := tbl.Step(round.Event{Kind: round.CardDrawn, Card: cards(t, "5S")[0].Card, Seq: seq + 1, At: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if st := tbl.State(); st.Round != 2 || st.Phase != round.BettingOpen || st.Shoe != 2 || st.LastCardNo != seq+1 || st.Irregularities != 0 {
		t.Errorf("after the restart: %+v", st)
	}
}

// TestUnreadableSnapshotFallsBack: a snapshot this version cannot read is passed over,
// and the whole journal is replayed: the records are the truth.
func TestUnreadableSnapshotFallsBack(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	tbl, err := start(testConfig("classic"), j)
	if err != nil {
		t.Fatal(err)
	}
	steps(t, tbl, round.Event{Kind: round.NewShoe, Set: "A", Decks: 1})
	if err := j.WriteSnapshot(j.LastSeq(), []byte(`{"state":"from another version"}`)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j = openJournal(t, dir)
	defer j.Close()
	tbl, err = start(testConfig("classic"), j)
	if err != nil {
		t.Fatal(err)
	}
	if replayed := tbl.Replayed(); replayed != 1 || tbl.State().Set != "A" {
		t.Errorf("replayed %d events, set %q: want the whole journal, set A", replayed, tbl.State().Set)
	}
}
