package board

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/internal/artifacts"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
)

// screens are the screens the board is laid out for: landscape and portrait Full HD,
// the common small landscape panel, and 4K.
var screens = []struct {
	name string
	w, h int64
}{
	{"1920x1080", 1920, 1080},
	{"1080x1920", 1080, 1920},
	{"1366x768", 1366, 768},
	{"3840x2160", 3840, 2160},
}

// The least sizes the board keeps on every screen, as fractions of the screen's shorter
// side (1080 px on a Full HD screen, landscape or portrait), as docs/board.md states
// them: the last result's type, and the side of a road's cell.
const (
	minLastResult  = 0.080 // 86 px on Full HD
	minBeadCell    = 0.036 // 39 px
	minBigRoadCell = 0.050 // 54 px
	minDerivedCell = 0.026 // 28 px
)

// fullShoe is a whole eight-deck shoe dealt through the real round controller and
// message builder from a fixed shuffle: rounds rounds, the last of them complete and
// confirmed, then the first cards of the next one (betting closed), so the board shows
// a round in progress beside a full bead plate.
type fullShoe struct {
	msgs   []mqttMessage
	status []byte
	rounds int
}

func dealFullShoe(t testing.TB, table string, rounds int, seed uint64) fullShoe {
	t.Helper()
	rs := baccarat.MustLookup("rws", baccarat.Options{})
	ctl, err := round.New(round.DefaultConfig(rs))
	if err != nil {
		t.Fatal(err)
	}
	b, err := messages.NewBuilder(table, rs, roadmap.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	topics, err := api.NewTopics(table)
	if err != nil {
		t.Fatal(err)
	}
	var shoe []baccarat.Card
	for range 8 {
		for _, s := range "SHDC" {
			for _, r := range "A23456789TJQK" {
				shoe = append(shoe, baccarat.MustParseCard(string(r)+string(s)))
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	rng.Shuffle(len(shoe), func(i, j int) { shoe[i], shoe[j] = shoe[j], shoe[i] })

	var out fullShoe
	at := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	var seq uint64
	step := func(ev round.Event) {
		t.Helper()
		effs := ctl.Step(ev)
		for _, e := range effs {
			if e.Kind == round.EventRefused {
				t.Fatalf("event %v refused: %s", ev, e.Reason())
			}
		}
		ms, err := b.Effects(ev, effs, ctl.State())
		if err != nil {
			t.Fatalf("messages of %v: %v", ev, err)
		}
		for _, m := range ms {
			out.msgs = append(out.msgs, mqttMessage{topic: api.Prefix + "/" + topics.Table() + "/" + m.Topic.String(),
				payload: m.Payload, retained: m.Topic.Retained()})
		}
	}
	draw := func() {
		at = at.Add(2 * time.Second)
		seq++
		step(round.Event{Kind: round.CardDrawn, At: at, Card: shoe[0], Seq: seq})
		shoe = shoe[1:]
	}
	next := func() time.Time { at = at.Add(2 * time.Second); return at }
	step(round.Event{Kind: round.NewShoe, At: next(), Set: "S1", Decks: 8})
	for ctl.State().Phase == round.Burning {
		draw()
	}
	for i := range rounds + 1 {
		step(round.Event{Kind: round.BetsClosed, At: next()})
		if i == rounds {
			draw() // the round in progress: P1 and B1
			draw()
			break
		}
		for ctl.State().Phase == round.Dealing {
			draw()
		}
		step(round.Event{Kind: round.ConfirmResult, At: next()})
	}
	out.rounds = rounds
	st := ctl.State()
	out.status, err = json.Marshal(api.Status{Envelope: api.Envelope{Schema: api.Schema, Table: table,
		Shoe: st.Shoe, Round: st.Round, Seq: b.Seq(), At: at}, State: "online", Rules: rs.Name, Decks: st.Decks,
		Set: st.Set, Version: "test", Devices: map[string]string{"shoe": "connected", "shuffler": "connected"}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// layout is what the layout check reads from the page.
type layout struct {
	Overlaps   []string           `json:"overlaps"`
	Outside    []string           `json:"outside"`
	Scrolls    bool               `json:"scrolls"`
	LastPx     float64            `json:"lastPx"`
	Largest    float64            `json:"largest"`
	LargestWho string             `json:"largestWho"`
	Cells      map[string]float64 `json:"cells"`
	Clipped    []string           `json:"clipped"`
	Beads      int                `json:"beads"`
	MinSide    float64            `json:"minSide"`
	Columns    int                `json:"columns"`
}

// readLayout checks the page's geometry: the blocks of the page (the header's parts,
// the banners, the panels) overlap none of the others and stay on the screen; every
// piece of text and every road in a block stays inside it; the page does not scroll.
// It reports the last result's type size, the largest type elsewhere, each road's
// cell size, and the roads whose grid would be cut by its panel.
const readLayout = `(() => {
  const shown = (e) => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden';
  const name = (e) => e.id || e.className || e.tagName;
  const blocks = [...document.querySelectorAll('.top > *, .alerts > *, .panel')].filter(shown);
  const r = (e) => e.getBoundingClientRect();
  const overlaps = [];
  for (let i = 0; i < blocks.length; i++) {
    for (let j = i + 1; j < blocks.length; j++) {
      const a = r(blocks[i]), b = r(blocks[j]);
      if (blocks[i].contains(blocks[j]) || blocks[j].contains(blocks[i])) continue;
      if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) {
        overlaps.push(name(blocks[i]) + ' / ' + name(blocks[j]));
      }
    }
  }
  const outside = [];
  const inside = (o, i) => i.left >= o.left - 1 && i.right <= o.right + 1 && i.top >= o.top - 1 && i.bottom <= o.bottom + 1;
  const screen = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
  for (const b of blocks) {
    const leaves = [];
    if (!inside(screen, r(b))) outside.push(name(b) + ' leaves the screen');
    for (const e of b.querySelectorAll('*')) {
      if (!shown(e) && e.tagName !== 'svg') continue;
      const hasText = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
      if (!hasText && e.tagName !== 'svg' && !e.classList.contains('card')) continue;
      let er = r(e);
      if (er.width === 0 && er.height === 0) continue;
      // Text cut short on purpose with an ellipsis is what its box shows of it.
      const clip = e.closest('.alert-text');
      if (clip) {
        const c = r(clip);
        er = { left: Math.max(er.left, c.left), right: Math.min(er.right, c.right), top: er.top, bottom: er.bottom };
        if (er.right <= er.left) continue;
      }
      const box = e.closest('.alert-text') || b;
      if (!inside(r(box), er)) outside.push(name(e) + ' (' + (e.textContent || '').trim().slice(0, 30) + ') outside ' + name(b));
      e.rect = er;
      leaves.push(e);
    }
    // No two pieces of a block (texts, cards, roads) overlap each other.
    for (let i = 0; i < leaves.length; i++) {
      for (let j = i + 1; j < leaves.length; j++) {
        if (leaves[i].contains(leaves[j]) || leaves[j].contains(leaves[i])) continue;
        const a = leaves[i].rect, c = leaves[j].rect;
        if (a.left < c.right - 1 && c.left < a.right - 1 && a.top < c.bottom - 1 && c.top < a.bottom - 1) {
          overlaps.push(name(leaves[i]) + ' "' + leaves[i].textContent.trim().slice(0, 20) + '" / ' + name(leaves[j]) + ' "' + leaves[j].textContent.trim().slice(0, 20) + '"');
        }
      }
    }
  }
  let largest = 0, largestWho = '';
  const last = document.getElementById('last-winner');
  for (const e of document.querySelectorAll('body *')) {
    if (!shown(e) || last.contains(e) || e.tagName === 'svg' || e.closest('svg')) continue;
    const hasText = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
    if (!hasText) continue;
    const px = parseFloat(getComputedStyle(e).fontSize);
    if (px > largest) { largest = px; largestWho = name(e) + ' "' + e.textContent.trim().slice(0, 20) + '"'; }
  }
  const cells = {}, clipped = [];
  for (const svg of document.querySelectorAll('svg.road')) {
    cells[svg.id] = +svg.dataset.cell;
    if (!inside(r(svg.parentElement), r(svg))) clipped.push(svg.id);
  }
  const se = document.scrollingElement;
  return {
    overlaps, outside, clipped, cells, largest, largestWho,
    scrolls: se.scrollHeight > innerHeight + 1 || se.scrollWidth > innerWidth + 1,
    lastPx: parseFloat(getComputedStyle(last).fontSize),
    beads: document.querySelectorAll('#bead-plate g.mark').length,
    columns: +document.getElementById('big-road').dataset.cols,
    minSide: Math.min(innerWidth, innerHeight),
  };
})()`

// checkLayout asserts the layout rules on the page as it stands.
func checkLayout(t *testing.T, ctx context.Context, screen string, wantBeads int) layout {
	t.Helper()
	l, err := chromedp.Run(ctx, chromedp.Evaluate[layout](readLayout))
	if err != nil {
		t.Fatalf("%s: reading the layout: %v", screen, err)
	}
	assertLayout(t, screen, l, wantBeads)
	return l
}

// assertLayout asserts the layout rules on layout l, read from the page.
func assertLayout(t *testing.T, screen string, l layout, wantBeads int) {
	t.Helper()
	for _, o := range l.Overlaps {
		t.Errorf("%s: overlapping: %s", screen, o)
	}
	for _, o := range l.Outside {
		t.Errorf("%s: %s", screen, o)
	}
	for _, c := range l.Clipped {
		t.Errorf("%s: road %s is cut by its panel", screen, c)
	}
	if l.Scrolls {
		t.Errorf("%s: the page scrolls", screen)
	}
	if l.LastPx < minLastResult*l.MinSide {
		t.Errorf("%s: last result type %.0f px, want at least %.0f (%.1f%% of %.0f)", screen, l.LastPx, minLastResult*l.MinSide, 100*minLastResult, l.MinSide)
	}
	if l.LastPx <= l.Largest {
		t.Errorf("%s: the last result (%.0f px) is not the largest type on the board: %s is %.0f px", screen, l.LastPx, l.LargestWho, l.Largest)
	}
	for road, least := range map[string]float64{"bead-plate": minBeadCell, "big-road": minBigRoadCell,
		"big-eye-boy": minDerivedCell, "small-road": minDerivedCell, "cockroach-pig": minDerivedCell} {
		if l.Cells[road] < least*l.MinSide-0.5 {
			t.Errorf("%s: %s cells of %.1f px, want at least %.1f (%.1f%% of %.0f)", screen, road, l.Cells[road], least*l.MinSide, 100*least, l.MinSide)
		}
	}
	if wantBeads > 0 && l.Beads != wantBeads {
		t.Errorf("%s: the bead plate shows %d rounds, want the whole shoe's %d", screen, l.Beads, wantBeads)
	}
	t.Logf("%s: last result %.0f px (next largest %.0f px, %s); cells %v; Big Road columns %d", screen, l.LastPx, l.Largest, l.LargestWho, l.Cells, l.Columns)
}

// screenshot keeps the page as it stands as name in the package's artifacts
// (test-artifacts/board, internal/artifacts).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	artifacts.Write(t, name, png)
}

// settle waits until the page has drawn what it was sent and its fonts are in.
func settle(t *testing.T, ctx context.Context) {
	t.Helper()
	poll(t, ctx, `document.fonts.status === 'loaded'`)
	// Two frames: the resize observer's redraw runs in the next one.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true))))`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
}

// TestBoardLayouts lays the board out at each screen size with a whole shoe dealt (72
// rounds, a round in progress) and a warning that does not hold the table, and checks
// that nothing overlaps or leaves its panel, that the last result is the largest type
// and at least minLastResult of the screen, that each road's cells are at least their
// stated size with every row in view, and that the bead plate shows the whole shoe. It
// keeps a screenshot of each: test-artifacts/board/board-<W>x<H>.png.
func TestBoardLayouts(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	br := startBroker(t)
	b, srv := startBoard(t, br.URL(), "t1", 0)
	pub := newPublisher(t, br.URL(), "t1")
	d := dealFullShoe(t, "t1", 72, 7)
	pub.publish(pub.c.Topics().Status(), d.status, true)
	for _, m := range d.msgs {
		pub.publish(m.topic, m.payload, m.retained)
	}
	pub.publish(pub.c.Topics().Irregularity(), []byte(`{"schema":1,"table":"t1","shoe":1,"round":73,"seq":9999,"event":"dealer_warning","reason":"5 cards of rank K in a row: check the shuffle"}`), false)
	b.waitUntil(t, "the board has the shoe", func() bool { return b.retainedNow("roadmap") != nil })
	limits := rwsLimits()
	withLimits := statusWith(t, d.status, map[string]any{"limits": limits, "pay_rounded": true})

	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(s.w, s.h)); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
				t.Fatal(err)
			}
			poll(t, ctx, fmt.Sprintf(`document.querySelectorAll('#big-road g.mark').length > 0 && !document.getElementById('warning').hidden
				&& document.querySelector('.slot[data-slot="B1"] .card') !== null`))
			settle(t, ctx)
			if shown, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.getElementById('limits').hidden`)); shown {
				t.Error("the limits' place is shown though the status carries no limits")
			}
			checkLayout(t, ctx, s.name, d.rounds)
			screenshot(t, ctx, "board-"+s.name+".png")

			// The status carries the limits of a table with every RWS bet, and says the
			// table rounds payouts: the foot of the screen shows them, and still nothing
			// overlaps and every road keeps its least cell.
			pub.publish(pub.c.Topics().Status(), withLimits, true)
			poll(t, ctx, `!document.getElementById('limits').hidden && document.querySelectorAll('#limits .limit').length > 0`)
			settle(t, ctx)
			v := readLimitsView(t, ctx)
			checkLimitsShown(t, s.name, v, limits)
			for p := 1; p <= v.Pages; p++ {
				_, l := limitsPage(t, ctx, p)
				assertLayout(t, fmt.Sprintf("%s with limits, page %d of %d", s.name, p, v.Pages), l, d.rounds)
			}
			limitsPage(t, ctx, 1)
			screenshot(t, ctx, "board-limits-"+s.name+".png")
			pub.publish(pub.c.Topics().Status(), d.status, true)
			poll(t, ctx, `document.getElementById('limits').hidden`)
		})
	}
}

// TestBoardLayoutsHeld lays the board out at each screen size while the table is held
// (the banner for players, with the cards waiting) and the shoe is disconnected, and
// checks the same rules: the banners take their room from the roads, never from over
// them, and the limits' line gives its room to the banner. It keeps test-artifacts/board/board-held-<W>x<H>.png.
func TestBoardLayoutsHeld(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	br := startBroker(t)
	b, srv := startBoard(t, br.URL(), "t1", 0)
	pub := newPublisher(t, br.URL(), "t1")
	d := dealShoe(t, "t1")
	var st api.Status
	if err := json.Unmarshal(d.status, &st); err != nil {
		t.Fatal(err)
	}
	st.Devices = map[string]string{"shoe": "disconnected", "shuffler": "connected"}
	status, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	// The table has limits: the banner takes their line's room.
	status = statusWith(t, status, map[string]any{"limits": rwsLimits(), "pay_rounded": true})
	pub.publish(pub.c.Topics().Status(), status, true)
	for _, m := range d.msgs {
		pub.publish(m.topic, m.payload, m.retained)
	}
	b.waitUntil(t, "the board has the shoe", func() bool { return b.retainedNow("state") != nil })
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(s.w, s.h)); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
				t.Fatal(err)
			}
			poll(t, ctx, `!document.getElementById('held').hidden && !document.getElementById('devices').hidden
				&& document.querySelectorAll('#limits .limit').length > 0 && document.getElementById('limits').hidden`)
			settle(t, ctx)
			checkLayout(t, ctx, s.name, 21)
			screenshot(t, ctx, "board-held-"+s.name+".png")
		})
	}
}

// TestHeldBannerForPlayers checks the held banner's words: it says the table is paused
// and why in a player's words, shows at most three of the cards waiting, and carries
// none of the pit's vocabulary (the irregularity's number, rule, decisions, roles).
func TestHeldBannerForPlayers(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	br := startBroker(t)
	_, srv := startBoard(t, br.URL(), "t1", 0)
	pub := newPublisher(t, br.URL(), "t1")
	pub.publish(pub.c.Topics().Status(), []byte(`{"schema":1,"table":"t1","state":"online","rules":"rws","decks":8,"set":"S1"}`), true)
	pub.publish(pub.c.Topics().State(), []byte(`{"schema":1,"table":"t1","shoe":1,"round":5,"phase":"dealing","cards":[{"slot":"P1","card":"9S"}],
		"player_points":9,"banker_points":0,"held":{"id":4,"kind":"simultaneous-draw","rule":"RWS Baccarat 5.10",
		"display":"Cards drawn simultaneously: the Pit Supervisor decides which card is received first",
		"choices":["as-read","swapped","void"],"decided_by":"supervisor","pending":["8C","7D","6H","5S","4C"]},"insurance_offers":[]}`), true)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?lang=en")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, `!document.getElementById('held').hidden`)
	banner, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('held').innerText`))
	if err != nil {
		t.Fatal(err)
	}
	cards, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#held .card')].map((c) => c.dataset.card)`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ToLower(banner), "table paused") || !strings.Contains(banner, "supervisor called, please wait") {
		t.Errorf("held banner %q: want \"Table paused\" and \"supervisor called, please wait\"", banner)
	}
	if strings.Join(cards, " ") != "8C 7D 6H" || !strings.Contains(banner, "+2") {
		t.Errorf("held banner shows cards %v (%q), want the first three, 8C 7D 6H, and +2", cards, banner)
	}
	// The dealer calls the supervisor, and the shuffler drops off: each is a line of its
	// own, in the same words.
	pub.publish(pub.c.Topics().Status(), []byte(`{"schema":1,"table":"t1","state":"online","rules":"rws","decks":8,"set":"S1","call":"supervisor","devices":{"shoe":"connected","shuffler":"disconnected"}}`), true)
	poll(t, ctx, `!document.getElementById('call').hidden && !document.getElementById('devices').hidden`)
	lines, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('call').innerText + '|' + document.getElementById('devices').innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if lines != "Supervisor called|Shuffler disconnected" {
		t.Errorf("call and device lines %q, want \"Supervisor called|Shuffler disconnected\"", lines)
	}
	for _, pit := range []string{"#4", "RWS", "5.10", "as-read", "swapped", "void", "Pit Supervisor", "or above", "decid", "simultaneous", irregularities.SimultaneousDraw.String()} {
		if strings.Contains(strings.ToLower(banner), strings.ToLower(pit)) {
			t.Errorf("held banner %q carries the pit's %q", banner, pit)
		}
	}
}
