package console

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/pit"
)

// pitDouble is an archive's reader with the pit's figures (PitFigures): the rounds and
// stretches it is given, those of the pit asked for.
type pitDouble struct {
	historyDouble
	rounds []pit.Round
	stills []pit.Still
	asked  []history.PitFilter
}

func (p *pitDouble) PitRounds(_ context.Context, f history.PitFilter) ([]pit.Round, error) {
	p.mu.Lock()
	p.asked = append(p.asked, f)
	p.mu.Unlock()
	var out []pit.Round
	for _, r := range p.rounds {
		if (f.Pit == "" || r.Pit == f.Pit) && !r.FirstCard.Before(f.From) && r.FirstCard.Before(f.To) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (p *pitDouble) Stills(_ context.Context, f history.PitFilter) ([]pit.Still, error) {
	var out []pit.Still
	for _, s := range p.stills {
		if f.Pit == "" || s.Pit == f.Pit {
			out = append(out, s)
		}
	}
	return out, nil
}

// twelveTables puts 12 tables on the floor, six in each of pit1 and pit2 of site mo:
// dealers on all but every fourth, one table held, one offline, each with results in the
// last hour.
func twelveTables(tc *testConsole) {
	now := tc.clock.now()
	for i := 1; i <= 12; i++ {
		id, p := fmt.Sprintf("bac%02d", i), "pit1"
		if i > 6 {
			p = "pit2"
		}
		base := "casino/mo/" + p + "/tablectl/v1/" + id + "/"
		dealer, state := fmt.Sprintf("D-%02d", i), "online"
		if i%4 == 0 {
			dealer = ""
		}
		if i == 11 {
			state = "offline"
		}
		tc.srv.Ingest(base+"status", []byte(fmt.Sprintf(`{"schema":2,"table":%q,"state":%q,"rules":"rws","decks":8,"devices":{"shoe":"connected","shuffler":"connected"},"dealer":%q}`, id, state, dealer)))
		if i == 8 {
			tc.srv.Ingest(base+"state", []byte(heldAt(id, now.Add(-3*time.Minute))))
		} else {
			tc.srv.Ingest(base+"state", []byte(dealing(id, "rws")))
		}
		if i == 5 { // a shoe that failed to read three cards in the last hour
			for n := 1; n <= 3; n++ {
				tc.srv.Ingest(base+"irregularity", []byte(fmt.Sprintf(`{"schema":2,"table":%q,"shoe":3,"round":%d,"seq":%d,"at":%q,"event":"raised","id":%d,"kind":"incorrect_cards","device":"shoe"}`,
					id, 10*n, 900+n, now.Add(-time.Duration(40-10*n)*time.Minute).Format(time.RFC3339), n)))
			}
		}
		for r := 1; r <= 20+i; r++ {
			tc.srv.Ingest(base+"result", []byte(fmt.Sprintf(`{"schema":2,"table":%q,"shoe":3,"round":%d,"seq":%d,"at":%q,"winner":"banker","player_points":3,"banker_points":7}`,
				id, r, r, now.Add(-time.Duration(60-r)*time.Minute).Format(time.RFC3339))))
		}
	}
}

// TestPitPageInBrowser: at both screens, with 12 tables in two pits: the Floor shows
// each table's dealer (or none) and its rounds of the last hour; the Pit page of pit2
// shows pit2's six tables alone, each with its dealer, its state, its rounds of the last
// hour, and the archive's rounds per dealing hour and stand-still, and pit2's dealers
// with their rounds; the figures are the last hour's, of pit2 (docs/pit.md).
func TestPitPageInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		var tc *testConsole
		src := &pitDouble{}
		tc = newTestConsoleWith(t, nil, func(o *Options) { o.History = src })
		now := tc.clock.now()
		// The archive's hour of bac09: 50 rounds, 10 minutes without a dealer.
		for i := range 50 {
			first := now.Add(-59*time.Minute + time.Duration(i)*time.Minute)
			src.rounds = append(src.rounds, pit.Round{Table: "bac09", Pit: "pit2", Dealer: "D-09", Opened: first.Add(-20 * time.Second),
				FirstCard: first, Complete: first.Add(25 * time.Second), Settled: first.Add(30 * time.Second)})
		}
		src.stills = []pit.Still{{Table: "bac09", Pit: "pit2", Why: pit.StillNoDealer, From: now.Add(-30 * time.Minute), To: now.Add(-20 * time.Minute)}}
		twelveTables(tc)

		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		until(t, ctx, "12 tiles", `document.querySelectorAll('.tile').length === 12`)
		if got := text(t, ctx, `.tile[data-table="bac09"] .line.dealer`) + " · " + text(t, ctx, `.tile[data-table="bac09"] .line.pace`); !strings.HasPrefix(got, "Dealer D-09 · 29 rounds in the last hour (since ") {
			t.Errorf("bac09's tile: %q", got)
		}
		if got := text(t, ctx, `.tile[data-table="bac04"] .line.dealer`) + " · " + text(t, ctx, `.tile[data-table="bac04"] .line.pace`); !strings.HasPrefix(got, "No dealer on · 24 rounds") {
			t.Errorf("bac04's tile: %q", got)
		}
		if got := text(t, ctx, `.tile[data-table="bac05"] .devices`); got != "Shoe failed 3\u00a0times in the last hour" {
			t.Errorf("bac05's devices: %q", got)
		}
		if got := text(t, ctx, `.tile[data-table="bac06"] .devices`); got != "Devices connected" {
			t.Errorf("bac06's devices: %q", got)
		}
		shot(t, ctx, sc, "floor-12-tables")

		if _, err := chromedp.Run(ctx, chromedp.Navigate(tc.http.URL+"/pit.html?pit=pit2")); err != nil {
			t.Fatal(err)
		}
		until(t, ctx, "the pit's figures", `document.body.dataset.ready === "1" && document.querySelectorAll('#tables tr[data-table]').length === 6`)
		rows := evaluate[[]string](t, ctx, `[...document.querySelectorAll('#tables tr[data-table]')].map((r) => [...r.cells].map((c) => c.textContent).join('|'))`)
		if len(rows) != 6 || !strings.HasPrefix(rows[0], "bac07|D-07|") || !strings.HasPrefix(rows[2], "bac09|D-09|") || !strings.Contains(rows[2], "|29|60.0|10:00|no dealer") {
			t.Errorf("pit2's tables:\n%s", strings.Join(rows, "\n"))
		}
		if !strings.Contains(rows[1], "bac08|No dealer on|Held") || !strings.Contains(rows[4], "bac11|D-11|Offline") {
			t.Errorf("the held and offline tables:\n%s", strings.Join(rows, "\n"))
		}
		dealers := evaluate[[]string](t, ctx, `[...document.querySelectorAll('#dealers tr[data-dealer]')].map((r) => [...r.cells].map((c) => c.textContent).join('|'))`)
		if len(dealers) == 0 || dealers[0] != "D-09|bac09|50|25.0" {
			t.Errorf("pit2's dealers:\n%s", strings.Join(dealers, "\n"))
		}
		shot(t, ctx, sc, "pit-page")
		src.mu.Lock()
		asked := src.asked[len(src.asked)-1]
		src.mu.Unlock()
		if asked.Pit != "pit2" || !asked.To.Equal(now) || asked.To.Sub(asked.From) != time.Hour {
			t.Errorf("the archive was asked for %+v: want pit2's last hour", asked)
		}
	})
}
