package irregularities

import "testing"

// TestCatalogueRulings: the entries carry the rulings the controller acts on.
func TestCatalogueRulings(t *testing.T) {
	for _, k := range Kinds() {
		e := Lookup(k)
		if (e.Action == VoidRound || e.Action == RefuseShoe) && e.VoidReason == "" {
			t.Errorf("%s voids a round but gives no reason", k)
		}
	}
	// RWS Baccarat 5.4: the rule decides, a supervisor confirms.
	if e := Lookup(TechnicalInterruption); e.Action != ByRule || !e.Allows(Proceed) || !e.Allows(Void) {
		t.Errorf("technical interruption: %+v", e)
	}
	// 5.8 and 5.10 provide no void: the players have the options of 5.12 instead.
	for _, k := range []Kind{WrongHand, SimultaneousDraw} {
		if e := Lookup(k); e.Allows(Void) || !e.PlayerOptions {
			t.Errorf("%s: choices %v, player options %v", k, e.Choices, e.PlayerOptions)
		}
	}
	if !Lookup(WrongHand).Allows(Proceed) {
		t.Error("a wrong hand that cannot be reconstructed cannot continue as dealt")
	}
}

func TestOptions(t *testing.T) {
	for _, n := range []string{"continue", "continue-reconstructed", "bet-returned", "insurance-intended", "withdraw"} {
		o, err := ParseOption(n)
		if err != nil || o.String() != n {
			t.Errorf("option %q: %v %v", n, o, err)
		}
	}
	if _, err := ParseOption("void"); err == nil {
		t.Error("void is no player's option")
	}
}
