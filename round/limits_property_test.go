package round

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"pgregory.net/rapid"
)

// TestPropertyLimitsMoneyConserved: for random layouts under random limits and random
// rounds, every wager placed is settled once; each box's Bets that played keep the
// Differential within its maximum (RWS Baccarat 5.1, 5.1.1; Bets placed under the
// minimum play as placed, 5.1.2, and may take it over by their own stakes); no
// effective stake exceeds its stake; and money is conserved: what the players get back
// plus what the house keeps equals what was staked plus what was paid.
func TestPropertyLimitsMoneyConserved(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rs := baccarat.MustLookup(rapid.SampledFrom([]string{"rws", "nc-insurance", "royal", "nc-tournament", "classic"}).Draw(t, "rules"), baccarat.Options{})
		cfg := DefaultConfig(rs)
		cfg.Burn = BurnNone
		cfg.PayRounded = rapid.Bool().Draw(t, "pay-rounded")
		cfg.Rounding = baccarat.Rounding(rapid.IntRange(0, 2).Draw(t, "rounding"))
		minimum := baccarat.Money(rapid.IntRange(1, 300).Draw(t, "min"))
		cfg.Limits = &baccarat.Limits{
			Min:             map[baccarat.Bet]baccarat.Money{baccarat.BetPlayer: minimum, baccarat.BetBanker: minimum},
			MaxDifferential: baccarat.Money(rapid.IntRange(int(minimum), 5000).Draw(t, "max-differential")),
			Excess:          baccarat.Excess(rapid.IntRange(0, 1).Draw(t, "excess")),
		}
		ctl, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var ws []baccarat.Wager
		for range rapid.IntRange(0, 10).Draw(t, "wagers") {
			ws = append(ws, baccarat.Wager{
				Box:   rapid.SampledFrom([]string{"1", "2"}).Draw(t, "box"),
				Seat:  baccarat.Seat(rapid.IntRange(0, 1).Draw(t, "seat")),
				Bet:   rapid.SampledFrom(rs.Bets[:3]).Draw(t, "bet"),
				Stake: baccarat.Money(rapid.IntRange(1, 3000).Draw(t, "stake")),
			})
		}
		var cards []baccarat.Card
		for range 6 {
			cards = append(cards, baccarat.Card{Rank: baccarat.Rank(rapid.IntRange(1, 13).Draw(t, "rank")),
				Suit: baccarat.Suit(rapid.IntRange(1, 4).Draw(t, "suit"))})
		}
		ctl.Step(Event{Kind: NewShoe, Set: "P", Decks: 8})
		ctl.Step(Event{Kind: BetsClosed, Wagers: ws})
		coup, used := baccarat.CoupOf(cards...)
		for i, c := range cards[:used] {
			ctl.Step(Event{Kind: CardDrawn, Card: c, Seq: uint64(i + 1)})
		}
		var ss []Settlement
		for _, e := range ctl.Step(Event{Kind: ConfirmResult}) {
			if e.Kind == RoundSettled {
				ss = e.Settlements()
			}
		}
		if len(ss) != len(ws) {
			t.Fatalf("%d settlements of %d wagers", len(ss), len(ws))
		}
		o := baccarat.OutcomeOf(coup)
		var staked, returned, kept, paid baccarat.Money
		type box struct{ banker, player, underB, underP baccarat.Money }
		boxes := map[string]*box{}
		for i, s := range ss {
			if s.Wager != ws[i] {
				t.Fatalf("settlement %d is of %+v, not %+v", i, s.Wager, ws[i])
			}
			if s.Effective < 0 || s.Effective > s.Wager.Stake {
				t.Fatalf("%+v: effective stake %d", s.Wager, s.Effective)
			}
			staked += s.Wager.Stake
			returned += s.Returned
			paid += s.Won
			switch s.Resolution.Result {
			case baccarat.Lose:
				kept += s.Effective
			case baccarat.Win:
				if want := rs.Resolve(s.Wager.Bet, o).Odds.Win(s.Effective, cfg.Rounding); s.Won != want {
					t.Fatalf("%+v: won %d on %d, want %d", s.Wager, s.Won, s.Effective, want)
				}
			}
			if s.Resolution.Result != baccarat.Win && s.Won != 0 {
				t.Fatalf("%+v: %s and won %d", s.Wager, s.Resolution.Result, s.Won)
			}
			b := boxes[s.Wager.Box]
			if b == nil {
				b = &box{}
				boxes[s.Wager.Box] = b
			}
			under := s.Effective > 0 && s.Wager.Stake < minimum
			switch s.Wager.Bet {
			case baccarat.BetBanker:
				b.banker += s.Effective
				if under {
					b.underB += s.Effective
				}
			case baccarat.BetPlayer:
				b.player += s.Effective
				if under {
					b.underP += s.Effective
				}
			}
		}
		if returned+kept != staked+paid {
			t.Fatalf("returned %d + kept %d != staked %d + paid %d", returned, kept, staked, paid)
		}
		for name, b := range boxes {
			d, allowed := b.banker-b.player, cfg.Limits.MaxDifferential
			if cfg.Limits.Excess == baccarat.ExcessProRata {
				// The heavier side's Bets under the minimum play over what the seated
				// player's take (5.1.2), and nothing else may.
				if d > 0 {
					allowed += b.underB
				} else {
					allowed += b.underP
				}
			}
			if d > allowed || -d > allowed {
				t.Fatalf("box %s: banker %d, player %d: over the maximum Differential %d", name, b.banker, b.player, allowed)
			}
		}
	})
}

// TestConfigLimitsJSON: the table's limits go into the journal with its settings and
// come back the same, so a replay decides the wagers as the live table did.
func TestConfigLimitsJSON(t *testing.T) {
	cfg := DefaultConfig(baccarat.MustLookup("rws", baccarat.Options{}))
	cfg.Limits = &baccarat.Limits{Min: map[baccarat.Bet]baccarat.Money{baccarat.BetTieWinsOn0 + 7: 10, baccarat.BetBanker: 100},
		Max: map[baccarat.Bet]baccarat.Money{baccarat.BetBanker: 20000}, MaxDifferential: 5000, Excess: baccarat.ExcessProRata, Boxes: 9}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if !reflect.DeepEqual(back.Limits, cfg.Limits) {
		t.Fatalf("limits %+v came back %+v (%s)", cfg.Limits, back.Limits, b)
	}
	if !strings.Contains(string(b), `"limits":{"min":{"banker":100,"tie_wins_on_7":10}`) {
		t.Errorf("journalled as %s", b)
	}
}
