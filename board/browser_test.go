package board

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/tablectl/tablectl/internal/chromiumtest"
	"github.com/tablectl/tablectl/roadmap"
)

// The colours of board.css, as the browser computes them.
const (
	bankerRGB = "rgb(208, 2, 27)"
	playerRGB = "rgb(0, 80, 200)"
	tieRGB    = "rgb(14, 138, 58)"
)

// newBrowser starts headless Chromium at 1920x1080 for the test (chromiumtest.New).
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	return chromiumtest.New(t, 1920, 1080)
}

// pageRoad is a road cell as the page draws it.
type pageRoad struct {
	Col     int    `json:"col"`
	Row     int    `json:"row"`
	Outcome string `json:"outcome"`
	Ties    int    `json:"ties"`
	TieText string `json:"tieText"`
	TieLine string `json:"tieLine"` // the slash's colour
	Colour  string `json:"colour"`  // the stroke of a ring or slash, the fill of a disc or dot
	Mark    string `json:"mark"`
	BPair   bool   `json:"bpair"`
	PPair   bool   `json:"ppair"`
}

// pageView is what the test reads from the page.
type pageView struct {
	Bead        []pageRoad        `json:"bead"`
	Big         []pageRoad        `json:"big"`
	BigEyeBoy   []pageRoad        `json:"beb"`
	SmallRoad   []pageRoad        `json:"sr"`
	Cockroach   []pageRoad        `json:"cp"`
	BEBShapes   []string          `json:"bebShapes"`
	SRShapes    []string          `json:"srShapes"`
	CPShapes    []string          `json:"cpShapes"`
	Held        bool              `json:"held"`
	HeldCards   []string          `json:"heldCards"`
	HeldText    string            `json:"heldText"`
	Warning     string            `json:"warning"`
	Last        string            `json:"last"`
	Cards       map[string]string `json:"cards"`
	PlayerPts   string            `json:"playerPts"`
	Stats       map[string]string `json:"stats"`
	Predictions map[string]string `json:"predictions"`
	Offline     bool              `json:"offline"`
	Phase       string            `json:"phase"`
}

// readPage gathers the board's cells, colours and texts from the DOM.
const readPage = `(() => {
  const colour = (g) => {
    const s = g.querySelector('circle.ring, line.slash');
    if (s) return getComputedStyle(s).stroke;
    const f = g.querySelector('circle.disc, circle.dot');
    return f ? getComputedStyle(f).fill : '';
  };
  const cells = (id) => [...document.querySelectorAll('#' + id + ' g.mark')].map((g) => {
    const tl = g.querySelector('line.tie');
    const tt = g.querySelector('text.ties');
    return {
      col: +g.dataset.col, row: +g.dataset.row, outcome: g.dataset.outcome || '',
      ties: +(g.dataset.ties || 0), tieText: tt ? tt.textContent : '',
      tieLine: tl ? getComputedStyle(tl).stroke : '', colour: colour(g), mark: g.dataset.mark || '',
      bpair: !!g.querySelector('circle.pair-dot.banker'), ppair: !!g.querySelector('circle.pair-dot.player'),
    };
  });
  const shapes = (id) => [...document.querySelectorAll('#' + id + ' g.mark > :first-child')]
    .map((e) => e.tagName + '.' + e.getAttribute('class'));
  const cards = {};
  for (const s of document.querySelectorAll('.slot')) {
    const c = s.querySelector('.card');
    if (c) cards[s.dataset.slot] = c.dataset.card;
  }
  const stats = {};
  for (const dd of document.querySelectorAll('[data-stat]')) stats[dd.dataset.stat] = dd.textContent;
  const predictions = {};
  for (const m of document.querySelectorAll('[data-ask] .ask-mark')) {
    predictions[m.closest('[data-ask]').dataset.ask + '.' + m.dataset.road] = m.dataset.mark;
  }
  const visible = (id) => { const e = document.getElementById(id); return !e.hidden && e.offsetParent !== null; };
  return {
    bead: cells('bead-plate'), big: cells('big-road'),
    beb: cells('big-eye-boy'), sr: cells('small-road'), cp: cells('cockroach-pig'),
    bebShapes: shapes('big-eye-boy'), srShapes: shapes('small-road'), cpShapes: shapes('cockroach-pig'),
    held: visible('held'), heldCards: [...document.querySelectorAll('#held .card')].map((c) => c.dataset.card), heldText: document.getElementById('held').innerText,
    warning: visible('warning') ? document.getElementById('warning').innerText : '',
    last: document.getElementById('last-result').innerText,
    cards, playerPts: document.getElementById('player-points').textContent,
    stats, predictions, offline: visible('offline'),
    phase: document.getElementById('phase').textContent,
  };
})()`

