package messages

import (
	"encoding"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// enumerate lists the values of an engine enumeration from 1 up, while its String names
// one: what the engine has, with no list to keep apart.
func enumerate[T ~uint8](named func(T) bool) []T {
	var out []T
	for v := T(1); v != 0 && named(v); v++ {
		out = append(out, v)
	}
	return out
}

// sameWords checks that the engine's values, as wire gives their words, are the wire's
// words, in order, and that read gives each value back from its word.
func sameWords[T comparable, W ~string | ~uint8](t *testing.T, what string, values []T, words []W, wire func(T) W, read func(W) (T, error)) {
	t.Helper()
	if len(values) == 0 {
		t.Fatalf("%s: the engine has none", what)
	}
	var got []W
	for _, v := range values {
		w := wire(v)
		got = append(got, w)
		back, err := read(w)
		if err != nil || back != v {
			t.Errorf("%s %v: word %v reads back as %v, %v", what, v, w, back, err)
		}
	}
	if !slices.Equal(got, words) {
		t.Errorf("%s: the engine's words are %v, api's %v: add the word to api (words.go), or the value to the engine", what, got, words)
	}
}

// TestWireWords: every value of the engine's enumerations the messages and commands
// carry has its word in api, the same word the engine writes, and every word of api its
// value: a role, kind, decision, option, bet, seat or slot added on one side alone
// fails here.
func TestWireWords(t *testing.T) {
	sameWords(t, "role", enumerate(func(r irregularities.Role) bool { return r.String() != "?" }), api.Roles, WireRole,
		func(r api.Role) (irregularities.Role, error) { return RoleOf(r), nil })
	sameWords(t, "irregularity kind", irregularities.Kinds(), api.IrregularityKinds, WireKind, KindOf)
	sameWords(t, "decision", enumerate(func(c irregularities.Choice) bool { return c.String() != "?" }), api.Choices, WireChoice, ChoiceOf)
	sameWords(t, "option", enumerate(func(o irregularities.Option) bool { return o.String() != "?" }), api.BoxOptions, WireOption, OptionOf)
	sameWords(t, "bet", enumerate(func(b baccarat.Bet) bool { return !strings.HasPrefix(b.String(), "bet(") }), api.Bets, WireBet, BetOf)
	sameWords(t, "slot", []baccarat.Slot{baccarat.P1, baccarat.B1, baccarat.P2, baccarat.B2, baccarat.P3, baccarat.B3}, api.Slots, WireSlot,
		func(s api.Slot) (baccarat.Slot, error) {
			var v baccarat.Slot
			return v, v.UnmarshalText([]byte(s))
		})
	sameWords(t, "seat", []baccarat.Seat{baccarat.Seated, baccarat.Standing}, api.Seats, WireSeat,
		func(s api.Seat) (baccarat.Seat, error) {
			var v baccarat.Seat
			return v, v.UnmarshalText([]byte(s))
		})
	sameWords(t, "severity", enumerate(func(s irregularities.Severity) bool { return s.String() != "?" }), api.Severities, WireSeverity,
		func(s api.Severity) (irregularities.Severity, error) {
			var v irregularities.Severity
			return v, v.UnmarshalText([]byte(s))
		})
	sameWords(t, "action", enumerate(func(a irregularities.Action) bool { return a.String() != "?" }), api.Actions, WireAction,
		func(a api.Action) (irregularities.Action, error) {
			var v irregularities.Action
			return v, v.UnmarshalText([]byte(a))
		})
	sameWords(t, "winner", []baccarat.Winner{baccarat.NoWinner, baccarat.PlayerWins, baccarat.BankerWins, baccarat.Tie}, api.Winners, WireWinner,
		func(w api.Winner) (baccarat.Winner, error) {
			var v baccarat.Winner
			return v, v.UnmarshalText([]byte(w))
		})
	sameWords(t, "bet result", []baccarat.Result{baccarat.Undecided, baccarat.Lose, baccarat.Win, baccarat.Push}, api.Resolutions,
		func(r baccarat.Result) api.Resolution { return api.Resolution(r.String()) },
		func(r api.Resolution) (baccarat.Result, error) {
			var v baccarat.Result
			return v, v.UnmarshalText([]byte(r))
		})
	// Every word of api is read by its own type too.
	readsAll(t, api.IrregularityKinds)
	readsAll(t, api.Choices)
	readsAll(t, api.BoxOptions)
	readsAll(t, api.Bets)
	readsAll(t, api.Slots)
	readsAll(t, api.Seats)
	readsAll(t, api.Severities)
	readsAll(t, api.Actions)
	readsAll(t, api.Winners)
	readsAll(t, api.Resolutions)
}

// readsAll checks that W's UnmarshalText reads each of words, and refuses a word of
// none.
func readsAll[W ~string, P interface {
	*W
	encoding.TextUnmarshaler
}](t *testing.T, words []W) {
	t.Helper()
	for _, w := range words {
		var v W
		if err := P(&v).UnmarshalText([]byte(w)); err != nil || v != w {
			t.Errorf("%T %q: read as %q, %v", v, w, v, err)
		}
	}
	var v W
	if P(&v).UnmarshalText([]byte("no such word")) == nil {
		t.Errorf("%T: a word of none is read", v)
	}
}

// TestWireCards: the 52 cards have their codes, each read back as its card, and api
// reads every notation of a card as the engine does, with the engine's words for one it
// refuses.
func TestWireCards(t *testing.T) {
	for r := baccarat.Ace; r <= baccarat.King; r++ {
		for s := baccarat.Spades; s <= baccarat.Clubs; s++ {
			c := baccarat.NewCard(r, s)
			code := WireCard(c)
			if back, err := CardOf(code); err != nil || back != c || !code.Valid() || string(code) != c.String() {
				t.Errorf("card %s: code %q, read back as %s, %v", c, code, back, err)
			}
		}
	}
	if WireCard(baccarat.Card{}) != "" {
		t.Error("no card has a code")
	}
	for _, s := range []string{"AS", "as", "TH", "10H", "10h", "kd", "9c", "", "A", "1H", "11H", "AX", "ZS", "10", "AS ", "♠A", "TTH"} {
		want, werr := baccarat.ParseCard(s)
		got, gerr := api.ParseCardCode(s)
		switch {
		case (werr == nil) != (gerr == nil):
			t.Errorf("%q: the engine says %v, api %v", s, werr, gerr)
		case werr != nil && werr.Error() != gerr.Error():
			t.Errorf("%q: the engine refuses it with %q, api with %q", s, werr, gerr)
		case werr == nil && string(got) != want.String():
			t.Errorf("%q: the engine reads %s, api %s", s, want, got)
		}
	}
}

// TestWireRefusals: api refuses a word with the engine's own words, as a command's
// reply says them.
func TestWireRefusals(t *testing.T) {
	for _, tc := range []struct {
		what        string
		engine, api func(string) error
	}{
		{"role", func(s string) error { _, err := irregularities.ParseRole(s); return err }, func(s string) error { _, err := api.ParseRole(s); return err }},
		{"kind", func(s string) error { _, err := irregularities.ParseKind(s); return err }, func(s string) error { _, err := api.ParseIrregularityKind(s); return err }},
		{"decision", func(s string) error { _, err := irregularities.ParseChoice(s); return err }, func(s string) error { _, err := api.ParseChoice(s); return err }},
		{"option", func(s string) error { _, err := irregularities.ParseOption(s); return err }, func(s string) error { _, err := api.ParseBoxOption(s); return err }},
		{"bet", func(s string) error { _, err := baccarat.ParseBet(s); return err }, func(s string) error { _, err := api.ParseBet(s); return err }},
		{"seat", func(s string) error { var v baccarat.Seat; return v.UnmarshalText([]byte(s)) }, func(s string) error { var v api.Seat; return v.UnmarshalText([]byte(s)) }},
	} {
		for _, s := range []string{"", "none", "maybe", "?"} {
			e, a := tc.engine(s), tc.api(s)
			if e == nil || a == nil || e.Error() != a.Error() {
				t.Errorf("%s %q: the engine says %v, api %v", tc.what, s, e, a)
			}
		}
	}
}

// TestWireJSON: the parts of the messages whose type api has of its own write the
// engine's JSON, byte for byte: the status's limits, an Insurance offer of every row of
// the pay table, a round's outcome, a wager.
func TestWireJSON(t *testing.T) {
	same := func(what string, engine, wire any) {
		t.Helper()
		e, eerr := json.Marshal(engine)
		w, werr := json.Marshal(wire)
		if eerr != nil || werr != nil || string(e) != string(w) {
			t.Errorf("%s: the engine writes %s (%v), api %s (%v)", what, e, eerr, w, werr)
		}
	}
	l := &baccarat.Limits{Min: map[baccarat.Bet]baccarat.Money{baccarat.BetBanker: 10, baccarat.BetPlayer: 10, baccarat.BetTie: 5},
		Max: map[baccarat.Bet]baccarat.Money{baccarat.BetBanker: 5000, baccarat.BetPlayerPair: 100}, MaxDifferential: 2000,
		Excess: baccarat.ExcessProRata, Boxes: 7}
	same("limits", l, WireLimits(l))
	same("no limits", &baccarat.Limits{}, WireLimits(&baccarat.Limits{}))
	for row := range baccarat.InsuranceTable {
		o := baccarat.InsuranceOffer{Row: row}
		same("an offer", o, WireOffer(o))
		if back, err := OfferOf(WireOffer(o)); err != nil || back != o {
			t.Errorf("offer of row %d read back as %+v, %v", row, back, err)
		}
	}
	for _, o := range []baccarat.Outcome{{Winner: baccarat.BankerWins, PlayerPoints: 3, BankerPoints: 7, PlayerCards: 3, BankerCards: 2, BankerPair: true},
		{Winner: baccarat.Tie, PlayerPoints: 9, BankerPoints: 9, PlayerCards: 2, BankerCards: 2, Suits: baccarat.RoyalFlush}} {
		same("an outcome", o, WireOutcome(o))
	}
	for _, w := range []baccarat.Wager{{Box: "1", Bet: baccarat.BetBanker, Stake: 100}, {Box: "2", Seat: baccarat.Standing, Bet: baccarat.TieWinsOn(4), Stake: 5}} {
		same("a wager", w, WireWager(w))
		if back, err := WagerOf(WireWager(w)); err != nil || back != w {
			t.Errorf("wager %+v read back as %+v, %v", w, back, err)
		}
	}
	same("the cards", []baccarat.Card{baccarat.MustParseCard("TH"), baccarat.MustParseCard("9c")},
		WireCards([]baccarat.Card{baccarat.MustParseCard("TH"), baccarat.MustParseCard("9c")}))
}
