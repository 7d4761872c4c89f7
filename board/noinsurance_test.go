package board

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
)

// ncInsuranceLimits are the limits of an NC Insurance table, Insurance included, as the
// status carries them (docs/mqtt.md).
func ncInsuranceLimits() map[string]any {
	return map[string]any{
		"min": map[string]any{"player": 100, "banker": 100, "tie": 100, "super_six_plus": 25,
			"player_pair": 25, "banker_pair": 25, "player_insurance": 50, "banker_insurance": 50},
		"max": map[string]any{"player": 20000, "banker": 20000, "tie": 2500, "super_six_plus": 1000,
			"player_pair": 1000, "banker_pair": 1000, "player_insurance": 10000, "banker_insurance": 10000},
		"max_differential": 10000}
}

// noInsuranceStatus is the status of the dealt shoe's table as an NC Insurance table
// that offers no Insurance publishes it (api.Status's NoInsurance), with limits
// added when not nil.
func noInsuranceStatus(t *testing.T, d fullShoe, noInsurance bool, limits map[string]any) []byte {
	t.Helper()
	var s api.Status
	if err := json.Unmarshal(d.status, &s); err != nil {
		t.Fatal(err)
	}
	s.Rules, s.NoInsurance = "nc-insurance", noInsurance
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if limits != nil {
		b = statusWith(t, b, map[string]any{"limits": limits})
	}
	return b
}

// noteOf is the limits' line with id, and whether there is one.
func (v limitsView) noteOf(id string) (limitLine, bool) {
	for _, l := range v.Lines {
		if l.ID == id {
			return l, true
		}
	}
	return limitLine{}, false
}

