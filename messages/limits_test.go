package messages

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/round"
)

// TestStatusLimits: the status carries the table's limits in the shape the board reads
// (RWS Baccarat 3.4), and pay_rounded; neither when unset; both kept by StatusAs.
func TestStatusLimits(t *testing.T) {
	l := &baccarat.Limits{
		Min:             map[baccarat.Bet]baccarat.Money{baccarat.BetBanker: 100, baccarat.BetPlayer: 100, baccarat.BetTie: 100},
		Max:             map[baccarat.Bet]baccarat.Money{baccarat.BetBanker: 20000, baccarat.BetPlayer: 20000, baccarat.BetTie: 2500},
		MaxDifferential: 10000, Excess: baccarat.ExcessReject, Boxes: 7,
	}
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	b, err := json.Marshal(NewStatus(round.State{}, StatusInfo{Table: "t1", State: "online", Rules: baccarat.MustLookup("rws", baccarat.Options{}), Limits: l, PayRounded: true, At: at}))
	if err != nil {
		t.Fatal(err)
	}
	const want = `"limits":{"min":{"banker":100,"player":100,"tie":100},"max":{"banker":20000,"player":20000,"tie":2500},"max_differential":10000,"excess":"reject","boxes":7},"pay_rounded":true`
	if !strings.Contains(string(b), want) {
		t.Fatalf("status\n%s\nwant it to contain\n%s", b, want)
	}
	off, err := StatusAs(b, nil, "offline", at)
	if err != nil || !strings.Contains(string(off), want) {
		t.Fatalf("offline status %s (%v) lost the limits", off, err)
	}
	b, _ = json.Marshal(NewStatus(round.State{}, StatusInfo{Table: "t1", State: "online", Rules: baccarat.MustLookup("rws", baccarat.Options{})}))
	if strings.Contains(string(b), "limits") || strings.Contains(string(b), "pay_rounded") {
		t.Fatalf("a table without limits: %s", b)
	}
}

// TestResultSettlementFields: a result's settlements have exactly the fields `tablectl
// settle` prints.
func TestResultSettlementFields(t *testing.T) {
	s := round.Settlement{Wager: baccarat.Wager{Box: "1", Seat: baccarat.Standing, Bet: baccarat.BetBanker, Stake: 5000},
		Effective: 4000, Resolution: baccarat.Won(baccarat.O(1, 1)), Won: 4000, Returned: 9000, Rule: "cut_back: ..."}
	b, err := json.Marshal(api.Result{Settlements: settlements([]round.Settlement{s})})
	if err != nil {
		t.Fatal(err)
	}
	// The result's settlement is round's, as `tablectl settle` prints it.
	if settle, err := json.Marshal(s); err != nil || !strings.Contains(string(b), string(settle)) {
		t.Fatalf("result\n%s\nwant it to hold the settlement\n%s (%v)", b, settle, err)
	}
	const want = `"settlements":[{"box":"1","seat":"standing","bet":"banker","stake":5000,"effective_stake":4000,"result":"win","won":4000,"returned":9000,"rule":"cut_back: ..."}]`
	if !strings.Contains(string(b), want) {
		t.Fatalf("result\n%s\nwant it to contain\n%s", b, want)
	}
}
