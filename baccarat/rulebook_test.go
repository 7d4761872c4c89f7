package baccarat

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
)

// variant is a rule set added by a test: RWS Baccarat's bets with a Banker win paid
// 19:20 on 6 too, under a name and a display name of its own, with a rule of its own
// for a card not of the set.
func variant(t *testing.T) Rulebook {
	t.Helper()
	rb, ok := Standard.Get("rws")
	if !ok {
		t.Fatal("no rws rule book")
	}
	v := rb.Clone()
	v.Name, v.Display, v.Family = "rws-commission", "RWS Baccarat, commission", FamilyBaccarat
	v.Pays.Banker, v.Pays.BankerOnSix = O(19, 20), Odds{}
	v.Citations["foreign_card"] = "House Rules 7.1"
	return v
}

// TestRuleSetAddedInATest: a rule book registered in a registry of the test's own is
// looked up by its name and settles by its pay table (Banker 19:20 on 6, where RWS
// Baccarat pays 1:2), refuses a stake its commission cannot pay exactly, and cites its
// own rules; Standard does not know it.
func TestRuleSetAddedInATest(t *testing.T) {
	t.Parallel()
	reg, err := Standard.With(variant(t))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := reg.Lookup("rws-commission", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rs.Name != "rws-commission" || rs.Display != "RWS Baccarat, commission" || rs.Family != FamilyBaccarat {
		t.Errorf("looked up %q (%q, %s)", rs.Name, rs.Display, rs.Family)
	}
	rws := MustLookup("rws", Options{})
	for _, tc := range []struct {
		cards    string
		bet      Bet
		rs       *RuleSet
		want     string
		wantPaid Money // on a stake of 100
	}{
		{bankerSix2, BetBanker, rs, "win 0.95:1", 95},
		{bankerSix2, BetBanker, rws, "win 1:2", 50},
		{bankerNatural8, BetBanker, rs, "win 0.95:1", 95},
		{bankerNatural8, BetBanker, rws, "win 1:1", 100},
		{playerNatural9, BetPlayer, rs, "win 1:1", 100},
		{tieNatural8, BetTie, rs, "win 8:1", 800},
		{tieNatural8, BetBanker, rs, "push", 0},
		{tieNatural8, TieWinsOn(8), rs, "win 60:1", 6000},
	} {
		res := tc.rs.Resolve(tc.bet, round(t, tc.cards))
		if got := res.String(); got != tc.want {
			t.Errorf("%s %s on %q: %s, want %s", tc.rs.Name, tc.bet, tc.cards, got, tc.want)
		}
		if got := res.Net(100, RoundDown); res.Result == Win && got != tc.wantPaid {
			t.Errorf("%s %s on %q: a stake of 100 wins %d, want %d", tc.rs.Name, tc.bet, tc.cards, got, tc.wantPaid)
		}
	}
	if err := rs.CheckExact(Wager{Box: "1", Bet: BetBanker, Stake: 30}); err == nil || !strings.Contains(err.Error(), "0.95:1") ||
		!strings.Contains(err.Error(), "multiples of 20") {
		t.Errorf("Banker 30 under 19:20: %v, want it refused in multiples of 20", err)
	}
	if err := rws.CheckExact(Wager{Box: "1", Bet: BetBanker, Stake: 30}); err != nil {
		t.Errorf("Banker 30 under RWS Baccarat: %v", err)
	}
	if r, _ := rs.Cite("foreign_card"); r != "House Rules 7.1" {
		t.Errorf("its foreign card rule: %q", r)
	}
	if r, _ := rs.Cite(RuleNoMoreBets); r != "RWS Baccarat 5.6" {
		t.Errorf("its No more Bets rule: %q", r)
	}
	if got, want := reg.Names(), append(slices.Clone(Names), "rws-commission"); !slices.Equal(got, want) {
		t.Errorf("the test's registry lists %v, want %v", got, want)
	}
	if _, err := Lookup("rws-commission", Options{}); err == nil {
		t.Error("Standard knows the test's rule set")
	}
	if !slices.Equal(Standard.Names(), []string{"classic", "rws", "nc-tournament", "nc-insurance", "royal"}) {
		t.Errorf("Standard lists %v", Standard.Names())
	}
	js, err := json.Marshal(rs)
	if err != nil || string(js) != `{"name":"rws-commission"}` {
		t.Errorf("written as %s, %v", js, err)
	}
	if r, _ := rws.Cite("foreign_card"); r != "RWS Baccarat 5.5.1" {
		t.Errorf("RWS Baccarat's foreign card rule is now %q", r)
	}
}

// TestRegisterAndUnregister: a book registered is looked up until it is unregistered;
// a name registered twice is refused; a book changed after registering is not changed
// in the registry; registering, looking up and unregistering at once race on nothing.
func TestRegisterAndUnregister(t *testing.T) {
	t.Parallel()
	reg, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	v := variant(t)
	unregister, err := reg.Register(v)
	if err != nil {
		t.Fatal(err)
	}
	v.Citations["foreign_card"] = "changed after"
	if _, err := reg.Register(variant(t)); err == nil || !strings.Contains(err.Error(), "registered already") {
		t.Errorf("the name again: %v", err)
	}
	got, ok := reg.Get("rws-commission")
	if !ok || got.Citations["foreign_card"] != "House Rules 7.1" {
		t.Fatalf("registered: %v, foreign card %q", ok, got.Citations["foreign_card"])
	}
	unregister()
	if _, ok := reg.Get("rws-commission"); ok || len(reg.List()) != 0 {
		t.Errorf("unregistered, still there: %v", reg.Names())
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			b := variant(t)
			b.Name += string(rune('a' + i))
			un, err := reg.Register(b)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := reg.Lookup(b.Name, Options{}); err != nil {
				t.Error(err)
			}
			_ = reg.Names()
			un()
		})
	}
	wg.Wait()
	if n := len(reg.List()); n != 0 {
		t.Errorf("%d books left", n)
	}
}

