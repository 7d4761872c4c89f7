package irregularities

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

func TestCatalogueComplete(t *testing.T) {
	if len(Kinds()) != 14 {
		t.Errorf("%d kinds, want 14", len(Kinds()))
	}
	for _, k := range Kinds() {
		e := Lookup(k)
		if e.Kind != k || e.ID == "" || e.Severity == 0 || e.Action == 0 || e.Display == "" {
			t.Errorf("%v: incomplete entry %+v", k, e)
		}
		if (len(e.Choices) > 0) != (e.DecidedBy != 0) {
			t.Errorf("%s: choices %v but decided by %v", k, e.Choices, e.DecidedBy)
		}
		back, err := ParseKind(e.ID)
		if err != nil || back != k {
			t.Errorf("%s parses as %v, %v", e.ID, back, err)
		}
	}
	if _, err := ParseKind("spilled_drink"); err == nil {
		t.Error("unknown kind parsed")
	}
}

func TestRuleByRuleSet(t *testing.T) {
	for _, tc := range []struct {
		k     Kind
		rules string
		want  string
	}{
		{ForeignCard, "rws", "RWS Baccarat 5.5.1"},
		{ForeignCard, "nc-tournament", "NC Tournament 5.1.1"},
		{IncorrectCards, "nc-tournament", "NC Tournament 5.1.2"},
		{InsufficientCards, "nc-tournament", "NC Tournament 5.1.3"},
		{SimultaneousDraw, "nc-tournament", "RWS Baccarat 5.10"}, // the tournament rules are silent
		{SimultaneousDraw, "nc-insurance", "NC Insurance 5.10"},
		{TechnicalInterruption, "classic", "RWS Baccarat 5.4"},
		{InsuranceNotOffered, "nc-insurance", "NC Insurance 5.13"},
		{BadShuffle, "rws", "house procedure"},
	} {
		if got := Rule(tc.k, tc.rules); got != tc.want {
			t.Errorf("Rule(%s, %s) = %q, want %q", tc.k, tc.rules, got, tc.want)
		}
	}
}

func TestRolesAndChoices(t *testing.T) {
	for _, n := range []string{"dealer", "supervisor", "pit_manager", "shift_manager"} {
		r, err := ParseRole(n)
		if err != nil || r.String() != n {
			t.Errorf("role %q: %v %v", n, r, err)
		}
	}
	if Dealer >= Supervisor || Supervisor >= PitManager || PitManager >= ShiftManager {
		t.Error("roles out of order")
	}
	if _, err := ParseRole("croupier"); err == nil || !strings.Contains(err.Error(), "croupier") {
		t.Errorf("bad role: %v", err)
	}
	if _, err := ParseChoice("maybe"); err == nil {
		t.Error("bad choice parsed")
	}
	if !Lookup(SimultaneousDraw).Allows(Swapped) || Lookup(SimultaneousDraw).Allows(Reconstructed) {
		t.Error("simultaneous draw choices")
	}
	// RWS Baccarat 5.10: the order is decided by a Pit Supervisor or above.
	if Lookup(SimultaneousDraw).DecidedBy != Supervisor {
		t.Error("simultaneous draw is not a supervisor's decision")
	}
}

// TestDocumentListsCatalogue: docs/irregularities.md names every kind and its RWS rule.
func TestDocumentListsCatalogue(t *testing.T) {
	doc, err := os.ReadFile("../docs/irregularities.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Kinds() {
		if !strings.Contains(string(doc), "`"+k.String()+"`") {
			t.Errorf("docs/irregularities.md does not list %s", k)
		}
		if r := Rule(k, "rws"); r != "house procedure" && !strings.Contains(string(doc), strings.TrimPrefix(r, "RWS Baccarat ")) {
			t.Errorf("docs/irregularities.md does not cite %s for %s", r, k)
		}
	}
}

func watchAll(w *ShuffleWatch, cards string) string {
	cs, err := baccarat.ParseCards(cards)
	if err != nil {
		panic(err)
	}
	for _, c := range cs {
		if what := w.Add(c); what != "" {
			return what
		}
	}
	return ""
}

func TestShuffleWatchRuns(t *testing.T) {
	for _, tc := range []struct {
		cards, want string
	}{
		{"7S 7H 7D 7C 7S", "5 cards of rank 7 in a row"},
		{"7S 7H 7D 7C 8S", ""},
		{"2S 5S 9S KS AS 3S 4S 8S TS", "9 cards of suit S in a row"},
		{"3H 4D 5C 6S 7H 8D", "6 consecutive ranks in a row, ending 8D"},
		{"KH QD JC TS 9H 8D", "6 consecutive ranks in a row, ending 8D"},
		{"3H 4D 5C 6S 5H 6D", ""},             // turns back: not one run
		{"JH QD KC AS 2H 3D", ""},             // no wrap past the king
		{"2H 3D 4C 5S 6H 2S 3D 4C 5S 6H", ""}, // two runs of five
	} {
		w := ShuffleWatch{Limits: DefaultRunLimits()}
		if got := watchAll(&w, tc.cards); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.cards, got, tc.want)
		}
	}
	// One alarm per shoe.
	w := ShuffleWatch{Limits: DefaultRunLimits()}
	if watchAll(&w, "7S 7H 7D 7C 7S") == "" || watchAll(&w, "8S 8H 8D 8C 8S") != "" {
		t.Error("a second run in the same shoe was reported again")
	}
	// Zero limits turn the checks off.
	w = ShuffleWatch{}
	if got := watchAll(&w, "7S 7H 7D 7C 7S 7H 7D"); got != "" {
		t.Errorf("disabled watch alarmed: %q", got)
	}
}

// TestShuffleWatchFalseAlarms: over 2,000 fairly shuffled 8-deck shoes (fixed seeds) the
// default limits alarm on about 1% of shoes (the estimate is at most 2%); a
// limit set too tight would alarm on most.
func TestShuffleWatchFalseAlarms(t *testing.T) {
	var shoe []baccarat.Card
	for d := 0; d < 8; d++ {
		for s := baccarat.Spades; s <= baccarat.Clubs; s++ {
			for r := baccarat.Ace; r <= baccarat.King; r++ {
				shoe = append(shoe, baccarat.Card{Rank: r, Suit: s})
			}
		}
	}
	rng := rand.New(rand.NewPCG(2026, 11))
	alarms := 0
	const shoes = 2000
	for i := 0; i < shoes; i++ {
		rng.Shuffle(len(shoe), func(a, b int) { shoe[a], shoe[b] = shoe[b], shoe[a] })
		w := ShuffleWatch{Limits: DefaultRunLimits()}
		for _, c := range shoe {
			if w.Add(c) != "" {
				alarms++
				break
			}
		}
	}
	if alarms > shoes/20 {
		t.Errorf("%d alarms in %d fair shoes: the limits are too tight", alarms, shoes)
	}
	t.Logf("%d alarms in %d fair shoes", alarms, shoes)
}
