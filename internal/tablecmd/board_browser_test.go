package tablecmd

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tablectl/tablectl/internal/chromiumtest"
)

// boardRecorder records on the board's page, in window.holdLog, each change of the round
// panel's hold and of the phase, with what the page shows once the change is drawn;
// olds are the phase's values the changes replaced. window.results has each round's
// result from the board's own event stream.
const boardRecorder = `(() => {
  window.holdLog = [];
  window.results = {};
  const hands = document.getElementById('hands'), phase = document.getElementById('phase');
  const mo = new MutationObserver((records) => {
    const w = document.querySelector('.hand.winner');
    window.holdLog.push({
      hold: hands.dataset.hold || '', heldMs: +(hands.dataset.heldMs || -1), phase: phase.dataset.phase,
      round: +document.getElementById('round').textContent || 0, winner: w ? w.id : '',
      cards: document.querySelectorAll('#hands .slot .card').length,
      olds: records.filter((r) => r.target === phase).map((r) => r.oldValue || ''),
    });
  });
  mo.observe(hands, { attributes: true, attributeFilter: ['data-hold'] });
  mo.observe(phase, { attributes: true, attributeFilter: ['data-phase'], attributeOldValue: true });
  const es = new EventSource('events');
  es.addEventListener('result', (e) => { const r = JSON.parse(e.data); window.results[r.round] = r.void ? 'void' : r.winner; });
  return true;
})()`

// boardNote is one entry of the page's holdLog.
type boardNote struct {
	Hold   string   `json:"hold"`
	HeldMs int      `json:"heldMs"`
	Phase  string   `json:"phase"`
	Round  int      `json:"round"`
	Winner string   `json:"winner"`
	Cards  int      `json:"cards"`
	Olds   []string `json:"olds"`
}

// roundGaps reads a journal's replay for each round's pause: from the shoe's stamp on
// its last card to its stamp on the next round's first card.
func roundGaps(t *testing.T, replay string) map[int]time.Duration {
	t.Helper()
	cardLine := regexp.MustCompile(`^#\d+ \S+ card \S+ shoe=(\d+)ms`)
	complete := regexp.MustCompile(`^    round-complete round=(\d+) `)
	gaps := map[int]time.Duration{}
	var last uint64
	done, doneAt := 0, uint64(0)
	for _, line := range strings.Split(replay, "\n") {
		if m := cardLine.FindStringSubmatch(line); m != nil {
			last, _ = strconv.ParseUint(m[1], 10, 32)
			continue
		}
		if m := complete.FindStringSubmatch(line); m != nil {
			done, _ = strconv.Atoi(m[1])
			doneAt = last
			continue
		}
		if strings.HasPrefix(line, "    card-placed P1 ") && done > 0 {
			gaps[done] = time.Duration(last-doneAt) * time.Millisecond
			done = 0
		}
	}
	return gaps
}

// TestBoardShowsEveryResult runs the README's simulated table at a pace of 100 ms with a
// board, and watches the board in Chromium. The table publishes each round's complete
// state, its result and the next round's betting at once; the board shows every round's
// result, phase Result with the winner framed, and nothing else, until its result hold
// is over (by the page's clock) or the next round's first card comes, which the
// simulated dealer draws only after the same pause (by the shoe's stamps). It keeps
// test-artifacts/internal/tablecmd/board-simulated-result.png.
func TestBoardShowsEveryResult(t *testing.T) {
	t.Parallel()
	const hold = time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tablectl.yaml")
	if err := os.WriteFile(cfg, []byte("board:\n  result_hold: 1s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jdir := filepath.Join(dir, "journal")
	done, lines := startRun(t, ctx, "--config", cfg, "--simulate", "--pace", "100ms", "--journal", jdir,
		"--http", "127.0.0.1:0", "--broker-listen", "127.0.0.1:0", "--broker-websocket", "")
	var url string
	for l := range lines {
		if u, ok := strings.CutPrefix(l, "display board: "); ok {
			url = u
			break
		}
	}
	go func() {
		for range lines {
		}
	}()
	if url == "" {
		t.Fatalf("no board address printed: %v", <-done)
	}
	page := chromiumtest.New(t, 1920, 1080)
	browse(t, page, "open the board", chromedp.Navigate(url), waitJS(`document.getElementById('link').dataset.state === 'live'`))
	if !evalJS[bool](t, page, boardRecorder) {
		t.Fatal("the recorder did not start")
	}
	// A round held, for the picture; then five holds over.
	browse(t, page, "a round held", waitJS(`document.getElementById('hands').dataset.hold === 'on'`))
	screenshot(t, page, "board-simulated-result.png")
	c, stop := context.WithTimeout(page, 3*time.Minute)
	err := chromedp.Do(c, waitJS(`window.holdLog.filter((n, i) => i > 0 && window.holdLog[i - 1].hold === 'on' && n.hold !== 'on').length >= 5`))
	stop()
	log := evalJS[[]boardNote](t, page, `window.holdLog`)
	results := evalJS[map[string]string](t, page, `window.results`)
	cancel()
	if runErr := <-done; runErr != nil {
		t.Errorf("run: %v", runErr)
	}
	if err != nil {
		t.Fatalf("five holds did not end: %v\nlog %+v", err, log)
	}
	out, _, err := runCmd(t, "", "journal", "replay", jdir)
	if err != nil {
		t.Fatal(err)
	}
	gaps := roundGaps(t, out)

	frame := map[string]string{"banker": "banker-hand", "player": "player-hand", "tie": ""}
	held, byTimer, first, last := 0, 0, 0, 0
	for i := 0; i < len(log); i++ {
		n := log[i]
		if n.Hold != "on" {
			continue
		}
		r := n.Round
		if first == 0 {
			first = r
		} else if r != last+1 {
			t.Errorf("round %d held after round %d: the rounds between were not", r, last)
		}
		want, ok := frame[results[strconv.Itoa(r)]]
		if n.Phase != "complete" || !ok || n.Winner != want || n.Cards < 4 {
			t.Errorf("round %d held as %+v; its result %q", r, n, results[strconv.Itoa(r)])
		}
		// Until the hold ends, nothing else is shown.
		for i+1 < len(log) && log[i+1].Hold == "on" {
			i++
			if m := log[i]; m.Phase != "complete" || m.Round != r || strings.Join(m.Olds, "") != strings.Repeat("complete", len(m.Olds)) {
				t.Errorf("while round %d was held the page showed %+v", r, m)
			}
		}
		if i+1 == len(log) {
			break // still held when the test stopped
		}
		i++
		end := log[i]
		switch {
		case end.Hold == "timer" && end.HeldMs >= int(hold/time.Millisecond):
			byTimer++
		case end.Hold == "card" && gaps[r] >= hold:
			// The next round's first card came before the page's timer ran out, and
			// the dealer had paused the hold by the shoe's clock.
		default:
			t.Errorf("round %d's hold ended %+v; the dealer paused %s before the next round", r, end, gaps[r])
		}
		held, last = held+1, r
	}
	t.Logf("rounds %d to %d held: %d until the hold was over, %d until the next round's first card", first, last, byTimer, held-byTimer)
	if held < 5 {
		t.Errorf("%d rounds held to their end, want 5: %+v", held, log)
	}
}
