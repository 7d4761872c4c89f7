package baccarat

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// tableLimits is the limits of the cases below: Player and Banker 100 to 20000, Tie 100
// to 2500, a maximum Differential of 10000, seven boxes.
func tableLimits(excess Excess) *Limits {
	return &Limits{
		Min:             map[Bet]Money{BetBanker: 100, BetPlayer: 100, BetTie: 100},
		Max:             map[Bet]Money{BetBanker: 20000, BetPlayer: 20000, BetTie: 2500},
		MaxDifferential: 10000, Excess: excess, Boxes: 7,
	}
}

func seated(box string, b Bet, s Money) Wager { return Wager{Box: box, Seat: Seated, Bet: b, Stake: s} }
func standing(box string, b Bet, s Money) Wager {
	return Wager{Box: box, Seat: Standing, Bet: b, Stake: s}
}

type want struct {
	v    Verdict
	eff  Money
	rule string // a part of the rule the decision must cite
}

// TestCloseBets: cases worked out by hand from RWS Baccarat 5.1, 5.1.1, 5.1.2, 5.2.1, 3.5
// and 2.1.1. rws pays Banker 1:2 on six, so an exact Banker stake is even: a stake cut
// back or pro-rated stays even (unless the table pays rounded).
func TestCloseBets(t *testing.T) {
	cases := []struct {
		name   string
		rules  string
		excess Excess
		pay    Pay
		ws     []Wager
		want   []want
	}{
		{"within the Differential (RWS Baccarat 5.1)", "rws", ExcessReject, Pay{},
			// Banker 6000 - Player 2000 = 4000, under 10000.
			[]Wager{seated("1", BetBanker, 6000), standing("1", BetPlayer, 2000), standing("1", BetBanker, 4000)},
			[]want{{Accepted, 6000, "accepted"}, {Accepted, 2000, "accepted"}, {Accepted, 4000, "accepted"}}},
		{"over it, excess rejected seated first (RWS Baccarat 5.1)", "rws", ExcessReject, Pay{},
			// 6000 + 3000 + 4000 = 13000 on Banker, nothing on Player: room for 10000. The
			// seated 6000, then the first standing 3000, then 1000 of the second.
			[]Wager{standing("1", BetBanker, 3000), seated("1", BetBanker, 6000), standing("1", BetBanker, 4000)},
			[]want{{Accepted, 3000, ""}, {Accepted, 6000, ""}, {CutBack, 1000, "RWS Baccarat 5.1"}}},
		{"over it, pro rata among the standing players (RWS Baccarat 5.1.1)", "rws", ExcessProRata, Pay{},
			// The seated 6000 first; 4000 left for 3000 + 4000 standing: 3000*4000/7000 =
			// 1714.28 and 4000*4000/7000 = 2285.71, in even units rounded down: 1714 and
			// 2284. Differential 9998.
			[]Wager{standing("1", BetBanker, 3000), seated("1", BetBanker, 6000), standing("1", BetBanker, 4000)},
			[]want{{CutBack, 1714, "RWS Baccarat 5.1.1"}, {Accepted, 6000, ""}, {CutBack, 2284, "RWS Baccarat 5.1.1"}}},
		{"pro rata paid rounded, half up (RWS Baccarat 5.1.1)", "rws", ExcessProRata, Pay{Rounded: true, Rounding: RoundHalfUp},
			// Whole units: 1714.28 -> 1714, 2285.71 -> 2286: Differential 10000.
			[]Wager{standing("1", BetBanker, 3000), seated("1", BetBanker, 6000), standing("1", BetBanker, 4000)},
			[]want{{CutBack, 1714, "5.1.1"}, {Accepted, 6000, ""}, {CutBack, 2286, "5.1.1"}}},
		{"a standing bet under the minimum in an over-limit box (RWS Baccarat 5.1.2)", "rws", ExcessProRata, Pay{},
			// 9000 + 3000 + 50 = 12050 on Banker. The 50 is under the minimum: no pro rata,
			// it plays as placed; 10000 - 50 = 9950 left, the seated 9000 first, 950 for
			// the 3000.
			[]Wager{seated("2", BetBanker, 9000), standing("2", BetBanker, 3000), standing("2", BetBanker, 50)},
			[]want{{Accepted, 9000, ""}, {CutBack, 950, "5.1.1"}, {UnderMinimum, 50, "RWS Baccarat 5.1.2"}}},
		{"the seated player at the maximum with a standing bet under the minimum (RWS Baccarat 5.1, 5.1.2)", "rws", ExcessProRata, Pay{},
			// 10000 + 50 = 10050 on Banker. The seated 10000 keeps its priority and fits
			// the maximum: it plays in full; the 50 is not pro-rated and plays as placed.
			[]Wager{seated("2", BetBanker, 10000), standing("2", BetBanker, 50)},
			[]want{{Accepted, 10000, "accepted"}, {UnderMinimum, 50, "RWS Baccarat 5.1.2"}}},
		{"the seated player over the maximum with a standing bet under the minimum (RWS Baccarat 5.1, 5.1.1, 5.1.2)", "rws", ExcessProRata, Pay{},
			// The seated 12000 takes the 10000 the maximum allows; the 50 plays as placed;
			// nothing is left for the standing 3000.
			[]Wager{seated("2", BetBanker, 12000), standing("2", BetBanker, 50), standing("2", BetBanker, 3000)},
			[]want{{CutBack, 10000, "5.1.1"}, {UnderMinimum, 50, "5.1.2"}, {Refused, 0, "5.1"}}},
		{"the same box rejecting the excess: the 50 comes last and is refused (RWS Baccarat 5.1)", "rws", ExcessReject, Pay{},
			[]Wager{seated("2", BetBanker, 9000), standing("2", BetBanker, 3000), standing("2", BetBanker, 50)},
			[]want{{Accepted, 9000, ""}, {CutBack, 1000, "5.1"}, {Refused, 0, "RWS Baccarat 5.1"}}},
		{"a pro-rated bet that would fall under the minimum (RWS Baccarat 5.1.1)", "rws", ExcessProRata, Pay{},
			// 1000 left after the seated 9000, for 2000 + 150 standing: the 150's share,
			// 150*1000/2150 = 69.7 (68 in even units), is under 100: it is returned, and
			// the 2000 takes the 1000 alone.
			[]Wager{seated("3", BetBanker, 9000), standing("3", BetBanker, 2000), standing("3", BetBanker, 150)},
			[]want{{Accepted, 9000, ""}, {CutBack, 1000, "5.1.1"}, {Refused, 0, "under the banker minimum of 100"}}},
		{"a Player-side excess (RWS Baccarat 5.1)", "rws", ExcessReject, Pay{},
			// Player 8000 + 7000 = 15000 against Banker 2000: room 12000 on Player.
			[]Wager{standing("4", BetPlayer, 7000), seated("4", BetPlayer, 8000), standing("4", BetBanker, 2000)},
			[]want{{CutBack, 4000, "player Bets are rejected"}, {Accepted, 8000, ""}, {Accepted, 2000, ""}}},
		{"a Player-side excess pro rata (RWS Baccarat 5.1.1)", "rws", ExcessProRata, Pay{},
			[]Wager{standing("4", BetPlayer, 7000), seated("4", BetPlayer, 8000), standing("4", BetBanker, 2000), standing("4", BetPlayer, 1000)},
			// 4000 left for 7000 + 1000: 3500 and 500.
			[]want{{CutBack, 3500, "5.1.1"}, {Accepted, 8000, ""}, {Accepted, 2000, ""}, {CutBack, 500, "5.1.1"}}},
		{"the seated player alone over the Differential (RWS Baccarat 5.1)", "rws", ExcessProRata, Pay{},
			[]Wager{standing("5", BetBanker, 1000), seated("5", BetBanker, 12000)},
			[]want{{Refused, 0, "5.1"}, {CutBack, 10000, "5.1.1"}}},
		{"boxes are separate (RWS Baccarat 1.6)", "rws", ExcessReject, Pay{},
			[]Wager{seated("1", BetBanker, 10000), seated("2", BetBanker, 10000)},
			[]want{{Accepted, 10000, ""}, {Accepted, 10000, ""}}},
		{"side bets are no part of the Differential (RWS Baccarat 1.6)", "rws", ExcessReject, Pay{},
			[]Wager{seated("1", BetBanker, 10000), seated("1", BetTie, 2000), seated("1", BetBankerPair, 5000)},
			[]want{{Accepted, 10000, ""}, {Accepted, 2000, ""}, {Accepted, 5000, ""}}},
		{"under the minimum, unnoticed, plays as placed (RWS Baccarat 5.2.1)", "rws", ExcessReject, Pay{},
			[]Wager{seated("6", BetTie, 50), seated("6", BetPlayer, 99)},
			[]want{{UnderMinimum, 50, "RWS Baccarat 5.2.1"}, {UnderMinimum, 99, "5.2.1"}}},
		{"a box's Bets on one bet held to its maximum, seated first (RWS Baccarat 3.5)", "rws", ExcessReject, Pay{},
			[]Wager{standing("7", BetTie, 1000), seated("7", BetTie, 2000), standing("7", BetTie, 600)},
			[]want{{CutBack, 500, "RWS Baccarat 3.5"}, {Accepted, 2000, ""}, {Refused, 0, "3.5"}}},
		{"a box the layout does not have (RWS Baccarat 2.1.1)", "rws", ExcessReject, Pay{},
			[]Wager{seated("8", BetBanker, 100), seated("01", BetBanker, 100), seated("7", BetBanker, 100)},
			[]want{{Refused, 0, "2.1.1"}, {Refused, 0, "2.1.1"}, {Accepted, 100, ""}}},
		{"an inexact stake is still refused (RWS Baccarat 4.1.1)", "rws", ExcessReject, Pay{},
			[]Wager{seated("1", BetBanker, 101)},
			[]want{{Refused, 0, "multiples of 2"}}},
		{"commission Banker cut back in twenties (Royal Baccarat, 0.95:1)", "royal", ExcessReject, Pay{},
			// 20 left after the seated 9980: a whole step of 20, but under the minimum of
			// 100, so the standing 1000 is refused.
			[]Wager{seated("2", BetBanker, 9980), standing("2", BetBanker, 1000), standing("3", BetBanker, 10990)},
			// Box 3: 10990 is cut back to 10000, but 10990 pays 0.95:1 inexactly: refused.
			[]want{{Accepted, 9980, ""}, {Refused, 0, "the 20 left would be under the banker minimum of 100"}, {Refused, 0, "multiples of 20"}}},
		{"commission Banker: a Player Bet under the minimum counts (Royal Baccarat, 0.95:1)", "royal", ExcessReject, Pay{},
			[]Wager{seated("3", BetPlayer, 30), standing("3", BetBanker, 10020)},
			// Player 30 (under the minimum) puts room at 10030 on Banker: 10020 fits.
			[]want{{UnderMinimum, 30, "5.2.1"}, {Accepted, 10020, ""}}},
		{"commission Banker: room that is not a whole twenty (Royal Baccarat, 0.95:1)", "royal", ExcessReject, Pay{},
			[]Wager{seated("3", BetPlayer, 30), standing("3", BetBanker, 10100)},
			// room 10030: 10020 in whole twenties.
			[]want{{UnderMinimum, 30, "5.2.1"}, {CutBack, 10020, "5.1"}}},
		{"NC Insurance cites its own rules (NC Insurance 5.1)", "nc-insurance", ExcessReject, Pay{},
			[]Wager{seated("1", BetPlayer, 12000)},
			[]want{{CutBack, 10000, "NC Insurance 5.1"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := MustLookup(tc.rules, Options{})
			lim := tableLimits(tc.excess)
			for _, m := range []map[Bet]Money{lim.Min, lim.Max} {
				for b := range m {
					if !rs.Offers(b) {
						delete(m, b)
					}
				}
			}
			if errs := lim.Check(rs); len(errs) > 0 {
				t.Fatalf("limits: %v", errs)
			}
			ds := rs.CloseBets(tc.ws, lim, tc.pay)
			if len(ds) != len(tc.want) {
				t.Fatalf("%d decisions, want %d", len(ds), len(tc.want))
			}
			for i, w := range tc.want {
				d := ds[i]
				if d.Verdict != w.v || d.Effective != w.eff || !strings.Contains(d.Rule, w.rule) || !strings.HasPrefix(d.Rule, w.v.String()) {
					t.Errorf("wager %d %+v: %s %d %q, want %s %d citing %q", i+1, tc.ws[i], d.Verdict, d.Effective, d.Rule, w.v, w.eff, w.rule)
				}
			}
		})
	}
}

// TestCloseBetsNoLimits: with no limits the rule set's checks alone decide.
func TestCloseBetsNoLimits(t *testing.T) {
	rs := MustLookup("nc-tournament", Options{})
	ds := rs.CloseBets([]Wager{seated("1", BetBanker, 1_000_000), seated("1", BetPlayer, 100), seated("2", BetPlayer, 100)}, nil, Pay{})
	if ds[0].Verdict != Refused || ds[1].Verdict != Refused || !strings.Contains(ds[0].Rule, "NC Tournament 3.3") {
		t.Errorf("both main bets in box 1: %+v", ds[:2])
	}
	if ds[2] != (Decision{Verdict: Accepted, Effective: 100, Rule: "accepted"}) {
		t.Errorf("box 2: %+v", ds[2])
	}
}

func TestLimitsCheck(t *testing.T) {
	rs := MustLookup("rws", Options{})
	l := &Limits{
		Min:             map[Bet]Money{BetBanker: 30000, BetPlayer: 100, BetSuperSixPlus: 5, BetTie: -1},
		Max:             map[Bet]Money{BetBanker: 20000},
		MaxDifferential: 10000, Boxes: 100,
	}
	var got []string
	for _, e := range l.Check(rs) {
		got = append(got, e.Error())
	}
	joined := strings.Join(got, "\n")
	for _, w := range []string{
		"min.tie: -1: want a positive amount",
		"min.super_six_plus: rule set rws does not offer super_six_plus",
		"min.banker: 30000 is above the maximum 20000 of banker",
		"max_differential: 10000 is below the banker minimum of 30000",
		"boxes: 100: want 1 to 99",
	} {
		if !strings.Contains(joined, w) {
			t.Errorf("no %q in\n%s", w, joined)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d faults, want 5:\n%s", len(got), joined)
	}
	if errs := tableLimits(ExcessProRata).Check(rs); errs != nil {
		t.Errorf("good limits: %v", errs)
	}
}

// TestCloseBetsProperty: for random layouts under valid limits, in every box the Bets
// that play keep the Differential within the maximum (RWS Baccarat 5.1, 5.1.1; only Bets
// placed under the minimum, which play as placed under 5.1.2, may take it over, by no
// more than their own stakes), no
// effective stake exceeds its stake, none that was cut back is under its minimum
// (5.1.1), and the Differential's side never changes.
func TestCloseBetsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rs := MustLookup(rapid.SampledFrom([]string{"rws", "classic", "nc-insurance", "royal"}).Draw(t, "rules"), Options{})
		minP := Money(rapid.IntRange(1, 500).Draw(t, "min-player"))
		minB := Money(rapid.IntRange(1, 500).Draw(t, "min-banker"))
		l := &Limits{
			Min:             map[Bet]Money{BetPlayer: minP, BetBanker: minB},
			MaxDifferential: Money(rapid.IntRange(500, 20000).Draw(t, "max-differential")),
			Excess:          Excess(rapid.IntRange(0, 1).Draw(t, "excess")),
		}
		if rapid.Bool().Draw(t, "with-max") {
			l.Max = map[Bet]Money{BetBanker: Money(rapid.IntRange(500, 30000).Draw(t, "max-banker"))}
		}
		if errs := l.Check(rs); errs != nil {
			t.Fatalf("limits: %v", errs)
		}
		pay := Pay{Rounded: rapid.Bool().Draw(t, "pay-rounded"), Rounding: Rounding(rapid.IntRange(0, 2).Draw(t, "rounding"))}
		n := rapid.IntRange(0, 12).Draw(t, "wagers")
		var ws []Wager
		for range n {
			ws = append(ws, Wager{
				Box:   rapid.SampledFrom([]string{"1", "2", "3"}).Draw(t, "box"),
				Seat:  Seat(rapid.IntRange(0, 1).Draw(t, "seat")),
				Bet:   rapid.SampledFrom([]Bet{BetPlayer, BetBanker, BetBanker}).Draw(t, "bet"),
				Stake: Money(rapid.IntRange(1, 400).Draw(t, "stake") * 20),
			})
		}
		ds := rs.CloseBets(ws, l, pay)
		ruled := rs.CheckWagers(ws) // refused by the rule set, not the limits
		type sums struct{ banker, player, bankerUnder, playerUnder, placedB, placedP Money }
		boxes := map[string]*sums{}
		for i, w := range ws {
			d := ds[i]
			if d.Effective < 0 || d.Effective > w.Stake {
				t.Fatalf("wager %d %+v: effective %d", i, w, d.Effective)
			}
			if (d.Effective == 0) != (d.Verdict == Refused) {
				t.Fatalf("wager %d %+v: %+v", i, w, d)
			}
			if d.Verdict == CutBack && d.Effective < l.Min[w.Bet] {
				t.Fatalf("wager %d %+v cut back under its minimum: %+v", i, w, d)
			}
			if d.Verdict == UnderMinimum && w.Stake >= l.Min[w.Bet] {
				t.Fatalf("wager %d %+v is not under the minimum: %+v", i, w, d)
			}
			if !pay.Rounded && d.Effective > 0 {
				if err := rs.CheckExact(Wager{Bet: w.Bet, Stake: d.Effective}); err != nil {
					t.Fatalf("wager %d: effective stake %d pays inexactly: %v", i, d.Effective, err)
				}
			}
			s := boxes[w.Box]
			if s == nil {
				s = &sums{}
				boxes[w.Box] = s
			}
			under := d.Verdict == UnderMinimum
			placed := w.Stake
			if ruled[i] != nil {
				placed = 0
			}
			if w.Bet == BetBanker {
				s.banker += d.Effective
				s.placedB += placed
				if under {
					s.bankerUnder += d.Effective
				}
			} else {
				s.player += d.Effective
				s.placedP += placed
				if under {
					s.playerUnder += d.Effective
				}
			}
		}
		for box, s := range boxes {
			diff, allowed := s.banker-s.player, l.MaxDifferential
			if l.Excess == ExcessProRata {
				// The Bets under the minimum of the heavier side play over what the
				// others take (5.1.2), and nothing else may.
				allowed += max(s.bankerUnder*sign(diff), s.playerUnder*sign(-diff))
			}
			if diff > allowed || -diff > allowed {
				t.Fatalf("box %s: banker %d player %d: Differential %d over %d", box, s.banker, s.player, diff, allowed)
			}
			if l.Max == nil && (s.placedB-s.placedP)*diff < 0 { // a maximum may take a side under the other
				t.Fatalf("box %s: the Differential changed side: placed %d/%d, plays %d/%d", box, s.placedB, s.placedP, s.banker, s.player)
			}
		}
	})
}

