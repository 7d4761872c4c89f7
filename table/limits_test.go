package table

import (
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/round"
)

// TestStatusShowsLimits: the table's limits are in its status message, for the board to
// display at the table (RWS Baccarat 3.4), with pay_rounded; neither when unset.
func TestStatusShowsLimits(t *testing.T) {
	rc := round.DefaultConfig(baccarat.MustLookup("rws", baccarat.Options{}))
	rc.PayRounded = true
	rc.Limits = &baccarat.Limits{Min: map[baccarat.Bet]baccarat.Money{baccarat.BetBanker: 100}, MaxDifferential: 10000, Boxes: 7}
	n, err := New(Config{Table: "T1", Round: rc})
	if err != nil {
		t.Fatal(err)
	}
	got := string(n.Status("online", time.Unix(0, 0)))
	if !strings.Contains(got, `"limits":{"min":{"banker":100},"max_differential":10000,"excess":"reject","boxes":7},"pay_rounded":true`) {
		t.Fatalf("status %s", got)
	}
	rc.Limits, rc.PayRounded = nil, false
	if n, err = New(Config{Table: "T1", Round: rc}); err != nil {
		t.Fatal(err)
	}
	if got := string(n.Status("online", time.Unix(0, 0))); strings.Contains(got, "limits") || strings.Contains(got, "pay_rounded") {
		t.Fatalf("status without limits %s", got)
	}
}
