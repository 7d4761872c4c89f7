package alerts

import (
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 2, 14, 10, 0, 0, time.UTC)

func ids(as []Alert) string {
	var s []string
	for _, a := range as {
		s = append(s, a.ID+" "+a.Text)
	}
	return strings.Join(s, "\n")
}

// TestHeld: a table held for HeldAfter raises one alert, not before, and once however
// long it stays held; another hold is another alert.
func TestHeld(t *testing.T) {
	w := NewWatch(Rules{HeldAfter: 5 * time.Minute})
	held := Table{ID: "t1", Pit: "p1", Online: true, Held: 4, HeldKind: "simultaneous_draw", HeldSince: t0}
	if a := w.Check(t0.Add(4*time.Minute+59*time.Second), []Table{held}); len(a) != 0 {
		t.Fatalf("before 5 minutes: %s", ids(a))
	}
	a := w.Check(t0.Add(7*time.Minute), []Table{held})
	if got := ids(a); got != "held/t1/2026-03-02T14:10:00Z/4 held 7 minutes for #4 simultaneous draw" || a[0].Pit != "p1" || !a[0].Raised.Equal(t0.Add(7*time.Minute)) {
		t.Fatalf("at 7 minutes: %q %+v", got, a)
	}
	if a := w.Check(t0.Add(20*time.Minute), []Table{held}); len(a) != 0 {
		t.Fatalf("raised again: %s", ids(a))
	}
	held.Held, held.HeldSince = 5, t0.Add(30*time.Minute)
	if a := w.Check(t0.Add(36*time.Minute), []Table{held}); len(a) != 1 || !strings.HasPrefix(a[0].ID, "held/t1/2026-03-02T14:40:00Z/5") {
		t.Fatalf("another hold: %s", ids(a))
	}
	// Known from the archive: not raised again after a restart.
	w = NewWatch(Rules{HeldAfter: 5 * time.Minute})
	w.Known("held/t1/2026-03-02T14:40:00Z/5")
	if a := w.Check(t0.Add(40*time.Minute), []Table{held}); len(a) != 0 {
		t.Fatalf("a known alert raised again: %s", ids(a))
	}
}

// TestNoDealer: a table dealing with no dealer on raises an alert once; a dealer coming
// ends it, and dealing again with none is another.
func TestNoDealer(t *testing.T) {
	w := NewWatch(Rules{NoDealer: true})
	tb := Table{ID: "t2", Online: true, Dealing: true}
	if a := w.Check(t0, []Table{tb}); ids(a) != "no-dealer/t2/2026-03-02T14:10:00Z dealing with no dealer on" {
		t.Fatalf("%s", ids(a))
	}
	if a := w.Check(t0.Add(time.Minute), []Table{tb}); len(a) != 0 {
		t.Fatalf("raised twice: %s", ids(a))
	}
	tb.Dealer = "D-ANA"
	w.Check(t0.Add(2*time.Minute), []Table{tb})
	tb.Dealer = ""
	if a := w.Check(t0.Add(3*time.Minute), []Table{tb}); len(a) != 1 || a[0].Since != t0.Add(3*time.Minute) {
		t.Fatalf("dealing again with none: %s", ids(a))
	}
	// Not dealing (betting open), or a rule off: nothing.
	if a := NewWatch(Rules{NoDealer: true}).Check(t0, []Table{{ID: "t3", Online: true}}); len(a) != 0 {
		t.Fatalf("not dealing: %s", ids(a))
	}
	if a := NewWatch(Rules{}).Check(t0, []Table{{ID: "t3", Online: true, Dealing: true}}); len(a) != 0 {
		t.Fatalf("the rule off: %s", ids(a))
	}
}

// TestArchiveLate: a table late at the archive raises an alert, once a stretch.
func TestArchiveLate(t *testing.T) {
	w := NewWatch(Rules{ArchiveLate: true})
	tb := Table{ID: "t4", Online: true, LateSince: t0.Add(-6 * time.Minute)}
	if a := w.Check(t0, []Table{tb}); ids(a) != "archive-late/t4/2026-03-02T14:04:00Z not archived for 6 minutes" {
		t.Fatalf("%s", ids(a))
	}
	if a := w.Check(t0.Add(time.Minute), []Table{tb}); len(a) != 0 {
		t.Fatalf("raised twice: %s", ids(a))
	}
}

