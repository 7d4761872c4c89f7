package irregularities

import (
	"fmt"
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

// refWatch is the bad-shuffle watch written plainly: each run counted from the card
// before, each limit read as it is set. TestShuffleWatchIsPlain holds ShuffleWatch to it.
type refWatch struct {
	limits                           RunLimits
	last                             baccarat.Card
	rankRun, suitRun, seqRun, seqDir int
	reported                         bool
}

func (w *refWatch) add(c baccarat.Card) string {
	if w.reported {
		return ""
	}
	if !w.last.Valid() {
		w.rankRun, w.suitRun, w.seqRun, w.seqDir = 1, 1, 1, 0
	} else {
		step := int(c.Rank) - int(w.last.Rank)
		if step == 0 {
			w.rankRun++
		} else {
			w.rankRun = 1
		}
		if c.Suit == w.last.Suit {
			w.suitRun++
		} else {
			w.suitRun = 1
		}
		switch {
		case (step == 1 || step == -1) && step == w.seqDir:
			w.seqRun++
		case step == 1 || step == -1:
			w.seqRun, w.seqDir = 2, step
		default:
			w.seqRun, w.seqDir = 1, 0
		}
	}
	w.last = c
	l := w.limits
	var what string
	switch {
	case l.SameRank > 0 && w.rankRun >= l.SameRank:
		what = fmt.Sprintf("%d cards of rank %s in a row", w.rankRun, c.Rank)
	case l.SameSuit > 0 && w.suitRun >= l.SameSuit:
		what = fmt.Sprintf("%d cards of suit %s in a row", w.suitRun, c.Suit)
	case l.Sequence > 0 && w.seqRun >= l.Sequence:
		what = fmt.Sprintf("%d consecutive ranks in a row, ending %s", w.seqRun, c)
	default:
		return ""
	}
	w.reported = true
	return what
}

// TestShuffleWatchIsPlain: the watch, which keeps its runs and alarm lengths, reports what
// the plain count reports, card for card, over runs of every kind and any limits.
func TestShuffleWatchIsPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 6))
	alarms := 0
	for shoe := 0; shoe < 3000; shoe++ {
		l := RunLimits{SameRank: rng.IntN(7), SameSuit: rng.IntN(11), Sequence: rng.IntN(8)}
		w, ref := ShuffleWatch{Limits: l}, refWatch{limits: l}
		c := baccarat.Card{Rank: baccarat.Rank(1 + rng.IntN(13)), Suit: baccarat.Suit(1 + rng.IntN(4))}
		for i := 0; i < 120; i++ {
			got, want := w.Add(c), ref.add(c)
			if got != want {
				t.Fatalf("shoe %d, limits %+v, card %d %s: %q, want %q", shoe, l, i, c, got, want)
			}
			if got != "" {
				alarms++
			}
			// The next card: often one that goes on a run (same rank, same suit, one rank
			// up or down), else any.
			switch r := rng.IntN(8); {
			case r == 0:
				c.Suit = baccarat.Suit(1 + rng.IntN(4))
			case r == 1:
				c.Rank = baccarat.Rank(1 + rng.IntN(13))
			case r < 5 && c.Rank > baccarat.Ace && c.Rank < baccarat.King:
				c.Rank = baccarat.Rank(int(c.Rank) + []int{-1, 1}[rng.IntN(2)])
				if rng.IntN(3) > 0 {
					c.Suit = baccarat.Suit(1 + rng.IntN(4))
				}
			default:
				c = baccarat.Card{Rank: baccarat.Rank(1 + rng.IntN(13)), Suit: baccarat.Suit(1 + rng.IntN(4))}
			}
		}
	}
	if alarms < 1000 {
		t.Errorf("only %d alarms in 3000 shoes: the runs drawn are too short to test the watch", alarms)
	}
}
