package tablecmd

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAnalyzeJSON(t *testing.T) {
	t.Parallel()
	out, _, err := runCmd(t, "", "analyze", "--rules", "classic", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Rules       string            `json:"rules"`
		Decks       int               `json:"decks"`
		TotalWeight string            `json:"total_weight"`
		Outcomes    map[string]string `json:"outcomes"`
		Bets        []struct {
			Bet string  `json:"bet"`
			RTP float64 `json:"rtp_percent"`
		} `json:"bets"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Rules != "classic" || r.Decks != 8 || r.TotalWeight != "4998398275503360" || r.Outcomes["banker"] != "2292252566437888" {
		t.Errorf("got %+v", r)
	}
	if len(r.Bets) != 3 || r.Bets[1].Bet != "banker" || r.Bets[1].RTP != 98.9421 {
		t.Errorf("bets %+v", r.Bets)
	}
}

func TestAnalyzeText(t *testing.T) {
	t.Parallel()
	out, _, err := runCmd(t, "", "analyze", "--rules", "nc-insurance", "--decks", "6")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rule set nc-insurance, 6 decks", "super_six_plus", "20:1", "insurance", "after player's third card", "1.5:1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestAnalyzeErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze", "--rules", "punto"}, `unknown rule set "punto"`},
		{[]string{"analyze", "--rules", "rws", "--decks", "3"}, "3 decks not permitted"},
		{[]string{"analyze", "--rules", "royal", "--royal-tiers", "5"}, "5 tiers"},
		{[]string{"analyze", "--rules", "classic", "--royal-paytable", "2"}, "apply only to royal"},
		{[]string{"analyze", "extra"}, `unexpected argument "extra"`},
		{[]string{"nosuch"}, `unknown command "nosuch"`},
	} {
		_, _, err := runCmd(t, "", tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}