// TestNoInsuranceNoticeInBrowser checks the notice NC Insurance 4.2.2 asks for at a table
// that offers no Insurance ("a notice shall be displayed at the gaming table to inform all
// Players that no Insurance shall be offered"): with the status's no_insurance, the
// board's limits' line says it in each language setting, on a page of its own turn like
// the limits', with the Insurance bets' limits left out, the layout kept at every page;
// with limits or without; and not when the table offers Insurance. It keeps
// test-artifacts/board/board-no-insurance-<lang>.png and board-no-insurance-1080x1920.png.
func TestNoInsuranceNoticeInBrowser(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	br := startBroker(t)
	_, srv := startBoard(t, br.URL(), "t1", 0)
	pub := newPublisher(t, br.URL(), "t1")
	d := dealFullShoe(t, "t1", 72, 7)
	for _, m := range d.msgs {
		pub.publish(m.topic, m.payload, m.retained)
	}
	limits := ncInsuranceLimits()
	pub.publish(pub.c.Topics().Status(), noInsuranceStatus(t, d, true, limits), true)

	hasCJK := func(s string) bool { return strings.IndexFunc(s, func(r rune) bool { return r >= 0x2E80 }) >= 0 }
	for _, tc := range []struct {
		lang, file   string
		note1, note2 string
		title        string
	}{
		{"en+zh", "enzh", "No Insurance offered at this table", "本台不设保险", "LIMITS 限红"},
		{"zh+en", "zhen", "本台不设保险", "No Insurance offered at this table", "限红 LIMITS"},
		{"en", "en", "No Insurance offered at this table", "", "LIMITS"},
		{"zh", "zh", "本台不设保险", "", "限红"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?lang="+tc.lang)); err != nil {
				t.Fatal(err)
			}
			poll(t, ctx, `document.getElementById('no-insurance') !== null && document.querySelector('.slot[data-slot="B1"] .card') !== null`)
			settle(t, ctx)
			v := readLimitsView(t, ctx)
			if v.Title != tc.title {
				t.Errorf("title %q, want %q", v.Title, tc.title)
			}
			note, ok := v.noteOf("no-insurance")
			if !ok || note.Name1 != tc.note1 || note.Name2 != tc.note2 {
				t.Fatalf("the notice %+v (found %v), want %q %q", note, ok, tc.note1, tc.note2)
			}
			if tc.lang == "en" && hasCJK(note.Name1+note.Name2) || tc.lang == "zh" && !hasCJK(note.Name1) {
				t.Errorf("lang=%s: the notice says %q %q", tc.lang, note.Name1, note.Name2)
			}
			// The bets the table offers keep their limits; Insurance has none.
			for _, bet := range []string{"player", "banker", "tie", "super_six_plus", "player_pair"} {
				if _, n := v.lineOf(bet); n != 1 {
					t.Errorf("%s is on %d lines, want 1: %+v", bet, n, v.Lines)
				}
			}
			for _, bet := range []string{"player_insurance", "banker_insurance"} {
				if l, n := v.lineOf(bet); n != 0 {
					t.Errorf("%s's limits shown (%+v) at a table that offers no Insurance", bet, l)
				}
			}
			// The notice is on a page of the line, shown when its page is up, and the
			// page fits the screen beside a whole shoe.
			if note.Page < 1 || note.Page > v.Pages {
				t.Fatalf("the notice is on page %d of %d", note.Page, v.Pages)
			}
			pv, l := limitsPage(t, ctx, note.Page)
			if note, _ := pv.noteOf("no-insurance"); note.Hidden {
				t.Errorf("page %d of %d is up and the notice on it is hidden: %+v", pv.Page, pv.Pages, pv.Lines)
			}
			assertLayout(t, fmt.Sprintf("lang=%s, the notice's page %d of %d", tc.lang, pv.Page, pv.Pages), l, d.rounds)
			screenshot(t, ctx, fmt.Sprintf("board-no-insurance-%s.png", tc.file))
		})
	}

	// Portrait: the line is two lines high, and the notice still fits.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1080, 1920), chromedp.Navigate(srv.URL+"/?lang=en+zh")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, `document.getElementById('no-insurance') !== null`)
	settle(t, ctx)
	note, _ := readLimitsView(t, ctx).noteOf("no-insurance")
	pv, l := limitsPage(t, ctx, note.Page)
	if note, _ := pv.noteOf("no-insurance"); note.Hidden || note.Name1 == "" {
		t.Errorf("portrait: the notice %+v, want it shown", note)
	}
	assertLayout(t, "1080x1920, the notice's page", l, d.rounds)
	screenshot(t, ctx, "board-no-insurance-1080x1920.png")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1920, 1080), chromedp.Navigate(srv.URL+"/?lang=en")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, `document.getElementById('no-insurance') !== null`)

	// The table offers Insurance: no notice, and the Insurance bets' limits are back.
	pub.publish(pub.c.Topics().Status(), noInsuranceStatus(t, d, false, limits), true)
	poll(t, ctx, `document.querySelector('#limits .limit[data-bet~="player_insurance"]') !== null`)
	v := readLimitsView(t, ctx)
	if note, ok := v.noteOf("no-insurance"); ok {
		t.Errorf("a table that offers Insurance shows the notice %+v", note)
	}
	if _, n := v.lineOf("banker_insurance"); n != 1 {
		t.Errorf("banker_insurance on %d lines, want 1: %+v", n, v.Lines)
	}

	// No limits: the notice alone, without the limits' title; then neither, no line.
	pub.publish(pub.c.Topics().Status(), noInsuranceStatus(t, d, true, nil), true)
	poll(t, ctx, `document.getElementById('no-insurance') !== null && document.querySelector('#limits .limit[data-bet]') === null`)
	if v := readLimitsView(t, ctx); !v.Shown || v.Title != "" || len(v.Lines) != 1 || v.Lines[0].ID != "no-insurance" || v.Lines[0].Hidden {
		t.Errorf("the notice without limits: %+v, want the notice alone", v)
	}
	pub.publish(pub.c.Topics().Status(), noInsuranceStatus(t, d, false, nil), true)
	poll(t, ctx, `document.getElementById('limits').hidden`)
	if v := readLimitsView(t, ctx); len(v.Lines) != 0 {
		t.Errorf("a table that offers Insurance, without limits: %+v, want no line", v)
	}
}

