package board

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// get fetches path from srv and returns its status, content type and body.
func get(t *testing.T, url string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}

// TestPageSettings checks that the board's language pair, script, game name and logo
// reach the page, that the logo is served as the image it is, and that a page without a
// logo serves none.
func TestPageSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logo := filepath.Join(dir, "casino.png")
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	if err := os.WriteFile(logo, png, 0o644); err != nil {
		t.Fatal(err)
	}
	b := newBoard(t, Options{Broker: "tcp://127.0.0.1:1", Table: "t1", Lang: "zh+en", Script: "traditional", Game: `Lucky "8" <Baccarat>`, Logo: logo})
	srv := serve(t, b, nil)
	code, ctype, page := get(t, srv.URL+"/")
	if code != http.StatusOK || !strings.HasPrefix(ctype, "text/html") {
		t.Fatalf("GET /: %d %s", code, ctype)
	}
	for _, want := range []string{`data-lang="zh&#43;en"`, `data-script="traditional"`, `data-game="Lucky &#34;8&#34; &lt;Baccarat&gt;"`, `data-logo="true"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not carry %s:\n%s", want, page[:min(len(page), 600)])
		}
	}
	code, ctype, body := get(t, srv.URL+"/logo")
	if code != http.StatusOK || ctype != "image/png" || body != string(png) {
		t.Errorf("GET /logo: %d %s (%d bytes), want the PNG of %d bytes", code, ctype, len(body), len(png))
	}

	plain := newBoard(t, Options{Broker: "tcp://127.0.0.1:1", Table: "t1"})
	psrv := serve(t, plain, nil)
	if _, _, page := get(t, psrv.URL+"/"); !strings.Contains(page, `data-lang="en&#43;zh"`) ||
		!strings.Contains(page, `data-script="simplified"`) || !strings.Contains(page, `data-logo="false"`) {
		t.Errorf("a board with no settings: want en+zh, simplified and no logo:\n%s", page[:min(len(page), 600)])
	}
	if code, _, _ := get(t, psrv.URL+"/logo"); code != http.StatusNotFound {
		t.Errorf("GET /logo without a logo: %d, want 404", code)
	}
}

// TestPageSettingsRefused checks that a bad language, script, game name or logo is
// refused by New with an error naming it.
func TestPageSettingsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := filepath.Join(dir, "logo.png")
	if err := os.WriteFile(text, []byte("not an image at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.svg")
	if err := os.WriteFile(big, make([]byte, MaxLogo+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"language", Options{Lang: "fr"}, `language "fr"`},
		{"script", Options{Script: "hanzi"}, `script "hanzi": want simplified or traditional`},
		{"game of two lines", Options{Game: "a\nb"}, "game name"},
		{"logo missing", Options{Logo: filepath.Join(dir, "none.png")}, "none.png"},
		{"logo of no image type", Options{Logo: filepath.Join(dir, "logo.txt")}, "want a .png"},
		{"logo not a PNG", Options{Logo: text}, "not image/png"},
		{"logo too large", Options{Logo: big}, "more than the"},
	} {
		tc.opts.Broker, tc.opts.Table, tc.opts.Logger = "tcp://127.0.0.1:1", "t1", quietLogger()
		b, err := New(tc.opts)
		if err == nil {
			b.Close()
			t.Errorf("%s: New took it", tc.name)
		} else if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestCJKFontCoversLabels checks that the embedded Chinese glyphs were cut for the
// characters the page uses: board/fonts/subset.sh lists them in cjk-chars.txt as it
// builds cjk.woff, so a label changed without running it again fails here.
func TestCJKFontCoversLabels(t *testing.T) {
	t.Parallel()
	used := map[rune]bool{}
	for _, f := range []string{"static/board.js", "static/index.html"} {
		data, err := static.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range string(data) {
			if r >= 0x2E80 {
				used[r] = true
			}
		}
	}
	listed, err := static.ReadFile("static/cjk-chars.txt")
	if err != nil {
		t.Fatal(err)
	}
	have := map[rune]bool{}
	for _, r := range strings.TrimSpace(string(listed)) {
		have[r] = true
	}
	var missing []string
	for r := range used {
		if !have[r] {
			missing = append(missing, string(r))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the embedded font was not cut for %s: run board/fonts/subset.sh", strings.Join(missing, ""))
	}
	if len(used) < 40 {
		t.Errorf("only %d Chinese characters in the page: the labels are missing", len(used))
	}
	if woff, err := static.ReadFile("static/cjk.woff"); err != nil || string(woff[:4]) != "wOFF" {
		t.Errorf("static/cjk.woff is not a WOFF font (%v)", err)
	}
}

// TestLanguagesInBrowser opens the board in each language setting: en shows no Chinese,
// zh shows the Chinese labels in large type (庄 闲 和 on the bead plate, 庄问路 and
// 闲问路) drawn with the embedded glyphs, and en+zh shows both.
func TestLanguagesInBrowser(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	br := startBroker(t)
	_, srv := startBoard(t, br.URL(), "t1", 0)
	pub := newPublisher(t, br.URL(), "t1")
	d := dealShoe(t, "t1")
	pub.publish(pub.c.Topics().Status(), d.status, true)
	for _, m := range d.msgs {
		pub.publish(m.topic, m.payload, m.retained)
	}
	type view struct {
		Text   string   `json:"text"`
		Beads  []string `json:"beads"`
		Asks   []string `json:"asks"`
		Font   bool     `json:"font"`
		Winner string   `json:"winner"`
	}
	read := func(lang string) view {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?lang="+lang)); err != nil {
			t.Fatal(err)
		}
		poll(t, ctx, `document.querySelectorAll('#bead-plate g.mark').length === 21`)
		settle(t, ctx)
		v, err := chromedp.Run(ctx, chromedp.Evaluate[view](`({
			text: document.body.innerText,
			beads: [...document.querySelectorAll('#bead-plate g.mark text')].slice(0, 3).map((e) => e.textContent),
			asks: [...document.querySelectorAll('.ask-name')].map((e) => e.innerText.replace(/\s+/g, ' ')),
			font: [...document.fonts].some((f) => f.family.includes('Board CJK') && f.status === 'loaded'),
			winner: document.getElementById('last-winner').innerText.replace(/\s+/g, ' '),
		})`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	hasCJK := func(s string) bool { return strings.IndexFunc(s, func(r rune) bool { return r >= 0x2E80 }) >= 0 }

	en := read("en")
	if hasCJK(en.Text) || strings.Join(en.Beads, " ") != "B B P" || strings.Join(en.Asks, "|") != "Banker Ask|Player Ask" || en.Winner != "BANKER" {
		t.Errorf("lang=en: beads %v, asks %v, last %q, Chinese shown %v", en.Beads, en.Asks, en.Winner, hasCJK(en.Text))
	}
	zh := read("zh")
	if strings.Join(zh.Beads, " ") != "庄 庄 闲" || strings.Join(zh.Asks, "|") != "庄问路|闲问路" || zh.Winner != "庄" || !zh.Font {
		t.Errorf("lang=zh: beads %v, asks %v, last %q, embedded glyphs loaded %v; want 庄 庄 闲, 庄问路|闲问路, 庄", zh.Beads, zh.Asks, zh.Winner, zh.Font)
	}
	pair := read("en+zh")
	if strings.Join(pair.Asks, "|") != "Banker Ask 庄问路|Player Ask 闲问路" || pair.Winner != "BANKER 庄" {
		t.Errorf("lang=en+zh: asks %v, last %q; want both languages", pair.Asks, pair.Winner)
	}
}