// TestBoardInBrowser opens the board in headless Chromium, deals a shoe through the real
// round controller and message builder onto the broker, and reads the board back from
// the page: every road cell where the roadmap puts it, in its colour, the tie counts,
// the derived roads' marks and shapes, the cards, the last result, the dealer warning,
// the held banner of a simultaneous draw (RWS Baccarat 5.10), the offline mark, and the
// page's reconnection after its stream is dropped. It keeps a screenshot in
// test-artifacts/board/board.png.
func TestBoardInBrowser(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	br := startBroker(t)
	b, srv := startBoard(t, br.URL(), "t1", 0)
	pub := newPublisher(t, br.URL(), "t1")
	d := dealShoe(t, "t1")

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	b.waitUntil(t, "the page is connected", func() bool { return b.hub.clientCount() == 1 })
	// The shoe is dealt while the page watches: cards, results and irregularities
	// arrive live.
	pub.publish(pub.c.Topics().Status(), d.status, true)
	for _, m := range d.msgs {
		pub.publish(m.topic, m.payload, m.retained)
	}
	poll(t, ctx, fmt.Sprintf(`document.querySelectorAll('#bead-plate g.mark').length === %d
		&& !document.getElementById('held').hidden`, len(d.roadmap.BeadPlate)))

	v := read(t, ctx)
	checkRoads(t, v, d.roadmap)

	// The held round: the first card is placed, the second waits for the decision; the
	// banner says so in the players' words (TestHeldBannerForPlayers has the details).
	if !v.Held || !strings.Contains(v.HeldText, "TABLE PAUSED") || !strings.Contains(v.HeldText, "supervisor called") {
		t.Errorf("held banner (shown %v):\n%s\nwant the table paused for the supervisor", v.Held, v.HeldText)
	}
	if strings.Join(v.HeldCards, " ") != "8C" {
		t.Errorf("held banner shows the cards %v, want the card awaiting the decision, 8C", v.HeldCards)
	}
	if len(v.Cards) != 1 || v.Cards["P1"] != heldFirst+"S" || v.PlayerPts != "9" {
		t.Errorf("cards %v, Player points %s; want P1 9S only, Player 9", v.Cards, v.PlayerPts)
	}
	if !strings.Contains(v.Warning, "5 cards of rank K in a row: check the shuffle") &&
		!strings.Contains(v.Warning, "The dealt order shows unusual runs") {
		t.Errorf("dealer warning line %q, want the bad-shuffle warning of round 21", v.Warning)
	}
	for _, want := range []string{"BANKER", "庄", "P 0 · B 5", "Banker pair", "Player pair"} {
		if !strings.Contains(v.Last, want) {
			t.Errorf("last result %q does not show %q (round 21)", v.Last, want)
		}
	}
	for stat, want := range map[string]string{"rounds": "21", "banker": "11", "player": "8", "tie": "2",
		"banker_pairs": "3", "player_pairs": "3", "cards_remaining": "321"} {
		if v.Stats[stat] != want {
			t.Errorf("statistic %s = %q, want %s", stat, v.Stats[stat], want)
		}
	}
	// The shares of the shoe's 21 rounds, in whole percent.
	shares, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`['banker', 'player', 'tie'].map((k) => document.querySelector('[data-pct="' + k + '"]').textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(shares, " ") != "52% 38% 10%" {
		t.Errorf("Banker, Player, Tie shares %v, want 52%% 38%% 10%% (11, 8 and 2 of 21)", shares)
	}
	// Pair dots on the Big Road lie under the ring, with no outline of their own, so
	// they cut no gap in it.
	dots, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(() => {
	  const dots = [...document.querySelectorAll('#big-road circle.pair-dot')];
	  const bad = dots.filter((d) => getComputedStyle(d).stroke !== 'none' ||
	    !(d.parentNode.querySelector('circle.ring').compareDocumentPosition(d) & Node.DOCUMENT_POSITION_PRECEDING));
	  return bad.length ? -bad.length : dots.length;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if dots <= 0 {
		t.Errorf("Big Road pair dots: %d (negative: that many over a ring or outlined), want some, every one under its ring", dots)
	}
	p := d.roadmap.Predictions
	for key, m := range map[string]roadmap.Mark{
		"banker.big_eye_boy": p.Banker.BigEyeBoy, "banker.small_road": p.Banker.SmallRoad, "banker.cockroach_pig": p.Banker.CockroachPig,
		"player.big_eye_boy": p.Player.BigEyeBoy, "player.small_road": p.Player.SmallRoad, "player.cockroach_pig": p.Player.CockroachPig,
	} {
		if v.Predictions[key] != m.String() {
			t.Errorf("prediction %s = %q, want %s", key, v.Predictions[key], m)
		}
	}
	if v.Offline {
		t.Error("the offline mark is shown while the table is online")
	}

	screenshot(t, ctx, "board.png")

	// The table goes offline (its last will): the board says so.
	offline := []byte(`{"schema":1,"table":"t1","state":"offline"}`)
	pub.publish(pub.c.Topics().Status(), offline, true)
	poll(t, ctx, `!document.getElementById('offline').hidden`)

	// The page's stream is dropped (as a slow browser's is): it reconnects by itself
	// and is given the retained picture again, then what follows.
	b.hub.dropAll()
	b.waitUntil(t, "the page reconnects", func() bool { return b.hub.clientCount() == 1 })
	pub.publish(pub.c.Topics().Status(), d.status, true)
	poll(t, ctx, `document.getElementById('offline').hidden`)
	if v := read(t, ctx); len(v.Bead) != len(d.roadmap.BeadPlate) || !v.Held {
		t.Errorf("after reconnecting the page shows %d beads, held %v; want %d, held", len(v.Bead), v.Held, len(d.roadmap.BeadPlate))
	}
}

// checkRoads compares the roads drawn on the page with the roadmap the messages carried:
// every bead (roadmap R2.1), every Big Road cell with its ties and pairs (R3.3 to R3.5),
// every derived mark in its road's shape (R4.6), each in its colour.
func checkRoads(t *testing.T, v pageView, m roadmap.JSON) {
	t.Helper()
	colourOf := map[string]string{"B": bankerRGB, "P": playerRGB, "T": tieRGB, "red": bankerRGB, "blue": playerRGB}
	if len(v.Bead) != len(m.BeadPlate) || len(v.Bead) != 21 {
		t.Fatalf("%d bead plate cells, want %d (21 rounds)", len(v.Bead), len(m.BeadPlate))
	}
	for i, want := range m.BeadPlate {
		got := v.Bead[i]
		if got.Col != want.Col || got.Row != want.Row || got.Outcome != want.Outcome ||
			got.BPair != want.BankerPair || got.PPair != want.PlayerPair || got.Colour != colourOf[want.Outcome] {
			t.Errorf("bead %d: page %+v, want %+v in %s", i, got, want, colourOf[want.Outcome])
		}
	}
	if len(v.Big) != len(m.BigRoad) || len(v.Big) != 19 {
		t.Fatalf("%d Big Road cells, want %d (21 rounds less 2 ties)", len(v.Big), len(m.BigRoad))
	}
	ties := 0
	for i, want := range m.BigRoad {
		got := v.Big[i]
		if got.Col != want.Col || got.Row != want.Row || got.Outcome != want.Outcome || got.Ties != want.Ties ||
			got.BPair != want.BankerPair || got.PPair != want.PlayerPair || got.Colour != colourOf[want.Outcome] {
			t.Errorf("Big Road cell %d: page %+v, want %+v in %s", i, got, want, colourOf[want.Outcome])
		}
		if want.Ties > 0 {
			ties += want.Ties
			if got.TieText != fmt.Sprint(want.Ties) || got.TieLine != tieRGB {
				t.Errorf("Big Road cell %d: tie count %q in %q, want %d in green %s", i, got.TieText, got.TieLine, want.Ties, tieRGB)
			}
		} else if got.TieText != "" || got.TieLine != "" {
			t.Errorf("Big Road cell %d has a tie mark but no tie", i)
		}
	}
	if ties != 2 {
		t.Errorf("%d ties on the Big Road, want 2 (rounds 9 and 16)", ties)
	}
	for _, road := range []struct {
		name   string
		got    []pageRoad
		shapes []string
		want   roadmap.JSONDerived
		shape  string
	}{
		{"Big Eye Boy", v.BigEyeBoy, v.BEBShapes, m.BigEyeBoy, "circle.ring"},
		{"Small Road", v.SmallRoad, v.SRShapes, m.SmallRoad, "circle.dot"},
		{"Cockroach Pig", v.Cockroach, v.CPShapes, m.CockroachPig, "line.slash"},
	} {
		if len(road.got) != len(road.want.Cells) || len(road.got) == 0 {
			t.Errorf("%s: %d marks on the page, want %d", road.name, len(road.got), len(road.want.Cells))
			continue
		}
		for i, want := range road.want.Cells {
			got := road.got[i]
			if got.Col != want.Col || got.Row != want.Row || got.Mark != want.Mark.String() ||
				got.Colour != colourOf[want.Mark.String()] || road.shapes[i] != road.shape {
				t.Errorf("%s mark %d: page %+v %s, want %+v as %s in %s", road.name, i, got, road.shapes[i], want, road.shape, colourOf[want.Mark.String()])
			}
		}
	}
	// The sample shoe's first Big Eye Boy mark, worked out in docs/roadmap.md: blue.
	if v.BigEyeBoy[0].Mark != "blue" || v.BigEyeBoy[0].Colour != playerRGB {
		t.Errorf("first Big Eye Boy mark %+v, want blue (roadmap R4.3)", v.BigEyeBoy[0])
	}
}

func read(t *testing.T, ctx context.Context) pageView {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[pageView](readPage))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	return v
}

func poll(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(guard))); err != nil {
		v, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("waiting for %s: %v\nthe page says:\n%s", cond, err, v)
	}
}

// dropAll drops every browser, as when each falls behind.
func (h *hub) dropAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		delete(h.clients, c)
		c.cancel()
	}
}