// dealInsuranceOffer deals a round of an NC Insurance table through the real round
// controller and message builder up to an open Insurance offer: Player 7 against Banker
// 3 after the four cards, a Player Insurance Bet at 4 to 1 (NC Insurance 4.1.2). It is
// the retained state then.
func dealInsuranceOffer(t *testing.T, table string) []byte {
	t.Helper()
	rs := baccarat.MustLookup("nc-insurance", baccarat.Options{})
	cfg := round.DefaultConfig(rs)
	cfg.Burn = round.BurnNone
	ctl, err := round.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := messages.NewBuilder(table, rs, roadmap.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	var state []byte
	step := func(ev round.Event) {
		t.Helper()
		at = at.Add(2 * time.Second)
		ev.At = at
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
			if m.Topic == api.TopicState {
				state = m.Payload
			}
		}
	}
	step(round.Event{Kind: round.NewShoe, Set: "S1", Decks: 8})
	step(round.Event{Kind: round.BetsClosed})
	for i, c := range []string{"3H", "KS", "4D", "3C"} { // P1 B1 P2 B2
		step(round.Event{Kind: round.CardDrawn, Card: baccarat.MustParseCard(c), Seq: uint64(i + 1)})
	}
	if offers := ctl.State().Offers; len(offers) != 1 {
		t.Fatalf("Player 7, Banker 3: offers %v, want the Player Insurance Bet's", offers)
	}
	return state
}

// TestInsuranceOfferNamesTheBet checks that the round panel's Insurance line names the
// bet offered by the board's names for it in each language setting (Player insurance
// 闲保险), with its odds, not by its identifier, and fits its panel.
func TestInsuranceOfferNamesTheBet(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	br := startBroker(t)
	_, srv := startBoard(t, br.URL(), "t1", 0)
	pub := newPublisher(t, br.URL(), "t1")
	d := dealFullShoe(t, "t1", 72, 7)
	for _, m := range d.msgs {
		pub.publish(m.topic, m.payload, m.retained)
	}
	pub.publish(pub.c.Topics().Status(), noInsuranceStatus(t, d, false, ncInsuranceLimits()), true)
	state := dealInsuranceOffer(t, "t1")
	// The offer's round follows the dealt shoe's.
	state = statusWith(t, state, map[string]any{"shoe": 1, "round": d.rounds + 2})
	pub.publish(pub.c.Topics().State(), state, true)
	for _, tc := range []struct{ lang, file, want string }{
		{"en+zh", "enzh", "Insurance open 保险开放: Player insurance 闲保险 4:1"},
		{"zh+en", "zhen", "保险开放 Insurance open: 闲保险 Player insurance 4:1"},
		{"en", "en", "Insurance open: Player insurance 4:1"},
		{"zh", "zh", "保险开放: 闲保险 4:1"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?lang="+tc.lang)); err != nil {
				t.Fatal(err)
			}
			poll(t, ctx, `!document.getElementById('insurance').hidden`)
			settle(t, ctx)
			type line struct {
				Text string `json:"text"`
				Cut  bool   `json:"cut"`
			}
			got, err := chromedp.Run(ctx, chromedp.Evaluate[line](`(() => {
				const e = document.getElementById('insurance');
				return { text: e.textContent, cut: e.scrollWidth > e.clientWidth + 1 };
			})()`))
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tc.want {
				t.Errorf("the Insurance line says %q, want %q", got.Text, tc.want)
			}
			if got.Cut {
				t.Errorf("the Insurance line %q is cut by its panel", got.Text)
			}
			checkLayout(t, ctx, "lang="+tc.lang+", an Insurance offer open", 0)
			if tc.lang == "en+zh" || tc.lang == "zh" {
				screenshot(t, ctx, fmt.Sprintf("board-insurance-offer-%s.png", tc.file))
			}
		})
	}
}
