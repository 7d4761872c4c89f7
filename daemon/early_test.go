package daemon

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/round"
)

// countingAcker records the card numbers acknowledged to the shoe.
type countingAcker struct {
	mu  sync.Mutex
	nos []uint16
}

func (a *countingAcker) Ack(ev device.Event) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nos = append(a.nos, ev.CardNo)
	return nil
}

func (a *countingAcker) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.nos)
}

// earlyTable serves a table whose shoe and shuffler channels are unbuffered: a send
// returns once the loop has taken the event, so the test sets the order in which the
// loop sees the two lines. It returns the running table, its acker and the trace of
// every effect (read it after close).
func earlyTable(t *testing.T, wait time.Duration, setup func(*Config)) (*running, *countingAcker, *bytes.Buffer) {
	t.Helper()
	cfg := testConfig(t, t.TempDir())
	cfg.ReportWait = wait
	if setup != nil {
		setup(&cfg)
	}
	trace := &bytes.Buffer{}
	cfg.Trace = trace
	a := &countingAcker{}
	f := &feed{shoe: make(chan device.Event), shuffler: make(chan device.Event)}
	r := startFeed(t, cfg, f, func(d *Daemon) { d.SetShoe(a) })
	return r, a, trace
}

// setCard is card c numbered no, as the tablectl protocol carries it (with no set).
func setCard(c string, no uint16) device.Event {
	return device.Event{Kind: device.CardDrawn, Card: baccarat.MustParseCard(c), CardNo: no, HasCardNo: true,
		Time: time.Date(2026, 11, 22, 22, 0, int(no), 0, time.UTC)}
}

// TestCardsBeforeTheirSetsReport: the shoe's first cards of set 5 reach the loop before
// the shuffler's report of set 5, while no shoe is in play, as after a restart, when the shoe resends its backlog
// and the shuffler repeats its report on two lines with no order between them. The
// cards wait, unacknowledged, and the shoe's later events wait behind them; once the
// report comes the set is loaded and the round is dealt from its first card, as the
// shoe dealt it. Taken as they came, the first cards would be not due (no shoe in play)
// and the round would lack them.
func TestCardsBeforeTheirSetsReport(t *testing.T) {
	t.Parallel()
	r, a, trace := earlyTable(t, time.Minute, nil)
	f := r.f
	f.shoe <- setCard("9H", 1)
	f.shoe <- setCard("5C", 2)
	if n := a.count(); n != 0 {
		t.Errorf("%d cards acknowledged before their set was reported", n)
	}
	f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	f.shoe <- setCard("KS", 3)
	f.shoe <- setCard("KD", 4)
	r.settle(t)
	r.close(t)
	out := trace.String()
	if strings.Contains(out, "card-not-due") {
		t.Errorf("a card was not due:\n%s", out)
	}
	if !strings.Contains(out, "shoe-started shoe=1 set=5") || !strings.Contains(out, "round-settled round=1") {
		t.Errorf("round 1 of shoe 1 was not settled:\n%s", out)
	}
	if got := placedCards(out); got != "9H 5C KS KD" {
		t.Errorf("cards placed %q, want 9H 5C KS KD in the shoe's order:\n%s", got, out)
	}
	if a.count() != 4 {
		t.Errorf("acknowledged %v, want the 4 cards", a.nos)
	}
}

// TestCardOfASetNeverReported: a card drawn while no shoe is in play, with no report
// from the shuffler, waits at most ReportWait, then is taken as it came: not due. Idle
// waits for it.
func TestCardOfASetNeverReported(t *testing.T) {
	t.Parallel()
	r, a, trace := earlyTable(t, 50*time.Millisecond, nil)
	f := r.f
	f.shoe <- setCard("9H", 1)
	r.idle(t)
	if n := a.count(); n != 1 {
		t.Errorf("the loop went idle with %d cards acknowledged, want the card taken and acknowledged", n)
	}
	r.close(t)
	if out := trace.String(); !strings.Contains(out, "card-not-due 9H") || !strings.Contains(out, "no shoe is in play") {
		t.Errorf("the card was not taken as not due:\n%s", out)
	}
}

// TestCardBeforeTheNextSetsReport: at a Royal Baccarat table that reshuffles after every
// round (Royal Baccarat, End of round), the first card of the next set reaches the loop
// before the shuffler's report of that set, as the simulator dealing at full speed can
// make it. It waits for the report, and is dealt as the next set's first card; taken as
// it came it would be an excess card of the finished set (RWS Baccarat 5.7), held for a
// decision.
func TestCardBeforeTheNextSetsReport(t *testing.T) {
	t.Parallel()
	r, _, trace := earlyTable(t, time.Minute, func(c *Config) {
		c.Round = round.DefaultConfig(baccarat.MustLookup("royal", baccarat.Options{}))
		c.Round.Burn, c.Round.SimultaneousWindow, c.Round.CloseBetsOnFirstCard, c.Round.SetPerRound = round.BurnNone, 0, true, true
	})
	f := r.f
	f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	for i, c := range strings.Fields("9H 5C KS KD") {
		f.shoe <- setCard(c, uint16(i+1))
	}
	f.shoe <- setCard("8S", 5) // set 6's first card, before its report
	f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 6, Decks: 8, Cards: 416}
	for i, c := range strings.Fields("9C KS KD") {
		f.shoe <- setCard(c, uint16(i+6))
	}
	r.settle(t)
	r.close(t)
	out := trace.String()
	if strings.Contains(out, "card-not-due") || strings.Contains(out, "irregularity-raised") {
		t.Errorf("a card was not due, or an irregularity raised:\n%s", out)
	}
	if !strings.Contains(out, "set-loaded shoe=1 set=6") || strings.Count(out, "round-settled") != 2 {
		t.Errorf("want set 6 loaded and two rounds settled:\n%s", out)
	}
	if got := placedCards(out); got != "9H 5C KS KD 8S 9C KS KD" {
		t.Errorf("cards placed %q, want 9H 5C KS KD 8S 9C KS KD:\n%s", got, out)
	}
}

// placedCards lists the cards of the card-placed effects in a trace, in order.
func placedCards(trace string) string {
	var cards []string
	for _, line := range strings.Split(trace, "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && f[1] == "card-placed" {
			cards = append(cards, f[3])
		}
	}
	return strings.Join(cards, " ")
}
