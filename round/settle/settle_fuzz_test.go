package settle

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// settled is the output as a test reads it back.
type settled struct {
	Winner      string `json:"winner"`
	Natural     bool   `json:"natural"`
	Settlements []struct {
		Box         string `json:"box"`
		Seat        string `json:"seat"`
		Bet         string `json:"bet"`
		Stake       int64  `json:"stake"`
		Effective   int64  `json:"effective_stake"`
		Result      string `json:"result"`
		Won         int64  `json:"won"`
		Returned    int64  `json:"returned"`
		Rule        string `json:"rule"`
		MayWithdraw bool   `json:"may_withdraw"`
	} `json:"settlements"`
	Offers []struct {
		Bet   string `json:"bet"`
		Stage string `json:"stage"`
	} `json:"insurance_offers"`
}

// FuzzSettle: any input gives either one JSON object whose settlements conserve money
// (returned plus the effective stakes lost equal the stakes plus the winnings), or an
// error that names no Go type; never a panic.
func FuzzSettle(f *testing.F) {
	f.Add([]byte(`{"rules":"rws","cards":{"player":["KS","3D","2C"],"banker":["4H","3S"]},"limits":{"min":{"banker":100},"max":{"banker":20000},"max_differential":10000},"excess":"reject","wagers":[{"box":"1","seat":"seated","bet":"banker","stake":6000},{"box":"1","seat":"standing","bet":"banker","stake":5000}]}`))
	f.Add([]byte(`{"rules":"nc-tournament","cards":{"player":["9C","KC"],"banker":["9D","KH"]},"limits":{"max_differential":1000,"excess":"pro_rata"},"wagers":[{"box":"1","bet":"player","stake":700},{"box":"1","seat":"standing","bet":"player","stake":600}]}`))
	f.Add([]byte(`{"rules":"royal","royal_paytable":2,"cards":{"player":["AH","KH"],"banker":["QH","JH"]},"wagers":[{"box":"1","bet":"royal_tie","stake":1}]}`))
	f.Add([]byte(`{"rules":"nc-insurance","cards":{"player":["4H","KD","5C"],"banker":["6D","KS"]},"wagers":[{"box":"1","bet":"banker","stake":100}],"insurance":[{"stage":"after_four_cards","bets":[{"box":"1","stake":30}]}]}`))
	f.Add([]byte(`{"rules":`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Round(bytes.NewReader(in))
		if err != nil {
			for _, leak := range []string{"Go value", "Go struct", "json.", "map[string]", "interface {", "struct {"} {
				if strings.Contains(err.Error(), leak) && !bytes.Contains(in, []byte(leak)) {
					t.Fatalf("the error names a Go type (%q): %v", leak, err)
				}
			}
			return
		}
		var s settled
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatalf("output %s: %v", out, err)
		}
		var lhs, rhs int64
		for _, x := range s.Settlements {
			lhs += x.Returned
			if x.Result == "lose" {
				lhs += x.Effective
			}
			rhs += x.Stake + x.Won
			if x.Effective < 0 || x.Effective > x.Stake {
				t.Fatalf("%+v", x)
			}
		}
		if lhs != rhs {
			t.Fatalf("money not conserved: %s", out)
		}
	})
}
