package board

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/chromedp/chromedp"
)

// scriptPairs are the Simplified and Traditional forms of each character of the board's
// Chinese labels that is written differently in the two scripts: the Simplified
// character first. 台 is 枱 in Traditional, as Macau's tables write it (枱號, 本枱).
var scriptPairs = []string{
	"与與", "乐樂", "余餘", "后後", "台枱", "号號", "头頭", "对對", "庄莊", "废廢",
	"开開", "张張", "数數", "断斷", "无無", "暂暫", "机機", "点點", "烧燒", "盘盤",
	"离離", "红紅", "级級", "线線", "结結", "舍捨", "设設", "请請", "赢贏", "连連",
	"闲閒", "问問", "险險", "额額",
}

// scripts are the characters of scriptPairs by script: simplified maps each Simplified
// character to its Traditional form, traditional each Traditional one to its Simplified.
func scripts(t *testing.T) (simplified, traditional map[rune]rune) {
	t.Helper()
	simplified, traditional = map[rune]rune{}, map[rune]rune{}
	for _, p := range scriptPairs {
		r := []rune(p)
		if len(r) != 2 || r[0] == r[1] || !unicode.Is(unicode.Han, r[0]) || !unicode.Is(unicode.Han, r[1]) {
			t.Fatalf("scriptPairs: %q is not two different Chinese characters", p)
		}
		if _, ok := simplified[r[0]]; ok {
			t.Fatalf("scriptPairs: %c is given twice", r[0])
		}
		if _, ok := traditional[r[1]]; ok {
			t.Fatalf("scriptPairs: %c is given twice", r[1])
		}
		simplified[r[0]], traditional[r[1]] = r[1], r[0]
	}
	for s := range simplified {
		if _, ok := traditional[s]; ok {
			t.Fatalf("scriptPairs: %c is both Simplified and Traditional", s)
		}
	}
	return simplified, traditional
}

// boardLabel is one label of board.js's LABELS table.
type boardLabel struct {
	key, en, hans, hant string
}

// labelLine is one line of the LABELS table: key: { en: '...', hans: '...', hant: '...' },
var labelLine = regexp.MustCompile(`^\s*('[^']+'|\w+): \{ en: '([^']*)', hans: '([^']*)', hant: '([^']*)' \},$`)

// readLabels reads the LABELS table of board.js, a label a line, and the file's other
// lines.
func readLabels(t *testing.T) (labels []boardLabel, rest []string) {
	t.Helper()
	src, err := static.ReadFile("static/board.js")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, line := range strings.Split(string(src), "\n") {
		switch {
		case strings.TrimSpace(line) == "const LABELS = {":
			in = true
		case in && strings.TrimSpace(line) == "};":
			in = false
		case in:
			m := labelLine.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("board.js: a line of LABELS is not key: { en: '...', hans: '...', hant: '...' }:\n%s", line)
			}
			labels = append(labels, boardLabel{strings.Trim(m[1], "'"), m[2], m[3], m[4]})
		default:
			rest = append(rest, line)
		}
	}
	if in || len(labels) < 60 {
		t.Fatalf("board.js: read %d labels (the table unclosed: %v)", len(labels), in)
	}
	return labels, rest
}

