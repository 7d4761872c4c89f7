package round

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"pgregory.net/rapid"
)

// rulingsSession draws and plays, through r, a session of rounds at a table whose
// rulings a player might try to game: random wagers on three boxes, the round's cards
// random and drawn now and then together (by the shoe's clock), and at random moments
// holds reported, decisions, players' options (RWS Baccarat 5.12, NC Insurance 5.13, NC
// Tournament 3.9) by any role, the options window closed, Insurance bets (half the time
// an offer is open, on it by a box with a wager) and closings, squeezes and
// confirmations. Each round ends with what a table does to finish it. Each event is
// drawn once the one before is stepped.
func rulingsSession(t *rapid.T, r *rulingsRun) {
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var seq uint64
	var shoe time.Duration
	step := func(ev Event) {
		ev.At = at
		r.step(ev)
	}
	card := func(gap time.Duration) {
		seq, shoe, at = seq+1, shoe+gap, at.Add(gap)
		step(Event{Kind: CardDrawn, Seq: seq, ShoeTime: uint32(shoe / time.Millisecond), ShoeTimed: true,
			Card: baccarat.Card{Rank: baccarat.Rank(rapid.IntRange(1, 13).Draw(t, "rank")), Suit: baccarat.Suit(rapid.IntRange(1, 4).Draw(t, "suit"))}})
	}
	boxes := []string{"1", "2", "3"}
	insurance := []baccarat.Bet{baccarat.BetBankerInsurance, baccarat.BetPlayerInsurance}
	step(Event{Kind: NewShoe, Set: "R", Decks: 8})
	for range rapid.IntRange(1, 5).Draw(t, "rounds") {
		var ws []baccarat.Wager
		for range rapid.IntRange(0, 5).Draw(t, "wagers") {
			ws = append(ws, baccarat.Wager{Box: rapid.SampledFrom(boxes).Draw(t, "box"),
				Bet:   rapid.SampledFrom([]baccarat.Bet{baccarat.BetPlayer, baccarat.BetBanker, baccarat.BetBanker, baccarat.BetTie, baccarat.BetPlayerPair}).Draw(t, "bet"),
				Stake: baccarat.Money(rapid.SampledFrom([]int{50, 100, 200}).Draw(t, "stake"))})
		}
		step(Event{Kind: BetsClosed, Wagers: ws})
		for range rapid.IntRange(2, 30).Draw(t, "events") {
			if offers := r.ctl.State().Offers; len(offers) > 0 && rapid.Bool().Draw(t, "insure") {
				o := rapid.SampledFrom(offers).Draw(t, "offer")
				var on []string // the boxes with a bet on the hand offered
				for _, w := range ws {
					if w.Bet == insured(o.Info().Bet) {
						on = append(on, w.Box)
					}
				}
				if len(on) > 0 {
					step(Event{Kind: InsuranceBet, Wagers: []baccarat.Wager{{Box: rapid.SampledFrom(on).Draw(t, "insured"),
						Bet: o.Info().Bet, Stake: baccarat.Money(rapid.SampledFrom([]int{10, 24, 50}).Draw(t, "ins-stake"))}}})
					continue
				}
			}
			switch k := rapid.IntRange(0, 19).Draw(t, "kind"); {
			case k < 7:
				card(rapid.SampledFrom([]time.Duration{30 * time.Millisecond, 2 * time.Second, 2 * time.Second, 2 * time.Second}).Draw(t, "gap"))
			case k < 8:
				step(Event{Kind: InsuranceBet, Wagers: []baccarat.Wager{{Box: rapid.SampledFrom(boxes).Draw(t, "box"),
					Bet: rapid.SampledFrom(insurance).Draw(t, "ins"), Stake: baccarat.Money(rapid.SampledFrom([]int{10, 24, 50}).Draw(t, "ins-stake"))}}})
			case k < 9:
				step(Event{Kind: InsuranceWindowClosed})
			case k < 11 && len(r.ctl.State().Offered) > 0:
				// A Pit Manager hears a box that intended an Insurance on this round's offer,
				// maybe one that took Insurance on the hand.
				st := r.ctl.State()
				box := rapid.SampledFrom(boxes).Draw(t, "box")
				if len(st.Insurance) > 0 && rapid.Bool().Draw(t, "insured-box") {
					box = rapid.SampledFrom(st.Insurance).Draw(t, "taken").Wager.Box
				}
				step(Event{Kind: BoxChoice, Box: box, Option: irregularities.OptInsuranceIntended,
					Bet: rapid.SampledFrom(st.Offered).Draw(t, "intended").Info().Bet, Role: irregularities.PitManager})
			case k < 13:
				step(Event{Kind: BoxChoice, Box: rapid.SampledFrom(boxes).Draw(t, "box"),
					Option: irregularities.Option(rapid.IntRange(1, 5).Draw(t, "option")),
					Bet:    rapid.SampledFrom(insurance).Draw(t, "intended"),
					Role:   irregularities.Role(rapid.IntRange(1, 4).Draw(t, "role"))})
			case k < 14:
				step(Event{Kind: OptionsWindowClosed, Role: irregularities.Role(rapid.IntRange(0, 3).Draw(t, "role"))})
			case k < 15:
				step(Event{Kind: Report, Role: irregularities.Dealer, Irregularity: rapid.SampledFrom([]irregularities.Kind{
					irregularities.SimultaneousDraw, irregularities.WrongHand, irregularities.ExposedCard, irregularities.ExcessCard,
					irregularities.InsuranceNotOffered}).Draw(t, "report")})
			case k < 17:
				step(Event{Kind: Decide, Choice: irregularities.Choice(rapid.IntRange(1, 5).Draw(t, "choice")),
					Role: irregularities.Role(rapid.IntRange(2, 3).Draw(t, "role"))})
			case k < 18:
				step(Event{Kind: SqueezeRequested})
			default:
				step(Event{Kind: ConfirmResult})
			}
		}
		// What the table does to finish the round: the supervisor decides and closes the
		// options, the dealer closes the Insurance and deals on, and confirms.
		step(Event{Kind: Decide, Choice: irregularities.AsRead, Role: irregularities.Supervisor})
		step(Event{Kind: Decide, Choice: irregularities.Proceed, Role: irregularities.Supervisor})
		step(Event{Kind: OptionsWindowClosed, Role: irregularities.Supervisor})
		for st := r.ctl.State(); st.Phase == Dealing && st.Held.ID == 0; st = r.ctl.State() {
			step(Event{Kind: InsuranceWindowClosed})
			card(2 * time.Second)
		}
		step(Event{Kind: ConfirmResult})
	}
}

