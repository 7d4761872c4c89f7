package api

import (
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// TestBoxOptionCommand: a box's choice arrives as one command per box; malformed ones
// are refused with the reason.
func TestBoxOptionCommand(t *testing.T) {
	_, ev, err := ParseCommand("pit_manager", []byte(`{"cmd":"box_option","box":"3","option":"insurance-intended","bet":"banker_insurance","actor":"M1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind != round.BoxChoice || ev.Box != "3" || ev.Option != irregularities.OptInsuranceIntended ||
		ev.Bet != baccarat.BetBankerInsurance || ev.Role != irregularities.PitManager || ev.Actor != "M1" {
		t.Errorf("event %+v", ev)
	}
	for payload, want := range map[string]string{
		`{"cmd":"box_option","option":"bet-returned"}`:                  "needs the box",
		`{"cmd":"box_option","box":"1","option":"maybe"}`:               `unknown option "maybe"`,
		`{"cmd":"box_option","box":"1","option":"continue","bet":"x"}`:  "box_option bet",
		`{"cmd":"box_option","box":"1","option":"continue","odds":"x"}`: "unknown field",
	} {
		if _, _, err := ParseCommand("dealer", []byte(payload)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", payload, err, want)
		}
	}
}
