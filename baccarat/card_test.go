package baccarat

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseCard(t *testing.T) {
	for in, want := range map[string]Card{
		"AS": {Ace, Spades}, "as": {Ace, Spades}, "TH": {Ten, Hearts}, "10H": {Ten, Hearts},
		"10h": {Ten, Hearts}, "th": {Ten, Hearts}, "KD": {King, Diamonds}, "2c": {Two, Clubs},
		"9D": {Nine, Diamonds}, "jS": {Jack, Spades}, "Qh": {Queen, Hearts},
	} {
		got, err := ParseCard(in)
		if err != nil || got != want {
			t.Errorf("ParseCard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, reason := range map[string]string{
		"": "want a rank", "A": "want a rank", "1S": "unknown rank", "11S": "unknown rank",
		"AX": "unknown suit", "ZS": "unknown rank", "10": "unknown rank", "AS ": "unknown rank", "0S": "unknown rank",
		"100S": "want a rank",
	} {
		_, err := ParseCard(in)
		if err == nil || !strings.Contains(err.Error(), reason) || !strings.Contains(err.Error(), `"`+in+`"`) {
			t.Errorf("ParseCard(%q) error %v: want one naming the input and %q", in, err, reason)
		}
	}
	if _, err := ParseCards("AS KH 1Q"); err == nil || !strings.Contains(err.Error(), "card 3") {
		t.Errorf("ParseCards error %v: want it to name card 3", err)
	}
}

func TestCardText(t *testing.T) {
	n := 0
	for s := Spades; s <= Clubs; s++ {
		for r := Ace; r <= King; r++ {
			c := Card{r, s}
			back, err := ParseCard(c.String())
			if err != nil || back != c {
				t.Errorf("%v prints %q which parses as %v, %v", c, c.String(), back, err)
			}
			if c.Index() != n {
				t.Errorf("%s has index %d, want %d", c, c.Index(), n)
			}
			n++
		}
	}
	b, err := json.Marshal([]Card{{Ten, Hearts}, {Ace, Spades}})
	if err != nil || string(b) != `["TH","AS"]` {
		t.Errorf("JSON %s, %v", b, err)
	}
	var cs []Card
	if err := json.Unmarshal([]byte(`["kd","10c"]`), &cs); err != nil || cs[0] != (Card{King, Diamonds}) || cs[1] != (Card{Ten, Clubs}) {
		t.Errorf("unmarshal: %v %v", cs, err)
	}
	if err := json.Unmarshal([]byte(`["XX"]`), &cs); err == nil || !strings.Contains(err.Error(), `"XX"`) {
		t.Errorf("unmarshal of XX: %v", err)
	}
}

// FuzzParseCard: any input either parses to a valid card that prints and parses back to
// itself, or fails with an error that names the input.
func FuzzParseCard(f *testing.F) {
	for _, s := range []string{"AS", "10h", "TH", "kd", "", "1", "ZZ", "10", "AS\n", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCard(s)
		if err != nil {
			var pe *ParseError
			if !strings.Contains(err.Error(), "card ") || !asParseError(err, &pe) || pe.Input != s {
				t.Fatalf("ParseCard(%q): error %v does not name the input", s, err)
			}
			return
		}
		if !c.Valid() {
			t.Fatalf("ParseCard(%q) = invalid %v", s, c)
		}
		back, err := ParseCard(c.String())
		if err != nil || back != c {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, c, c.String(), back, err)
		}
		if !strings.EqualFold(s, c.String()) && !strings.EqualFold(s, "10"+c.Suit.String()) {
			t.Fatalf("ParseCard(%q) = %v: accepted a notation that is not the card's", s, c)
		}
	})
}

func asParseError(err error, target **ParseError) bool {
	pe, ok := err.(*ParseError)
	if ok {
		*target = pe
	}
	return ok
}

func TestBurnCount(t *testing.T) {
	for card, want := range map[string]int{"AS": 1, "2H": 2, "9D": 9, "TC": 10, "JS": 10, "QH": 10, "KD": 10} {
		if got := BurnCount(MustParseCard(card)); got != want {
			t.Errorf("BurnCount(%s) = %d, want %d", card, got, want)
		}
	}
}
