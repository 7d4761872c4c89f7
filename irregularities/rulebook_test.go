package irregularities

import (
	"slices"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

// TestCitationsOfARuleSetAddedInATest: a rule book a test registers in a registry of its
// own cites its own rule for a card not of the set, and RWS Baccarat's for the kinds it
// takes from its base; its irregularities are the kinds it cites. The standard rule sets
// do not see it: by name, the catalogue does not know it.
func TestCitationsOfARuleSetAddedInATest(t *testing.T) {
	t.Parallel()
	rws, _ := baccarat.Standard.Get("rws")
	v := rws.Clone()
	v.Name, v.Display = "rws-house", "RWS Baccarat, house rules"
	v.Citations["foreign_card"] = "House Rules 7.1"
	delete(v.Citations, "late_error")
	reg, err := baccarat.Standard.With(v)
	if err != nil {
		t.Fatal(err)
	}
	rb, ok := reg.Get("rws-house")
	if !ok {
		t.Fatal("not registered")
	}
	for _, tc := range []struct {
		k    Kind
		want string
	}{
		{ForeignCard, "House Rules 7.1"},
		{WrongHand, "RWS Baccarat 5.8"},
		{LateError, "RWS Baccarat 5.11"}, // not its own: the first standard book's
		{InsuranceNotOffered, "NC Insurance 5.13"},
		{BadShuffle, "house procedure"},
	} {
		if got := Cite(tc.k, rb); got != tc.want {
			t.Errorf("Cite(%s, rws-house) = %q, want %q", tc.k, got, tc.want)
		}
	}
	kinds := Of(rb)
	if !slices.Contains(kinds, ForeignCard) || slices.Contains(kinds, LateError) || slices.Contains(kinds, InsuranceNotOffered) ||
		len(kinds) != len(Of(rws))-1 {
		t.Errorf("its irregularities: %v; RWS Baccarat's %v", kinds, Of(rws))
	}
	if got := Rule(ForeignCard, "rws-house"); got != "RWS Baccarat 5.5.1" {
		t.Errorf("by name, outside its registry: %q", got)
	}
	if got := Rule(ForeignCard, "rws"); got != "RWS Baccarat 5.5.1" {
		t.Errorf("RWS Baccarat's rule is now %q", got)
	}
}

// TestRulebooksCiteKnownRules: every citation of every standard rule book is keyed by a
// kind of the catalogue or one of baccarat's rule ids, so no rule is cited under a
// misspelt id.
func TestRulebooksCiteKnownRules(t *testing.T) {
	t.Parallel()
	for _, rb := range baccarat.Standard.List() {
		for id := range rb.Citations {
			if _, err := ParseKind(string(id)); err != nil && !slices.Contains(baccarat.RuleIDs, id) {
				t.Errorf("%s cites %q: no kind, no rule id", rb.Name, id)
			}
		}
	}
}