// topOdds is the most each bet the sessions place can pay, from the pay tables: RWS
// Baccarat 4.1.1, NC Tournament 4.1.1, NC Insurance 4.1.1 (Player 1:1, Banker 1:1 or
// 1:2 on six, Tie 8:1, a pair 11:1). An Insurance bet pays at most its offer's odds
// (NC Insurance 4.1.2).
var topOdds = map[baccarat.Bet]baccarat.Odds{baccarat.BetPlayer: baccarat.O(1, 1), baccarat.BetBanker: baccarat.O(1, 1),
	baccarat.BetTie: baccarat.O(8, 1), baccarat.BetPlayerPair: baccarat.O(11, 1)}

// TestPropertyRulingsCannotBeGamed runs random sessions (genRulings) and checks two
// things of every round settled.
//
// (a) No command given after round-complete changes any settlement of the round: each is
// what the dealer's confirmation at the moment the round became complete would have
// paid. The only choices the documents make after the outcome are left out, as they are
// the outcome's to decide: a Pit Manager's record of a neglected Insurance (NC Insurance
// 5.13 returns the Original Bet only where the Insurance would have won) and a
// withdrawal on a Tie (NC Tournament 3.9, which pays nothing more); so is a round a 5.5
// report voids after it was complete (RWS Baccarat 5.5, 1.19).
//
// (b) No box gets back more than the sum, over its wagers, of stake times one plus the
// bet's top odds; and no box that took an Insurance bet on a hand has that hand's
// Original Bet returned under 5.13 as well.
func TestPropertyRulingsCannotBeGamed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rs := baccarat.MustLookup(rapid.SampledFrom([]string{"nc-insurance", "nc-insurance", "rws", "nc-tournament"}).Draw(t, "rules"), baccarat.Options{})
		cfg := DefaultConfig(rs)
		cfg.Burn = BurnNone
		ctl, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rulingsSession(t, &rulingsRun{t: t, cfg: cfg, ctl: ctl})
	})
}

// TestRulingsPropertyCatches: the checker fails on the rulings the table once made: a
// bet returned after the outcome was known (RWS Baccarat 5.12), and a box paid its
// Insurance and its Original Bet back (NC Insurance 5.13).
func TestRulingsPropertyCatches(t *testing.T) {
	w := func(box string, b baccarat.Bet, s baccarat.Money) baccarat.Wager {
		return baccarat.Wager{Box: box, Bet: b, Stake: s}
	}
	settled := Effect{Kind: RoundSettled, Shoe: 1, Round: 1}.WithDetail(Detail{Settlements: []Settlement{
		{Wager: w("1", baccarat.BetBanker, 100), Effective: 100, Resolution: baccarat.Pushed, Returned: 100, Option: irregularities.OptBetReturned}}})
	var r rulingsCheck
	r.complete(roundKey{1, 1}, []Settlement{{Wager: w("1", baccarat.BetBanker, 100), Effective: 100, Resolution: baccarat.Lost}})
	if err := r.settled(settled); err == nil || !strings.Contains(err.Error(), "after round-complete") {
		t.Errorf("a bet returned after the outcome: %v", err)
	}
	twice := Effect{Kind: RoundSettled, Shoe: 1, Round: 2}.WithDetail(Detail{Settlements: []Settlement{
		{Wager: w("1", baccarat.BetBanker, 100), Effective: 100, Resolution: baccarat.Pushed, Returned: 100, Option: irregularities.OptInsuranceIntended},
		{Wager: w("1", baccarat.BetBankerInsurance, 50), Effective: 50, Resolution: baccarat.Won(baccarat.O(2, 1)), Won: 100, Returned: 150}}})
	if err := (&rulingsCheck{}).settled(twice); err == nil || !strings.Contains(err.Error(), "5.13") {
		t.Errorf("an Original Bet returned beside its Insurance: %v", err)
	}
}

