package board

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/round"
)

// TestRuleSetNameFromStatusInBrowser: the board names the rule set and its game from
// the table's status alone (rules_name, rules_family), whatever the rule set: one a
// test adds in a registry of its own, a commission variant of RWS Baccarat, shows its
// name beside the table's and the game Baccarat; the standard ones show theirs. The
// table's line is not cut.
func TestRuleSetNameFromStatusInBrowser(t *testing.T) {
	t.Parallel()
	rws, _ := baccarat.Standard.Get("rws")
	v := rws.Clone()
	v.Name, v.Display, v.Family = "rws-commission", "RWS Baccarat, commission", baccarat.FamilyBaccarat
	v.Pays.Banker, v.Pays.BankerOnSix = baccarat.O(19, 20), baccarat.Odds{}
	reg, err := baccarat.Standard.With(v)
	if err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	br := startBroker(t)
	_, srv := startBoard(t, br.URL(), "t1", 0)
	pub := newPublisher(t, br.URL(), "t1")
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		rules, name, game string
	}{
		{"rws-commission", "RWS Baccarat, commission", "Baccarat 百家乐"},
		{"rws", "RWS Baccarat", "Non-Commission Baccarat 免佣百家乐"},
		{"royal", "Royal Baccarat", "Royal Baccarat 皇家百家乐"},
		{"classic", "Classic", "Baccarat 百家乐"},
	} {
		rs := reg.MustLookup(tc.rules, baccarat.Options{})
		status, err := json.Marshal(messages.NewStatus(round.State{}, messages.StatusInfo{Table: "t1", State: api.Online, Rules: rs, At: at}))
		if err != nil {
			t.Fatal(err)
		}
		pub.publish(pub.c.Topics().Status(), status, true)
		poll(t, ctx, `document.getElementById('rules-name').textContent === ' · `+tc.name+`'`)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => { const l = document.querySelector('.table-line');
			return [document.getElementById('game').innerText, l.innerText, String(l.scrollWidth <= l.clientWidth + 1)]; })()`))
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != tc.game || got[1] != "Table 台号 t1 · "+tc.name || got[2] != "true" {
			t.Errorf("%s: the header says game %q, table line %q (whole: %s); want %q, %q", tc.rules, got[0], got[1], got[2],
				tc.game, "Table 台号 t1 · "+tc.name)
		}
	}
}