// hasHan says whether s has a Chinese character.
func hasHan(s string) bool { return strings.IndexFunc(s, isHan) >= 0 }

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// TestLabelsInEachScript walks the board's labels (the LABELS table of board.js) and
// finds each label's Chinese in both scripts: its Simplified text (hans) has no
// character of the Traditional side of scriptPairs, its Traditional text (hant) none of
// the Simplified side, and the two differ exactly by the pairs' characters, so a
// character written differently in the two scripts and missing from the pairs fails too.
// Every pair is used by a label. The page (index.html) has no Chinese of either script,
// and board.js has Chinese outside its labels only in comments.
func TestLabelsInEachScript(t *testing.T) {
	t.Parallel()
	simplified, traditional := scripts(t)
	labels, rest := readLabels(t)
	used := map[rune]bool{}
	for _, l := range labels {
		if l.en == "" || !hasHan(l.hans) || !hasHan(l.hant) {
			t.Errorf("label %s: %q %q %q, want English and Chinese in both scripts", l.key, l.en, l.hans, l.hant)
			continue
		}
		for _, r := range l.hans {
			if s, ok := traditional[r]; ok {
				t.Errorf("label %s: Simplified %q has the Traditional %c (Simplified %c)", l.key, l.hans, r, s)
			}
		}
		for _, r := range l.hant {
			if tr, ok := simplified[r]; ok {
				t.Errorf("label %s: Traditional %q has the Simplified %c (Traditional %c)", l.key, l.hant, r, tr)
			}
		}
		want := []rune(l.hans)
		for i, r := range want {
			if tr, ok := simplified[r]; ok {
				want[i] = tr
				used[r] = true
			}
		}
		if string(want) != l.hant {
			t.Errorf("label %s: Traditional %q, want %q, the Simplified %q written with scriptPairs (a pair missing?)", l.key, l.hant, string(want), l.hans)
		}
	}
	for s, tr := range simplified {
		if !used[s] {
			t.Errorf("scriptPairs: %c%c is not used by any label", s, tr)
		}
	}
	page, err := static.ReadFile("static/index.html")
	if err != nil {
		t.Fatal(err)
	}
	if hasHan(string(page)) {
		t.Errorf("index.html has Chinese: the page's Chinese belongs in board.js's LABELS, in both scripts")
	}
	for _, line := range rest {
		if hasHan(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
			t.Errorf("board.js has Chinese outside LABELS: put it in a label in both scripts:\n%s", line)
		}
	}
}

// otherScript is the characters of s that belong to the script other than script
// ("simplified" or "traditional") by scriptPairs.
func otherScript(t *testing.T, script, s string) string {
	t.Helper()
	simplified, traditional := scripts(t)
	other := traditional
	if script == "traditional" {
		other = simplified
	}
	var out []rune
	for _, r := range s {
		if _, ok := other[r]; ok {
			out = append(out, r)
		}
	}
	return string(out)
}

// scriptView is what TestScriptsInBrowser reads from the page.
type scriptView struct {
	Shown   string   `json:"shown"` // the text on screen
	All     string   `json:"all"`   // every text of the page, hidden or not
	Lang    string   `json:"lang"`
	Script  string   `json:"script"`
	Font    bool     `json:"font"`
	Game    string   `json:"game"`
	Beads   []string `json:"beads"`
	Asks    []string `json:"asks"`
	Winner  string   `json:"winner"`
	Limits  string   `json:"limits"`
	Left    string   `json:"left"`
	Phase   string   `json:"phase"`
	Roads   []string `json:"roads"`
	Players []string `json:"players"`
}

const readScript = `(() => {
  const txt = (e) => e.textContent.replace(/\\s+/g, ' ').trim();
  return {
    shown: document.body.innerText, all: document.body.textContent,
    lang: document.documentElement.lang, script: document.body.dataset.script,
    font: [...document.fonts].some((f) => f.family.includes('Board CJK') && f.status === 'loaded'),
    game: txt(document.getElementById('game')),
    beads: [...new Set([...document.querySelectorAll('#bead-plate g.mark text.letter')].map((e) => e.textContent))].sort(),
    asks: [...document.querySelectorAll('.ask-name')].map(txt),
    winner: txt(document.getElementById('last-winner')),
    limits: txt(document.getElementById('limits-title')),
    left: txt(document.querySelector('[data-t="cardsLeft"]')),
    phase: txt(document.getElementById('phase')),
    roads: [...document.querySelectorAll('.road-panel h2')].map(txt),
    players: [...document.querySelectorAll('.limit[data-bet="player banker"] .limit-name')].map(txt),
  };
})()`