// rulingsCheck follows one session for TestPropertyRulingsCannotBeGamed.
type rulingsCheck struct {
	// atComplete is what each round complete would have paid, confirmed at once.
	atComplete map[roundKey][]Settlement
}

func (r *rulingsCheck) complete(k roundKey, ss []Settlement) {
	if r.atComplete == nil {
		r.atComplete = map[roundKey][]Settlement{}
	}
	r.atComplete[k] = ss
}

// settled checks a round's settlement e against property (a) and (b).
func (r *rulingsCheck) settled(e Effect) error {
	if want, ok := r.atComplete[roundKey{e.Shoe, e.Round}]; ok {
		if len(want) != len(e.Settlements()) {
			return fmt.Errorf("round %d: %d settlements, %d at round-complete", e.Round, len(e.Settlements()), len(want))
		}
		for i, s := range e.Settlements() {
			if s.Option == irregularities.OptInsuranceIntended || s.Option == irregularities.OptWithdraw {
				continue
			}
			if w := want[i]; s.Effective != w.Effective || s.Resolution != w.Resolution || s.Won != w.Won ||
				s.Returned != w.Returned || s.Option != w.Option {
				return fmt.Errorf("round %d: %s settled %+v, but %+v after round-complete", e.Round, wagerText(s.Wager), s, w)
			}
		}
	}
	returned := map[string]baccarat.Money{}
	most := map[string]baccarat.Money{}
	insuredHands := map[string]bool{} // box and hand
	for _, s := range e.Settlements() {
		top, ok := topOdds[s.Wager.Bet]
		if s.Wager.Bet.Insurance() {
			top, ok = s.Resolution.Odds, true
			if s.Resolution.Result != baccarat.Win {
				top = baccarat.O(0, 1)
			}
			insuredHands[s.Wager.Box+" "+insured(s.Wager.Bet).String()] = true
		}
		if !ok {
			return fmt.Errorf("no top odds for %s", s.Wager.Bet)
		}
		returned[s.Wager.Box] += s.Returned
		most[s.Wager.Box] += s.Wager.Stake + top.Win(s.Wager.Stake, baccarat.RoundUp)
	}
	for box, got := range returned {
		if got > most[box] {
			return fmt.Errorf("round %d: box %s gets back %d, more than its stakes and their top odds, %d", e.Round, box, got, most[box])
		}
	}
	for _, s := range e.Settlements() {
		if s.Option == irregularities.OptInsuranceIntended && insuredHands[s.Wager.Box+" "+s.Wager.Bet.String()] {
			return fmt.Errorf("round %d: box %s has its insured %s bet returned under 5.13 as well", e.Round, s.Wager.Box, s.Wager.Bet)
		}
	}
	return nil
}

// rulingsRun steps a session's events through a controller and checks each round
// settled (rulingsCheck).
type rulingsRun struct {
	t     *rapid.T
	cfg   Config
	ctl   *Controller
	check rulingsCheck
	log   []string
}

// step steps ev and checks its effects: a round complete is confirmed at once on a copy
// of the controller, and a round settled is checked against it.
func (r *rulingsRun) step(ev Event) {
	effs := r.ctl.Step(ev)
	r.log = append(r.log, "> "+ev.String())
	for _, e := range effs {
		r.log = append(r.log, "  "+strings.ReplaceAll(e.String(), "\n", "\n  "))
	}
	for _, e := range effs {
		switch e.Kind {
		case RoundComplete:
			st := r.ctl.State()
			if st.Phase != Complete || st.Voided || st.Held.ID != 0 {
				continue
			}
			shadow, err := Restore(r.cfg, st)
			if err != nil {
				r.t.Fatal(err)
			}
			for _, se := range shadow.Step(Event{Kind: ConfirmResult}) {
				if se.Kind == RoundSettled {
					r.check.complete(roundKey{se.Shoe, se.Round}, se.Settlements())
				}
			}
		case RoundSettled:
			if err := r.check.settled(e); err != nil {
				r.t.Fatalf("%v\n%s", err, strings.Join(r.log[max(0, len(r.log)-80):], "\n"))
			}
		}
	}
}
