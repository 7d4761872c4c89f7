package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

var t0 = time.Date(2026, 3, 1, 23, 45, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

func card(t *testing.T, s string) baccarat.Card {
	t.Helper()
	c, err := baccarat.ParseCard(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// feeder plays effects into a Builder, one record each.
type feeder struct {
	t   *testing.T
	b   *Builder
	seq uint64
}

func (f *feeder) ev(kind round.EventKind, sec int, detail string, effs ...round.Effect) {
	f.seq++
	f.b.Event(f.seq, round.Event{Kind: kind, At: at(sec), Detail: detail}, effs)
}

// dealRound deals a natural round (P: 9, B: 3) starting at sec, one card every 10 s.
func (f *feeder) dealRound(n uint32, sec int) {
	cards := []struct {
		slot baccarat.Slot
		c    string
	}{{baccarat.P1, "9S"}, {baccarat.B1, "3H"}, {baccarat.P2, "KD"}, {baccarat.B2, "QC"}}
	for i, c := range cards {
		f.ev(round.CardDrawn, sec+10*i, "", round.Effect{Kind: round.CardPlaced, Shoe: 1, Round: n, Slot: c.slot, Card: card(f.t, c.c)}.WithDetail(round.Detail{At: at(sec + 10*i)}))
	}
	out := baccarat.Outcome{Winner: baccarat.PlayerWins, PlayerPoints: 9, BankerPoints: 3, PlayerCards: 2, BankerCards: 2}
	f.ev(round.ConfirmResult, sec+35, "", round.Effect{Kind: round.RoundSettled, Shoe: 1, Round: n}.WithDetail(round.Detail{At: at(sec + 35), Outcome: out, Settlements: []round.Settlement{{Wager: baccarat.Wager{Box: "1", Bet: baccarat.BetPlayer, Stake: 100}, Returned: 200}}}))
}

// TestSummaryFigures: time held counts overlapping holds once; cards per hour leaves the
// holds out; void rounds, decisions and device events are reported; the day summary
// splits at midnight UTC.
func TestSummaryFigures(t *testing.T) {
	f := &feeder{t: t, b: NewBuilder()}
	f.b.Settings(1, "bac-07", "rws")
	f.seq = 1
	f.ev(round.NewShoe, 0, "", round.Effect{Kind: round.ShoeStarted, Shoe: 1, Count: 8}.WithDetail(round.Detail{At: at(0), Set: "S1"}))
	f.ev(round.CardDrawn, 5, "", round.Effect{Kind: round.CardBurned, Shoe: 1, Card: card(t, "7H")}.WithDetail(round.Detail{At: at(5)}))
	f.dealRound(1, 10) // cards at 10..40, settled at 45
	// Round 2: two holds, 100-400 and 300-700 (overlapping: 600 s held), then void at 710.
	f.ev(round.CardDrawn, 100, "", round.Effect{Kind: round.CardPlaced, Shoe: 1, Round: 2, Slot: baccarat.P1, Card: card(t, "2C")}.WithDetail(round.Detail{At: at(100)}),
		round.Effect{Kind: round.IrregularityRaised, Shoe: 1, Round: 2, ID: 1, Irregularity: irregularities.SimultaneousDraw}.WithDetail(round.Detail{At: at(100), Reason: "two cards at once"}))
	f.ev(round.Report, 300, "", round.Effect{Kind: round.IrregularityRaised, Shoe: 1, Round: 2, ID: 2, Irregularity: irregularities.WrongHand}.WithDetail(round.Detail{At: at(300), Reason: "dealt to the wrong hand"}))
	f.ev(round.DeviceLost, 320, "shuffler")
	f.ev(round.DeviceBack, 330, "shuffler")
	f.ev(round.Decide, 400, "", round.Effect{Kind: round.IrregularityResolved, ID: 1, Irregularity: irregularities.SimultaneousDraw, Choice: irregularities.AsRead, Role: irregularities.Supervisor}.WithDetail(round.Detail{At: at(400), Actor: "S17"}))
	f.ev(round.Decide, 700, "", round.Effect{Kind: round.IrregularityResolved, ID: 2, Irregularity: irregularities.WrongHand, Choice: irregularities.Void, Role: irregularities.PitManager}.WithDetail(round.Detail{At: at(700), Actor: "M3"}))
	f.ev(round.Decide, 710, "", round.Effect{Kind: round.RoundVoided, Shoe: 1, Round: 2}.WithDetail(round.Detail{At: at(710), Reason: "decided void (RWS Baccarat 5.8)"}))
	f.b.Settings(f.seq+1, "bac-07", "rws") // a restart
	f.seq++
	f.ev(round.PowerRestored, 720, "")
	f.dealRound(3, 1000) // cards at 1000..1030 (past midnight), settled at 1035
	r := f.b.Finish(nil)

	if len(r.Shoes) != 1 {
		t.Fatalf("%d shoes", len(r.Shoes))
	}
	s := r.Shoes[0]
	sum := s.Summary
	if sum.Rounds != 2 || sum.Player != 2 || sum.Void != 1 || sum.Held != 600*time.Second ||
		sum.Irregularities["simultaneous_draw"] != 1 || sum.Irregularities["wrong_hand"] != 1 {
		t.Errorf("summary %+v", sum)
	}
	// 10 cards (1 burned, 4 + 1 + 4 placed) from 5 s to 1030 s, less 600 s held: 425 s.
	if sum.Cards != 10 || sum.Dealing != 425*time.Second || sum.CardsPerHour != 84 {
		t.Errorf("cards %d, dealing %v, per hour %d; want 10, 7m05s, 84", sum.Cards, sum.Dealing, sum.CardsPerHour)
	}
	if d := s.Irregularities[1].Decision; d == nil || d.Actor != "M3" || d.Role != irregularities.PitManager || !d.At.Equal(at(700)) ||
		s.Irregularities[0].Rule != "RWS Baccarat 5.10" {
		t.Errorf("irregularities %+v %+v", s.Irregularities[0], s.Irregularities[1])
	}
	if rd := s.Rounds[1]; !rd.Void || rd.VoidReason == "" || len(rd.Irregularities) != 2 || len(rd.Player) != 1 {
		t.Errorf("round 2 %+v", rd)
	}
	var kinds []string
	for _, e := range s.Events {
		kinds = append(kinds, string(e.Kind)+":"+e.Detail)
	}
	if got := strings.Join(kinds, " "); got != "device-lost:shuffler device-back:shuffler table-started:the table was started again on its journal power-restored:" {
		t.Errorf("events %s", got)
	}
	if len(r.Days) != 2 || r.Days[0].Day != "2026-03-01" || r.Days[0].Rounds != 1 || r.Days[0].Void != 1 ||
		r.Days[1].Day != "2026-03-02" || r.Days[1].Rounds != 1 || r.Days[0].Held != 600*time.Second ||
		r.Days[0].Cards != 6 || r.Days[0].CardsPerHour != 227 || r.Days[1].Cards != 4 || r.Days[1].CardsPerHour != 0 {
		t.Errorf("days %+v", r.Days)
	}

	var b bytes.Buffer
	if err := WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 4 {
		t.Fatalf("csv: %d rows, %v", len(rows), err)
	}
	if got := strings.Join(rows[2], "|"); !strings.Contains(got, "|void|no|no|no|decided void (RWS Baccarat 5.8)|0|0|0|#1 simultaneous_draw (RWS Baccarat 5.10): as-read by supervisor S17; #2 wrong_hand (RWS Baccarat 5.8): void by pit_manager M3|") {
		t.Errorf("void round row %s", got)
	}
	if got := strings.Join(rows[1], "|"); !strings.Contains(got, "|9S KD|3H QC|9|3|player|yes|no|no||1|100|200|") {
		t.Errorf("round 1 row %s", got)
	}
	if one := r.Only(1); one == nil || len(one.Shoes) != 1 || one.Shoes[0].Summary.Cards != 10 {
		t.Errorf("Only(1): %+v", one)
	}
	if r.Only(2) != nil {
		t.Error("Only(2) found a shoe")
	}
}
