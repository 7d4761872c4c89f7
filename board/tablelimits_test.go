package board

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/tablectl/tablectl/baccarat"
)

// rwsLimits are the limits of an RWS table offering every bet of its layout, as the
// status carries them (docs/mqtt.md): the Original Bets and the Tie, the pairs, and
// each Wins On family at one minimum and maximum.
func rwsLimits() map[string]any {
	min := map[string]any{"player": 100, "banker": 100, "tie": 100, "player_pair": 50, "banker_pair": 50}
	max := map[string]any{"player": 20000, "banker": 20000, "tie": 2500, "player_pair": 2000, "banker_pair": 2000}
	for n := 1; n <= 9; n++ {
		min[fmt.Sprintf("player_wins_on_%d", n)], max[fmt.Sprintf("player_wins_on_%d", n)] = 25, 1000
		min[fmt.Sprintf("banker_wins_on_%d", n)], max[fmt.Sprintf("banker_wins_on_%d", n)] = 25, 1000
	}
	for n := 0; n <= 9; n++ {
		min[fmt.Sprintf("tie_wins_on_%d", n)], max[fmt.Sprintf("tie_wins_on_%d", n)] = 25, 500
	}
	return map[string]any{"min": min, "max": max, "max_differential": 10000, "excess": "reject", "boxes": 7}
}

