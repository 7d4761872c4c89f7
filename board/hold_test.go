package board

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// holdRecorder records, in window.holdLog, each change of the round panel's hold and of
// the phase, with what the page shows once the change is drawn: the phase, the round,
// the hand framed as the winner and the cards on the layout; olds are the phase's
// values each change replaced.
const holdRecorder = `(() => {
  window.holdLog = [];
  const hands = document.getElementById('hands'), phase = document.getElementById('phase');
  const note = (records) => {
    const w = document.querySelector('.hand.winner');
    window.holdLog.push({
      hold: hands.dataset.hold || '', heldMs: +(hands.dataset.heldMs || -1), phase: phase.dataset.phase,
      round: document.getElementById('round').textContent, winner: w ? w.id : '',
      cards: document.querySelectorAll('#hands .slot .card').length,
      olds: records.filter((r) => r.target === phase).map((r) => r.oldValue || ''),
    });
  };
  const mo = new MutationObserver(note);
  mo.observe(hands, { attributes: true, attributeFilter: ['data-hold'] });
  mo.observe(phase, { attributes: true, attributeFilter: ['data-phase'], attributeOldValue: true });
  return true;
})()`

// holdNote is one entry of the page's holdLog.
type holdNote struct {
	Hold   string   `json:"hold"`
	HeldMs int      `json:"heldMs"`
	Phase  string   `json:"phase"`
	Round  string   `json:"round"`
	Winner string   `json:"winner"`
	Cards  int      `json:"cards"`
	Olds   []string `json:"olds"`
}

func holdLog(t *testing.T, ctx context.Context) []holdNote {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]holdNote](`window.holdLog`))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// roundMessages splits the dealt shoe's messages at each round's first card: the
// messages before round n's first card are d.msgs[:at[n]].
func roundMessages(t *testing.T, d dealtShoe) (at map[int]int) {
	t.Helper()
	at = map[int]int{}
	for i, m := range d.msgs {
		if !strings.HasSuffix(m.topic, "/card") {
			continue
		}
		var c struct {
			Round int `json:"round"`
		}
		if err := json.Unmarshal(m.payload, &c); err != nil {
			t.Fatal(err)
		}
		if _, ok := at[c.Round]; !ok {
			at[c.Round] = i
		}
	}
	return at
}

// TestBoardHoldsTheResult: the table publishes a round's complete state, its result and
// the next round's betting in the same moment, as a table standing in for the dealer
// does. The board keeps the completed round on screen, phase Result with the winner
// framed, for the result hold; then the next round's betting shows. A next round's first
// card that comes sooner ends the hold at once. It keeps the held round's screenshot in
// test-artifacts/board/board-result-hold.png.
func TestBoardHoldsTheResult(t *testing.T) {
	t.Parallel()
	const hold = 700 * time.Millisecond
	ctx := newBrowser(t)
	br := startBroker(t)
	b := newBoard(t, Options{Broker: br.URL(), Table: "t1", ResultHold: hold})
	srv := serve(t, b, nil)
	pub := newPublisher(t, br.URL(), "t1")
	d := dealShoe(t, "t1")
	at := roundMessages(t, d)

	pub.publish(pub.c.Topics().Status(), d.status, true)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	b.waitUntil(t, "the page is connected", func() bool { return b.hub.clientCount() == 1 })
	if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](holdRecorder)); err != nil || !ok {
		t.Fatalf("recorder: %v", err)
	}
	// Round 1 (Banker 7-6), its result, round 2's betting opened and closed.
	for _, m := range d.msgs[:at[2]] {
		pub.publish(m.topic, m.payload, m.retained)
	}
	poll(t, ctx, `document.getElementById('hands').dataset.hold === 'timer'`)
	log := holdLog(t, ctx)
	on := -1
	for i, n := range log {
		if n.Hold == "on" {
			on = i
			break
		}
	}
	if on < 0 {
		t.Fatalf("round 1 was never held: %+v", log)
	}
	if n := log[on]; n.Phase != "complete" || n.Round != "1" || n.Winner != "banker-hand" || n.Cards != 4 {
		t.Errorf("held: %+v, want round 1 complete, the Banker framed, its 4 cards", n)
	}
	for _, n := range log[on+1:] {
		if n.Hold != "on" {
			break
		}
		if n.Phase != "complete" || n.Round != "1" || n.Winner != "banker-hand" || n.Cards != 4 || strings.Join(n.Olds, "") != strings.Repeat("complete", len(n.Olds)) {
			t.Errorf("while round 1 was held the page showed %+v", n)
		}
	}
	end := log[len(log)-1]
	if end.Hold != "timer" || end.HeldMs < int(hold/time.Millisecond) {
		t.Errorf("the hold ended %+v, want by its timer after at least %s", end, hold)
	}
	if end.Phase != "dealing" || end.Round != "2" || end.Cards != 0 || end.Winner != "" {
		t.Errorf("after the hold the page shows %+v, want round 2, bets closed, no card yet", end)
	}

	// A board whose hold outlasts the test: round 2 is completed, and round 3's first
	// card ends its hold at once; the card shows.
	long := newBoard(t, Options{Broker: br.URL(), Table: "t1", ResultHold: time.Hour})
	longSrv := serve(t, long, nil)
	if err := chromedp.Do(ctx, chromedp.Navigate(longSrv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	long.waitUntil(t, "the page is connected", func() bool { return long.hub.clientCount() == 1 })
	if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](holdRecorder)); err != nil || !ok {
		t.Fatalf("recorder: %v", err)
	}
	for _, m := range d.msgs[at[2]:at[3]] {
		pub.publish(m.topic, m.payload, m.retained)
	}
	poll(t, ctx, `document.getElementById('hands').dataset.hold === 'on' && document.getElementById('round').textContent === '2'`)
	settle(t, ctx)
	screenshot(t, ctx, "board-result-hold.png")
	if v := read(t, ctx); v.Phase != "Result 开牌" || len(v.Cards) != 5 {
		t.Errorf("held round 2: phase %q, cards %v; want Result 开牌 and its 5 cards", v.Phase, v.Cards)
	}
	pub.publish(d.msgs[at[3]].topic, d.msgs[at[3]].payload, d.msgs[at[3]].retained)
	poll(t, ctx, `document.getElementById('hands').dataset.hold === 'card'`)
	log = holdLog(t, ctx)
	if end := log[len(log)-1]; end.Round != "3" || end.Cards != 1 || end.Phase != "dealing" || end.Winner != "" {
		t.Errorf("after round 3's first card the page shows %+v, want round 3 dealing with its card", end)
	}
}
