package pit

import (
	"math"
	"testing"
	"time"
)

var day = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)

func at(h, m, s int) time.Time {
	return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second)
}

// round is a round of table t dealt by dealer d whose betting opens at open: 20 s of
// betting, 15 s of cards, 5 s to confirm.
func round(t, d, pit string, open time.Time) Round {
	return Round{Table: t, Dealer: d, Pit: pit, Opened: open, FirstCard: open.Add(20 * time.Second),
		Complete: open.Add(35 * time.Second), Settled: open.Add(40 * time.Second)}
}

func TestPhasesOf(t *testing.T) {
	r := round("t1", "ann", "p1", at(10, 0, 0))
	r.Windows, r.Held = 3*time.Second, 2*time.Second
	got := PhasesOf(r)
	want := Phases{Betting: 20 * time.Second, Dealing: 10 * time.Second, Windows: 3 * time.Second, Holds: 2 * time.Second, Confirm: 5 * time.Second}
	if got != want {
		t.Errorf("PhasesOf = %+v, want %+v", got, want)
	}
	r.Opened, r.Settled = time.Time{}, time.Time{}
	if got := PhasesOf(r); got.Betting != 0 || got.Confirm != 0 || got.Dealing != 10*time.Second {
		t.Errorf("with no opening and no settlement: %+v", got)
	}
}

// TestPaceByTableAndDealer: table t1 deals 60 rounds from 10:00, one a minute, Ann the
// first 40 and Bob the rest, then stands still 10:59:30 to 11:20 (the shoe shuffled);
// the figures by hour are counted by hand.
func TestPaceByTableAndDealer(t *testing.T) {
	var rounds []Round
	for i := range 60 {
		d := "ann"
		if i >= 40 {
			d = "bob"
		}
		rounds = append(rounds, round("t1", d, "p1", at(10, i, 0)))
	}
	rounds[5].Void = true
	still := []Still{{Table: "t1", Pit: "p1", Why: "shuffling", From: at(10, 59, 30), To: at(11, 20, 0)}}
	figs := Pace(rounds, still, ByTable, Hours{})
	if len(figs) != 2 {
		t.Fatalf("%d figures, want the hours 10 and 11: %+v", len(figs), figs)
	}
	ten, eleven := figs[0], figs[1]
	// The round opened at 10:59 has its first card at 10:59:20: hour 10.
	if ten.Rounds != 60 || ten.Void != 1 || ten.PerHour != 60 || !ten.From.Equal(at(10, 0, 0)) {
		t.Errorf("hour 10: %d rounds (%d void), %v an hour, from %v; want 60 (1), 60, 10:00", ten.Rounds, ten.Void, ten.PerHour, ten.From)
	}
	if ten.Still != 30*time.Second || eleven.Still != 20*time.Minute || eleven.StillBy["shuffling"] != 20*time.Minute {
		t.Errorf("stand-still split %v and %v (%v), want 30 s and 20 min", ten.Still, eleven.Still, eleven.StillBy)
	}
	if want := 60 / (59.5 / 60); math.Abs(ten.PerDealingHour-want) > 1e-9 {
		t.Errorf("hour 10: %v rounds a dealing hour, want %v", ten.PerDealingHour, want)
	}
	if eleven.Rounds != 0 || eleven.PerDealingHour != 0 {
		t.Errorf("hour 11: %d rounds, %v a dealing hour", eleven.Rounds, eleven.PerDealingHour)
	}
	if m := ten.Mean; m.Betting != 20*time.Second || m.Dealing != 15*time.Second || m.Confirm != 5*time.Second {
		t.Errorf("hour 10 means: %+v", m)
	}
	byDealer := Pace(rounds, still, ByDealer, Hours{})
	if len(byDealer) != 2 || byDealer[0].Key != "ann" || byDealer[0].Rounds != 40 || byDealer[1].Key != "bob" || byDealer[1].Rounds != 20 {
		t.Fatalf("by dealer: %+v, want ann 40 and bob 20", byDealer)
	}
	if byDealer[0].Still != 0 {
		t.Errorf("a dealer's figure counts a table's stand-still: %v", byDealer[0].Still)
	}
}

// TestPaceByPitAndDay: two tables of a pit, their rounds and stand-still summed.
func TestPaceByPitAndDay(t *testing.T) {
	rounds := []Round{round("t1", "ann", "p1", at(9, 0, 0)), round("t2", "cy", "p1", at(9, 0, 0)), round("t3", "di", "p2", at(23, 59, 50))}
	still := []Still{{Table: "t1", Pit: "p1", Why: "offline", From: at(12, 0, 0), To: at(13, 0, 0)},
		{Table: "t2", Pit: "p1", Why: "no dealer", From: at(12, 30, 0), To: at(13, 0, 0)}}
	figs := Pace(rounds, still, ByPit, Days{})
	// t3's round opens at 23:59:50 and has its first card the next day.
	if len(figs) != 2 || figs[0].Key != "p1" || figs[0].Rounds != 2 || figs[0].Still != 90*time.Minute || figs[1].Key != "p2" || !figs[1].From.Equal(at(24, 0, 0)) {
		t.Fatalf("by pit and day: %+v", figs)
	}
	if figs[0].StillBy["offline"] != time.Hour || figs[0].StillBy["no dealer"] != 30*time.Minute {
		t.Errorf("stand-still by reason: %v", figs[0].StillBy)
	}
}

// TestShifts: shifts at 06:00, 14:00 and 22:00; the night shift crosses midnight.
func TestShifts(t *testing.T) {
	s, err := ParseShifts("14:00, 06:00,22:00", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		t, from, to time.Time
	}{
		{at(6, 0, 0), at(6, 0, 0), at(14, 0, 0)},
		{at(13, 59, 59), at(6, 0, 0), at(14, 0, 0)},
		{at(23, 0, 0), at(22, 0, 0), at(30, 0, 0)},
		{at(3, 0, 0), at(-2, 0, 0), at(6, 0, 0)},
	} {
		if from, to := s.Of(c.t); !from.Equal(c.from) || !to.Equal(c.to) {
			t.Errorf("shift of %v: %v to %v, want %v to %v", c.t, from, to, c.from, c.to)
		}
	}
	for _, bad := range []string{"", "6", "25:00", "06:00,06:00"} {
		if _, err := ParseShifts(bad, nil); err == nil {
			t.Errorf("ParseShifts(%q) accepted", bad)
		}
	}
	// A stretch of stand-still over the night shift's midnight stays in one shift.
	figs := Pace(nil, []Still{{Table: "t1", Why: "offline", From: at(23, 0, 0), To: at(25, 0, 0)}}, ByTable, s)
	if len(figs) != 1 || figs[0].Still != 2*time.Hour {
		t.Errorf("night stand-still: %+v", figs)
	}
}