// sign is 1 for a positive amount, else 0.
func sign(m Money) Money {
	if m > 0 {
		return 1
	}
	return 0
}

func TestSeatJSON(t *testing.T) {
	var s Seat
	if err := s.UnmarshalText([]byte("standing")); err != nil || s != Standing {
		t.Fatalf("standing: %v %v", s, err)
	}
	if err := s.UnmarshalText([]byte("sitting")); err == nil {
		t.Fatal("sitting: no error")
	}
}

// TestOneMainBetPerPlayer: NC Tournament 3.3 holds a player to one of Player and Banker;
// a standing player's bet in the box is another player's.
func TestOneMainBetPerPlayer(t *testing.T) {
	rs := MustLookup("nc-tournament", Options{})
	ds := rs.CloseBets([]Wager{seated("1", BetBanker, 500), standing("1", BetPlayer, 300), seated("2", BetBanker, 100), seated("2", BetPlayer, 100)}, nil, Pay{})
	if ds[0].Verdict != Accepted || ds[1].Verdict != Accepted {
		t.Errorf("seated Banker and standing Player in box 1: %+v", ds[:2])
	}
	if ds[2].Verdict != Refused || ds[3].Verdict != Refused || !strings.Contains(ds[2].Rule, "NC Tournament 3.3") {
		t.Errorf("the seated player of box 2 on both: %+v", ds[2:])
	}
}