// TestRulebookRefused: a book with no name, a bet without odds, a default deck count
// not permitted, a required rule not cited, or a restriction whose rule is not cited,
// is refused with what is wrong.
func TestRulebookRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		change func(*Rulebook)
		want   string
	}{
		{"no name", func(b *Rulebook) { b.Name = "" }, "want a word"},
		{"no display name", func(b *Rulebook) { b.Display = "" }, "display name"},
		{"a bet without odds", func(b *Rulebook) { b.Bets = append(b.Bets, BetSuperSixPlus) }, "super_six_plus: no odds"},
		{"a bet twice", func(b *Rulebook) { b.Bets = append(b.Bets, BetTie) }, "listed twice"},
		{"Insurance without its offer", func(b *Rulebook) { b.Bets = append(b.Bets, BetPlayerInsurance) }, "offered without Insurance"},
		{"default decks", func(b *Rulebook) { b.DefaultDecks = 2 }, "the default among them"},
		{"no void rule", func(b *Rulebook) { delete(b.Citations, RuleVoidRound) }, "rule void_round"},
		{"one main bet uncited", func(b *Rulebook) { b.OneMainBet = true }, "rule one_main_bet"},
	} {
		b := variant(t)
		tc.change(&b)
		if _, err := NewRegistry(b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestStandardRulebooks: each standard book has a name for people of its own, a family,
// and its document's rules: the restrictions it has are cited, and NC Insurance cites
// its own numbers throughout.
func TestStandardRulebooks(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, rb := range Standard.List() {
		if seen[rb.Display] || rb.Family == "" {
			t.Errorf("%s: display name %q (twice: %v), family %q", rb.Name, rb.Display, seen[rb.Display], rb.Family)
		}
		seen[rb.Display] = true
		if err := rb.validate(); err != nil {
			t.Error(err)
		}
	}
	nc, _ := Standard.Get("nc-insurance")
	for id, r := range nc.Citations {
		if !strings.HasPrefix(r, "NC Insurance ") {
			t.Errorf("nc-insurance cites %s as %q", id, r)
		}
	}
	for name, want := range map[string]string{"classic": "game project sheet", "nc-tournament": "NC Tournament 3.3"} {
		if rb, _ := Standard.Get(name); rb.Citations[RuleOneMainBet] != want {
			t.Errorf("%s: one main bet %q, want %q", name, rb.Citations[RuleOneMainBet], want)
		}
	}
	for name, want := range map[string]bool{"rws": true, "nc-insurance": true, "classic": false, "nc-tournament": false, "royal": false} {
		if rb, _ := Standard.Get(name); (rb.Citations[RuleDisplayedLimits] != "") != want {
			t.Errorf("%s: displayed limits cited %q", name, rb.Citations[RuleDisplayedLimits])
		}
	}
	if got := Standard.OptionNames(); !slices.Equal(got, []string{"royal"}) {
		t.Errorf("rule sets with options: %v", got)
	}
}