// TestPace: at each clock hour's end, a table that dealt in it with fewer rounds than
// PaceMin, or more than PaceMax, raises an alert; the hour the watch started in is not
// whole, and is not judged; a table that dealt nothing is not judged.
func TestPace(t *testing.T) {
	w := NewWatch(Rules{PaceMin: 30, PaceMax: 90})
	w.Check(t0, nil) // starts in the 14:00 hour
	for i := range 10 {
		w.Round("slow", "p1", "", t0.Add(time.Duration(i)*time.Minute)) // the 14:00 hour: not judged
	}
	h15 := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	for i := range 29 {
		w.Round("slow", "p1", "", h15.Add(time.Duration(i)*2*time.Minute))
	}
	for i := range 91 {
		w.Round("fast", "p2", "", h15.Add(time.Duration(i)*39*time.Second))
	}
	for i := range 30 {
		w.Round("right", "p2", "", h15.Add(time.Duration(i)*2*time.Minute))
	}
	if a := w.Check(h15.Add(59*time.Minute), nil); len(a) != 0 {
		t.Fatalf("before the hour's end: %s", ids(a))
	}
	a := w.Check(h15.Add(61*time.Minute), nil)
	want := "pace/fast/2026-03-02T15:00:00Z 91 rounds 15:00–16:00, above 90 an hour\n" +
		"pace/slow/2026-03-02T15:00:00Z 29 rounds 15:00–16:00, below 30 an hour"
	if got := ids(a); got != want {
		t.Fatalf("at 16:01:\n%s\nwant\n%s", got, want)
	}
	if a[1].Pit != "p1" {
		t.Fatalf("the slow table's pit: %q", a[1].Pit)
	}
	if a := w.Check(h15.Add(3*time.Hour), nil); len(a) != 0 {
		t.Fatalf("hours with no rounds: %s", ids(a))
	}
}