// statusWith is the status payload with fields set (or, given nil, removed).
func statusWith(t testing.TB, status []byte, fields map[string]any) []byte {
	t.Helper()
	var st map[string]any
	if err := json.Unmarshal(status, &st); err != nil {
		t.Fatal(err)
	}
	for k, v := range fields {
		if v == nil {
			delete(st, k)
		} else {
			st[k] = v
		}
	}
	out, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// limitLine is one line of the limits as the page has it, shown or on another page.
type limitLine struct {
	Bets   string `json:"bets"`   // the bet identifiers it stands for
	ID     string `json:"id"`     // pay-rounded for the rounding statement
	Name1  string `json:"name1"`  // its name in the first language
	Name2  string `json:"name2"`  // and in the second, "" when one is shown
	Min    int64  `json:"min"`    // -1: none
	Max    int64  `json:"max"`    // -1: none
	Amount string `json:"amount"` // the amounts as written: "100–20,000"
	Page   int    `json:"page"`
	Hidden bool   `json:"hidden"`
}

// limitsView is the limits' line as the page has it.
type limitsView struct {
	Shown  bool        `json:"shown"`
	Title  string      `json:"title"`
	Lines  []limitLine `json:"lines"`
	Pages  int         `json:"pages"`
	Page   int         `json:"page"`
	Height float64     `json:"height"`
}

const readLimits = `(() => {
  const box = document.getElementById('limits');
  const units = (e, sel) => { const a = e.querySelector(sel); return a ? +a.dataset.units : -1; };
  const lines = [...box.querySelectorAll('.limit')].map((e) => {
    const n = e.querySelector('.limit-name') || e;
    const l = (c) => { const s = n.querySelector(':scope > .' + c); return s ? s.textContent : ''; };
    const r = e.querySelector('.limit-range');
    return { bets: e.dataset.bet || '', id: e.id, name1: l('l1'), name2: l('l2'),
      min: units(e, '.limit-min'), max: units(e, '.limit-max'),
      amount: r ? r.textContent : '', page: +(e.dataset.page || 0),
      hidden: e.hidden || e.parentElement.hidden };
  });
  return { shown: !box.hidden, title: document.getElementById('limits-title').hidden ? '' :
      document.getElementById('limits-title').innerText.replace(/\s+/g, ' '),
    lines, pages: +document.getElementById('limits-page').dataset.pages, page: +(box.dataset.page || 0),
    height: box.getBoundingClientRect().height };
})()`

// limitsPage turns the limits' line to page p with taps, as time turns it, and reads
// the line and the layout of the page at once, so that no turn comes between.
func limitsPage(t *testing.T, ctx context.Context, p int) (limitsView, layout) {
	t.Helper()
	type both struct {
		View   limitsView `json:"view"`
		Layout layout     `json:"layout"`
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[both](fmt.Sprintf(`(() => {
		const box = document.getElementById('limits');
		for (let n = 0; box.dataset.page !== '%d' && n < 50; n++) box.click();
		return { view: %s, layout: %s };
	})()`, p, readLimits, readLayout)))
	if err != nil {
		t.Fatal(err)
	}
	if v.View.Page != p {
		t.Fatalf("the limits' line is on page %d of %d, want %d", v.View.Page, v.View.Pages, p)
	}
	return v.View, v.Layout
}

func readLimitsView(t *testing.T, ctx context.Context) limitsView {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[limitsView](readLimits))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// lineOf is the line that stands for bet, and how many do.
func (v limitsView) lineOf(bet string) (limitLine, int) {
	var found limitLine
	n := 0
	for _, l := range v.Lines {
		if slices.Contains(strings.Fields(l.Bets), bet) {
			found = l
			n++
		}
	}
	return found, n
}

// checkLimitsShown checks that every bet of limits has exactly one line, with its
// minimum and maximum, and that the maximum Differential has its own.
func checkLimitsShown(t *testing.T, where string, v limitsView, limits map[string]any) {
	t.Helper()
	if !v.Shown {
		t.Fatalf("%s: the limits are not shown", where)
	}
	min, max := limits["min"].(map[string]any), limits["max"].(map[string]any)
	for bet := range max {
		l, n := v.lineOf(bet)
		if n != 1 {
			t.Errorf("%s: %s is on %d lines, want 1: %+v", where, bet, n, v.Lines)
			continue
		}
		if l.Min != int64(min[bet].(int)) || l.Max != int64(max[bet].(int)) {
			t.Errorf("%s: %s shown %d to %d (%q), want %v to %v", where, bet, l.Min, l.Max, l.Amount, min[bet], max[bet])
		}
	}
	if d, n := v.lineOf("max_differential"); n != 1 || d.Max != int64(limits["max_differential"].(int)) || d.Hidden {
		t.Errorf("%s: the maximum Differential shown %+v (%d lines), want %v, always in view", where, d, n, limits["max_differential"])
	}
}

// TestTableLimitsInBrowser checks the table's limits on the board (RWS Baccarat 3.4, NC
// Insurance 3.4: the permissible minimum and the maximum Differential displayed at the
// table) and the statement that payouts are rounded (dealer.pay_rounded): each bet's
// minimum and maximum and the maximum Differential, read from the status, in each
// language setting, grouped by thousands; every page of a table with more limits than
// the line holds fits the screen beside a whole shoe and a warning; the line gives its
// room to the banner while the table is paused; a status without them shows none. It
// keeps test-artifacts/board/board-limits-<lang>-<page>.png.
func TestTableLimitsInBrowser(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	br := startBroker(t)
	_, srv := startBoard(t, br.URL(), "t1", 0)
	pub := newPublisher(t, br.URL(), "t1")
	d := dealFullShoe(t, "t1", 72, 7)
	var state []byte
	for _, m := range d.msgs {
		pub.publish(m.topic, m.payload, m.retained)
		if lastLevel(m.topic) == "state" {
			state = m.payload
		}
	}
	pub.publish(pub.c.Topics().Irregularity(), []byte(`{"schema":1,"table":"t1","shoe":1,"round":73,"seq":9999,"event":"dealer_warning","reason":"5 cards of rank K in a row: check the shuffle"}`), false)
	limits := rwsLimits()
	pub.publish(pub.c.Topics().Status(), statusWith(t, d.status, map[string]any{"limits": limits, "pay_rounded": true}), true)

	hasCJK := func(s string) bool { return strings.IndexFunc(s, func(r rune) bool { return r >= 0x2E80 }) >= 0 }
	for _, tc := range []struct {
		lang, file   string
		title        string
		pb, pbZh     string // the Player and Banker line's names
		diff, diffZh string
		note, noteZh string
	}{
		{"en+zh", "enzh", "LIMITS 限红", "Player · Banker", "闲 · 庄", "Max differential", "最高差额", "Fractional payouts rounded", "派彩零头取整"},
		{"zh+en", "zhen", "限红 LIMITS", "闲 · 庄", "Player · Banker", "最高差额", "Max differential", "派彩零头取整", "Fractional payouts rounded"},
		{"en", "en", "LIMITS", "Player · Banker", "", "Max differential", "", "Fractional payouts rounded", ""},
		{"zh", "zh", "限红", "闲 · 庄", "", "最高差额", "", "派彩零头取整", ""},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?lang="+tc.lang)); err != nil {
				t.Fatal(err)
			}
			poll(t, ctx, `!document.getElementById('limits').hidden && document.querySelectorAll('#limits .limit').length > 0
				&& !document.getElementById('warning').hidden && document.querySelector('.slot[data-slot="B1"] .card') !== null`)
			settle(t, ctx)
			v := readLimitsView(t, ctx)
			checkLimitsShown(t, tc.lang, v, limits)
			if v.Title != tc.title {
				t.Errorf("title %q, want %q", v.Title, tc.title)
			}
			// The amounts as written, grouped by thousands, and the names.
			for bet, want := range map[string]string{"player": "100–20,000", "tie": "100–2,500", "banker_pair": "50–2,000",
				"banker_wins_on_1": "25–1,000", "tie_wins_on_0": "25–500", "max_differential": "10,000"} {
				if l, _ := v.lineOf(bet); l.Amount != want {
					t.Errorf("%s: amounts written %q, want %q", bet, l.Amount, want)
				}
			}
			if l, _ := v.lineOf("banker"); l.Bets != "player banker" || l.Name1 != tc.pb || l.Name2 != tc.pbZh {
				t.Errorf("Player and Banker: line %q named %q %q, want one line named %q %q", l.Bets, l.Name1, l.Name2, tc.pb, tc.pbZh)
			}
			if l, _ := v.lineOf("max_differential"); l.Name1 != tc.diff || l.Name2 != tc.diffZh {
				t.Errorf("the maximum Differential named %q %q, want %q %q", l.Name1, l.Name2, tc.diff, tc.diffZh)
			}
			// The Tie's second name, in the pairs of languages.
			if tie, _ := v.lineOf("tie"); strings.Contains(tc.lang, "+") && (tie.Name1+tie.Name2 != "Tie和" && tie.Name1+tie.Name2 != "和Tie") {
				t.Errorf("Tie named %q %q, want Tie and 和", tie.Name1, tie.Name2)
			}
			// A whole Wins On family shares one line, named without its point totals.
			if l, _ := v.lineOf("banker_wins_on_5"); !strings.Contains(l.Bets, "player_wins_on_5") ||
				!(strings.HasPrefix(l.Name1, "Player · Banker wins on") || strings.HasPrefix(l.Name1, "闲 · 庄点数赢")) || strings.ContainsAny(l.Name1, "0123456789") {
				t.Errorf("the Wins On line: %+v, want Player and Banker Wins On on one line, without point totals", l)
			}
			var note limitLine
			for _, l := range v.Lines {
				if l.ID == "pay-rounded" {
					note = l
				}
			}
			if note.Name1 != tc.note || note.Name2 != tc.noteZh {
				t.Errorf("the rounding statement %q %q, want %q %q", note.Name1, note.Name2, tc.note, tc.noteZh)
			}
			for _, l := range v.Lines {
				if tc.lang == "en" && hasCJK(l.Name1+l.Name2) {
					t.Errorf("lang=en shows Chinese: %q %q", l.Name1, l.Name2)
				}
				if tc.lang == "zh" && !hasCJK(l.Name1) {
					t.Errorf("lang=zh shows %q", l.Name1)
				}
			}

			// Every page in turn (a tap on the line turns it, as time does): its lines
			// are shown and no others, it fits the line, and every line is on a page.
			if v.Pages < 2 {
				t.Errorf("%d page(s) for %d lines on a 1920x1080 screen, want them to take turns", v.Pages, len(v.Lines))
			}
			seen := map[string]bool{}
			for p := 1; p <= v.Pages; p++ {
				v, l := limitsPage(t, ctx, p)
				for _, l := range v.Lines {
					if l.Bets == "max_differential" {
						continue
					}
					if l.Page == 0 || l.Hidden != (l.Page != p) {
						t.Errorf("page %d: line %q (page %d) hidden=%v", p, l.Bets+l.ID, l.Page, l.Hidden)
					}
					if !l.Hidden {
						seen[l.Bets+l.ID] = true
					}
				}
				assertLayout(t, fmt.Sprintf("lang=%s, limits page %d of %d", tc.lang, p, v.Pages), l, d.rounds)
				if tc.lang == "en+zh" || p == 1 {
					screenshot(t, ctx, fmt.Sprintf("board-limits-%s-%d.png", tc.file, p))
				}
			}
			if len(seen) != len(v.Lines)-1 {
				t.Errorf("the pages showed %d of the %d lines: %v", len(seen), len(v.Lines)-1, seen)
			}
		})
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?lang=en")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, `document.querySelectorAll('#limits .limit').length > 0`)

	// A commission table with separate Player and Banker limits fits one page.
	classic := map[string]any{"min": map[string]any{"player": 10, "banker": 20, "tie": 5},
		"max": map[string]any{"player": 10000, "banker": 20000, "tie": 1000}, "max_differential": 1234567}
	pub.publish(pub.c.Topics().Status(), statusWith(t, d.status, map[string]any{"limits": classic}), true)
	poll(t, ctx, `document.querySelector('#limits .limit[data-bet="player"]') !== null`)
	v := readLimitsView(t, ctx)
	checkLimitsShown(t, "classic", v, classic)
	if v.Pages != 1 {
		t.Errorf("classic: %d pages, want one", v.Pages)
	}
	var names, amounts []string
	for _, l := range v.Lines {
		names, amounts = append(names, l.Name1), append(amounts, l.Amount)
	}
	if got := strings.Join(names, "|"); got != "Player|Banker|Tie|Max differential" {
		t.Errorf("classic: lines %q", got)
	}
	if got := strings.Join(amounts, "|"); got != "10–10,000|20–20,000|5–1,000|1,234,567" {
		t.Errorf("classic: amounts %q", got)
	}
	settle(t, ctx)
	checkLayout(t, ctx, "classic", d.rounds)
	screenshot(t, ctx, "board-limits-classic.png")

	// The rounding setting, when the status gives it, says which way.
	for rounding, want := range map[string]string{"down": "Fractional payouts rounded down", "up": "Fractional payouts rounded up",
		"half-up": "Fractional payouts rounded to the nearest unit", "sideways": "Fractional payouts rounded"} {
		pub.publish(pub.c.Topics().Status(), statusWith(t, d.status, map[string]any{"limits": classic, "pay_rounded": true, "rounding": rounding}), true)
		poll(t, ctx, fmt.Sprintf(`(document.getElementById('pay-rounded') || {}).textContent === %q`, want))
	}

	// While the table is paused, the banner takes the line's room; then it is back.
	var held map[string]any
	if err := json.Unmarshal(state, &held); err != nil {
		t.Fatal(err)
	}
	held["held"] = map[string]any{"id": 4, "kind": "simultaneous-draw", "decided_by": "supervisor", "pending": []string{"8C"}}
	heldState, err := json.Marshal(held)
	if err != nil {
		t.Fatal(err)
	}
	pub.publish(pub.c.Topics().State(), heldState, true)
	poll(t, ctx, `!document.getElementById('held').hidden && document.getElementById('limits').hidden`)
	pub.publish(pub.c.Topics().State(), state, true)
	poll(t, ctx, `document.getElementById('held').hidden && !document.getElementById('limits').hidden`)

	// Part of a Wins On family, and amounts that are not whole numbers of units: the
	// family's lines name their point totals; a bad amount is not shown.
	odd := map[string]any{
		"min":              map[string]any{"player": -5, "banker": 100, "player_wins_on_4": 25, "player_wins_on_5": 25, "player_wins_on_7": 50, "mystery_bet": 10},
		"max":              map[string]any{"player": 1.5, "banker": "20000", "player_wins_on_4": 1000, "player_wins_on_5": 1000, "player_wins_on_7": 1000, "mystery_bet": 20},
		"max_differential": 2.5}
	pub.publish(pub.c.Topics().Status(), statusWith(t, d.status, map[string]any{"limits": odd, "pay_rounded": false}), true)
	poll(t, ctx, `document.querySelector('#limits .limit[data-bet="mystery_bet"]') !== null`)
	v = readLimitsView(t, ctx)
	names, amounts = nil, nil
	for _, l := range v.Lines {
		names, amounts = append(names, l.Name1), append(amounts, l.Amount)
	}
	if got := strings.Join(names, "|"); got != "Banker|Player wins on 4, 5|Player wins on 7|mystery bet" {
		t.Errorf("odd limits: lines %q", got)
	}
	if got := strings.Join(amounts, "|"); got != "min100|25–1,000|50–1,000|10–20" {
		t.Errorf("odd limits: amounts %q", got)
	}

	// No limits, rounding stated: the statement alone. Neither: nothing.
	pub.publish(pub.c.Topics().Status(), statusWith(t, d.status, map[string]any{"pay_rounded": true}), true)
	poll(t, ctx, `document.querySelector('#limits .limit[data-bet="mystery_bet"]') === null && !document.getElementById('limits').hidden`)
	if v := readLimitsView(t, ctx); v.Title != "" || len(v.Lines) != 1 || v.Lines[0].ID != "pay-rounded" || v.Lines[0].Hidden {
		t.Errorf("rounding without limits: %+v, want the statement alone", v)
	}
	pub.publish(pub.c.Topics().Status(), d.status, true)
	poll(t, ctx, `document.getElementById('limits').hidden`)
	if v := readLimitsView(t, ctx); v.Height != 0 || len(v.Lines) != 0 {
		t.Errorf("no limits and no rounding: %+v, want nothing", v)
	}
}