// TestScriptsInBrowser opens a board of each script (Options.Script: simplified, the
// default, and traditional) in Chromium at 1920x1080, Chinese first (?lang=zh+en), with
// a whole shoe, the limits of an RWS table and a warning. Every Chinese text of the page,
// shown or not, has no character of the other script (scriptPairs); the roads, the asks,
// the bead plate's letters, the last result, the limits' title, the game's name and the
// phase are in the board's script, drawn with the embedded glyphs; the layout rules
// hold. ?script= in the address picks the other script, and lang=en shows no Chinese in
// either. It keeps test-artifacts/board/board-simplified-1920x1080.png and
// board-traditional-1920x1080.png.
func TestScriptsInBrowser(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	br := startBroker(t)
	simplified := newBoard(t, Options{Broker: br.URL(), Table: "t1"})
	traditional := newBoard(t, Options{Broker: br.URL(), Table: "t1", Script: "traditional"})
	urls := map[string]string{"simplified": serve(t, simplified, nil).URL, "traditional": serve(t, traditional, nil).URL}
	pub := newPublisher(t, br.URL(), "t1")
	d := dealFullShoe(t, "t1", 72, 7)
	for _, m := range d.msgs {
		pub.publish(m.topic, m.payload, m.retained)
	}
	pub.publish(pub.c.Topics().Irregularity(), []byte(`{"schema":1,"table":"t1","shoe":1,"round":73,"seq":9999,"event":"dealer_warning","reason":"5 cards of rank K in a row: check the shuffle"}`), false)
	pub.publish(pub.c.Topics().Status(), statusWith(t, d.status, map[string]any{"limits": rwsLimits(), "pay_rounded": true}), true)
	for _, b := range []*Board{simplified, traditional} {
		b.waitUntil(t, "the board has the shoe", func() bool { return b.retainedNow("status") != nil && b.retainedNow("roadmap") != nil })
	}

	open := func(t *testing.T, url string) scriptView {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
			t.Fatal(err)
		}
		poll(t, ctx, `document.querySelectorAll('#big-road g.mark').length > 0 && !document.getElementById('warning').hidden
			&& document.querySelector('.slot[data-slot="B1"] .card') !== null && !document.getElementById('limits').hidden`)
		settle(t, ctx)
		v, err := chromedp.Run(ctx, chromedp.Evaluate[scriptView](readScript))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	type want struct {
		lang, game, winner, limits, left, phase, player string
		beads, asks, roads                              []string
	}
	for _, tc := range []struct {
		script string
		want   want
	}{
		{"simplified", want{"zh-Hans", "百家乐 Baccarat", "闲 PLAYER", "限红 Limits", "余牌 Cards left", "停止下注 No more bets", "闲 · 庄 Player · Banker",
			[]string{"和", "庄", "闲"}, []string{"庄问路 Banker Ask", "闲问路 Player Ask"},
			[]string{"珠盘路 Bead Plate", "大路 Big Road", "大眼仔 Big Eye Boy", "小路 Small Road", "曱甴路 Cockroach Pig"}}},
		{"traditional", want{"zh-Hant", "百家樂 Baccarat", "閒 PLAYER", "限紅 Limits", "餘牌 Cards left", "停止下注 No more bets", "閒 · 莊 Player · Banker",
			[]string{"和", "莊", "閒"}, []string{"莊問路 Banker Ask", "閒問路 Player Ask"},
			[]string{"珠盤路 Bead Plate", "大路 Big Road", "大眼仔 Big Eye Boy", "小路 Small Road", "曱甴路 Cockroach Pig"}}},
	} {
		t.Run(tc.script, func(t *testing.T) {
			v := open(t, urls[tc.script]+"/?lang=zh+en")
			if o := otherScript(t, tc.script, v.All); o != "" || !hasHan(v.Shown) {
				t.Errorf("the page shows %q of the other script (Chinese on screen %v):\n%s", o, hasHan(v.Shown), v.Shown)
			}
			w := tc.want
			got := want{v.Lang, v.Game, v.Winner, v.Limits, v.Left, v.Phase, strings.Join(v.Players, "|"), v.Beads, v.Asks, v.Roads}
			if fmt.Sprint(got) != fmt.Sprint(w) || v.Script != tc.script || !v.Font {
				t.Errorf("%s board:\n got %q\nwant %q\n(script %q, embedded glyphs loaded %v)", tc.script, got, w, v.Script, v.Font)
			}
			checkLayout(t, ctx, "1920x1080, "+tc.script, d.rounds)
			screenshot(t, ctx, "board-"+tc.script+"-1920x1080.png")

			other := map[string]string{"simplified": "traditional", "traditional": "simplified"}[tc.script]
			asked := open(t, urls[tc.script]+"/?lang=zh&script="+other)
			if o := otherScript(t, other, asked.All); o != "" || asked.Script != other || !hasHan(asked.Shown) {
				t.Errorf("?script=%s on the %s board: script %q, %q of the other script", other, tc.script, asked.Script, o)
			}
			if en := open(t, urls[tc.script]+"/?lang=en"); hasHan(en.Shown) {
				t.Errorf("lang=en on the %s board shows Chinese:\n%s", tc.script, en.Shown)
			}
		})
	}
}