// TestRulesCheck refuses what is no rule.
func TestRulesCheck(t *testing.T) {
	for _, r := range []Rules{{HeldAfter: -1}, {PaceMin: -1}, {PaceMin: 50, PaceMax: 40}, {DeviceFailures: -1}} {
		if r.Check() == nil {
			t.Errorf("%+v passed", r)
		}
	}
	if err := DefaultRules.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestDeviceFailures: a device failing DeviceFailures times within an hour raises one
// alert, since its first failure; failures spread wider than an hour raise none; after
// an alert the count starts again, so the next alert needs as many failures more. Each
// device of a table counts apart.
func TestDeviceFailures(t *testing.T) {
	w := NewWatch(Rules{DeviceFailures: 3})
	tb := Table{ID: "t4", Pit: "p2", Online: true}
	fail := func(dev string, at time.Duration) {
		tb.Failures = append(tb.Failures, Failure{Device: dev, At: t0.Add(at)})
	}
	fail("shoe", 0)
	fail("shoe", 50*time.Minute)
	fail("shuffler", 51*time.Minute)
	if a := w.Check(t0.Add(55*time.Minute), []Table{tb}); len(a) != 0 {
		t.Fatalf("two failures of the shoe: %s", ids(a))
	}
	fail("shoe", 70*time.Minute) // the first is more than an hour before: two within the hour
	if a := w.Check(t0.Add(70*time.Minute), []Table{tb}); len(a) != 0 {
		t.Fatalf("three failures over 70 minutes: %s", ids(a))
	}
	fail("shoe", 80*time.Minute)
	a := w.Check(t0.Add(81*time.Minute), []Table{tb})
	if got := ids(a); got != "device/t4/shoe/2026-03-02T15:30:00Z shoe failed 3 times in 30 minutes" || !a[0].Since.Equal(t0.Add(50*time.Minute)) || a[0].Pit != "p2" {
		t.Fatalf("three within the hour: %q %+v", got, a)
	}
	fail("shoe", 85*time.Minute)
	fail("shoe", 86*time.Minute)
	if a := w.Check(t0.Add(87*time.Minute), []Table{tb}); len(a) != 0 {
		t.Fatalf("two more after the alert: %s", ids(a))
	}
	fail("shoe", 88*time.Minute)
	fail("shuffler", 88*time.Minute)
	a = w.Check(t0.Add(89*time.Minute), []Table{tb})
	if got := ids(a); got != "device/t4/shoe/2026-03-02T15:38:00Z shoe failed 3 times in 3 minutes" {
		t.Fatalf("three more: %q", got)
	}
	// Another table with the same failures counts its own: the shoe's six within the
	// hour, the shuffler's two, too few.
	a = w.Check(t0.Add(89*time.Minute), []Table{{ID: "t5", Failures: tb.Failures}})
	if got := ids(a); got != "device/t5/shoe/2026-03-02T15:38:00Z shoe failed 6 times in 38 minutes" {
		t.Fatalf("another table's failures: %q", got)
	}
}

// TestDealerPace: a dealer's pace in a clock hour is their rounds per hour on a table
// in it, whichever tables they dealt at; a dealer on less than DealerMinOn of the hour
// is not judged. The alert goes on the table they dealt most at.
func TestDealerPace(t *testing.T) {
	w := NewWatch(Rules{PaceMin: 30, PaceMax: 90})
	h15 := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	w.Check(h15.Add(-time.Minute), nil) // starts in the 14:00 hour
	on := func(from, to time.Duration, tables ...Table) {
		for at := from; at <= to; at += 5 * time.Second {
			w.Check(h15.Add(at), tables)
		}
	}
	ana := Table{ID: "t1", Pit: "p1", Online: true, Dealer: "D-ANA"}
	ben := Table{ID: "t2", Pit: "p1", Online: true, Dealer: "D-BEN"}
	cy := Table{ID: "t3", Pit: "p2", Online: true, Dealer: "D-CY"}
	// D-ANA is on t1 for 20 minutes and on t3 for 20: 24 rounds in 40 minutes on, 36 an
	// hour. D-BEN is on t2 for 40 minutes with 16 rounds, 24 an hour: too slow. D-CY is
	// on t3 for 10 minutes, too short to judge, however slow.
	on(0, 10*time.Minute, ana, ben, cy)
	on(10*time.Minute+5*time.Second, 20*time.Minute, ana, ben)
	on(20*time.Minute+5*time.Second, 40*time.Minute, ben, Table{ID: "t3", Pit: "p2", Online: true, Dealer: "D-ANA"})
	for i := range 10 {
		w.Round("t1", "p1", "D-ANA", h15.Add(time.Duration(i)*2*time.Minute))
	}
	for i := range 14 {
		w.Round("t3", "p2", "D-ANA", h15.Add(20*time.Minute+time.Duration(i)*80*time.Second))
	}
	for i := range 16 {
		w.Round("t2", "p1", "D-BEN", h15.Add(time.Duration(i)*150*time.Second))
	}
	w.Round("t3", "p2", "D-CY", h15.Add(5*time.Minute))
	a := w.Check(h15.Add(61*time.Minute), nil)
	var got []string
	for _, x := range a {
		if strings.Contains(x.ID, "/dealer/") {
			got = append(got, x.ID+" "+x.Table+" "+x.Pit+" "+x.Text)
		}
	}
	want := "pace/dealer/D-BEN/2026-03-02T15:00:00Z t2 p1 dealer D-BEN: 16 rounds in 40 minutes on 15:00–16:00, 24 an hour, below 30"
	if strings.Join(got, "\n") != want {
		t.Fatalf("the dealers' pace:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	// D-ANA dealt most at t3: were she slow, the alert would be t3's.
	w = NewWatch(Rules{PaceMin: 40})
	w.Check(h15.Add(-time.Minute), nil)
	on(0, 20*time.Minute, ana)
	on(20*time.Minute+5*time.Second, 40*time.Minute, Table{ID: "t3", Pit: "p2", Online: true, Dealer: "D-ANA"})
	for i := range 10 {
		w.Round("t1", "p1", "D-ANA", h15.Add(time.Duration(i)*2*time.Minute))
	}
	for i := range 14 {
		w.Round("t3", "p2", "D-ANA", h15.Add(20*time.Minute+time.Duration(i)*80*time.Second))
	}
	a = w.Check(h15.Add(61*time.Minute), nil)
	if len(a) != 3 || a[2].Table != "t3" || !strings.Contains(a[2].Text, "24 rounds in 40 minutes on 15:00–16:00, 36 an hour, below 40") {
		t.Fatalf("D-ANA below 40: %s", ids(a))
	}
}