// TestTableLimitsNameEveryBet checks that the board names every bet of every rule set
// (baccarat's bet identifiers) in English and in Chinese, not by its identifier.
func TestTableLimitsNameEveryBet(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	br := startBroker(t)
	_, srv := startBoard(t, br.URL(), "t1", 0)
	pub := newPublisher(t, br.URL(), "t1")
	d := dealShoe(t, "t1")
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?lang=en+zh")); err != nil {
		t.Fatal(err)
	}
	for _, name := range baccarat.Names {
		rs := baccarat.MustLookup(name, baccarat.Options{})
		min, max := map[string]any{}, map[string]any{}
		for i, b := range rs.Bets {
			// Each bet its own limits, so that none shares a line.
			min[b.String()], max[b.String()] = 10+i, 1000+i
		}
		limits := map[string]any{"min": min, "max": max, "max_differential": 5000}
		pub.publish(pub.c.Topics().Status(), statusWith(t, d.status, map[string]any{"rules": name, "limits": limits}), true)
		poll(t, ctx, fmt.Sprintf(`document.querySelectorAll('#limits .limit[data-bet]').length === %d && document.querySelector('#limits .limit[data-bet="%s"]') !== null`,
			len(rs.Bets)+1, rs.Bets[len(rs.Bets)-1]))
		v := readLimitsView(t, ctx)
		checkLimitsShown(t, name, v, limits)
		for _, b := range rs.Bets {
			l, _ := v.lineOf(b.String())
			if strings.Contains(l.Name1, "_") || strings.IndexFunc(l.Name2, func(r rune) bool { return r >= 0x2E80 }) < 0 {
				t.Errorf("%s: bet %s named %q %q, want an English and a Chinese name", name, b, l.Name1, l.Name2)
			}
		}
	}
}
