package table

import (
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/round"
)

// earlyNode is a node at a table with a shuffler, no shoe in play, whose cards wait
// wait for the shuffler's report.
func earlyNode(t *testing.T, wait time.Duration) (*Node, func() (effects string, acks int)) {
	t.Helper()
	rc := round.DefaultConfig(baccarat.MustLookup("rws", baccarat.Options{}))
	rc.Burn, rc.SimultaneousWindow, rc.CloseBetsOnFirstCard = round.BurnNone, 0, true
	n, err := New(Config{Table: "T1", NoMessages: true, Round: rc, AutoConfirm: true, ReportWait: wait})
	if err != nil {
		t.Fatal(err)
	}
	return n, func() (string, int) {
		rd := n.Ready()
		var got []string
		for _, s := range rd.Steps {
			for _, e := range s.Effects {
				got = append(got, e.String())
			}
		}
		n.Advance()
		return strings.Join(got, "\n"), len(rd.Acks)
	}
}

func earlyCard(c string, no uint16, at time.Time) device.Event {
	return device.Event{Kind: device.CardDrawn, Card: baccarat.MustParseCard(c), CardNo: no, HasCardNo: true, Time: at}
}

var report5 = device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416, Time: t0}

// TestCardWaitsForItsSetsReport: a card drawn while the table waits for a set is held,
// unacknowledged, with the shoe's events after it; the shuffler's report loads the set
// and the cards are dealt from it, in the shoe's order.
func TestCardWaitsForItsSetsReport(t *testing.T) {
	n, take := earlyNode(t, time.Minute)
	n.Shoe(earlyCard("9H", 1, t0))
	n.Shoe(earlyCard("5C", 2, t0.Add(time.Second)))
	if got, acks := take(); got != "" || acks != 0 || n.Held() != 2 {
		t.Fatalf("before the report: effects %q, %d acks, %d held; want nothing stepped and 2 held", got, acks, n.Held())
	}
	if due, ok := n.Due(); !ok || !due.Equal(t0.Add(time.Minute)) {
		t.Errorf("due %s %v, want the first card's time and the wait", due, ok)
	}
	n.Shuffler(report5)
	got, acks := take()
	if !strings.Contains(got, "shoe-started shoe=1 set=5") || !strings.Contains(got, "card-placed P1 9H") ||
		!strings.Contains(got, "card-placed B1 5C") || acks != 2 || n.Held() != 0 {
		t.Fatalf("after the report: %d acks, %d held, effects\n%s", acks, n.Held(), got)
	}
	if _, ok := n.Due(); ok {
		t.Error("the node still waits for a time")
	}
}

// TestReportWaitRunsOut: with no report, the held card is taken as it came once the
// wait has run from its time: at a Tick then (not sooner), or before a shoe event
// stamped then; it is not due, no shoe being in play.
func TestReportWaitRunsOut(t *testing.T) {
	n, take := earlyNode(t, 5*time.Second)
	n.Shoe(earlyCard("9H", 1, t0))
	due := t0.Add(5 * time.Second)
	n.Tick(due.Add(-time.Millisecond))
	if got, _ := take(); got != "" || n.Held() != 1 {
		t.Fatalf("before the wait ran out: %q, %d held", got, n.Held())
	}
	n.Tick(due)
	if got, acks := take(); !strings.Contains(got, "card-not-due 9H") || acks != 1 || n.Held() != 0 {
		t.Fatalf("once the wait ran out: %d acks, %d held, effects %q", acks, n.Held(), got)
	}
	if notes := len(n.Ready().Notes); notes != 0 {
		t.Errorf("%d notes left", notes)
	}

	n, take = earlyNode(t, 5*time.Second)
	n.Shoe(earlyCard("9H", 1, t0))
	n.Shoe(earlyCard("5C", 2, due))
	if got, acks := take(); strings.Count(got, "card-not-due") != 2 || acks != 2 || n.Held() != 0 {
		t.Fatalf("a card stamped at the wait's end: %d acks, %d held, effects %q", acks, n.Held(), got)
	}
}

// TestShufflerClosedReleases: once no report can come, the held events are taken as
// they came, and later cards are not held.
func TestShufflerClosedReleases(t *testing.T) {
	n, take := earlyNode(t, time.Minute)
	n.Shoe(earlyCard("9H", 1, t0))
	n.ShufflerClosed()
	if got, acks := take(); !strings.Contains(got, "card-not-due 9H") || acks != 1 {
		t.Fatalf("after the shuffler closed: %d acks, effects %q", acks, got)
	}
	n.Shoe(earlyCard("5C", 2, t0))
	if _, acks := take(); acks != 1 || n.Held() != 0 {
		t.Errorf("a card after the shuffler closed: %d acks, %d held", acks, n.Held())
	}
}

// TestReportWaitOfAnUnstampedCard: a card that comes with no time of its own waits from
// the table's clock (its last Tick), and runs out as a stamped one does.
func TestReportWaitOfAnUnstampedCard(t *testing.T) {
	n, take := earlyNode(t, 5*time.Second)
	n.Tick(t0)
	n.Shoe(earlyCard("9H", 1, time.Time{}))
	if due, ok := n.Due(); !ok || !due.Equal(t0.Add(5*time.Second)) {
		t.Fatalf("the wait is due at %v (%v), want 5s after the table's clock, %v", due, ok, t0.Add(5*time.Second))
	}
	n.Tick(t0.Add(time.Second))
	if got, _ := take(); got != "" || n.Held() != 1 {
		t.Fatalf("a second in: %q, %d held", got, n.Held())
	}
	n.Tick(t0.Add(5 * time.Second))
	if got, acks := take(); !strings.Contains(got, "card-not-due 9H") || acks != 1 || n.Held() != 0 {
		t.Errorf("once the wait ran out: %d acks, %d held, effects %q", acks, n.Held(), got)
	}
}
