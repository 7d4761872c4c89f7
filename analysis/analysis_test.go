package analysis

import (
	"encoding/json"
	"math"
	"sync"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

// tallies holds each enumeration the tests made, so that rule sets dealing the same
// rounds (same decks, suits and Insurance) share one: Enumerate reads nothing else, and
// Analyze only reads the Tally.
var tallies struct {
	mu sync.Mutex
	m  map[[3]int]*Tally
}

// sharedEnumerate is Enumerate, once for each decks, withSuits and withInsurance.
func sharedEnumerate(decks int, withSuits, withInsurance bool) *Tally {
	tallies.mu.Lock()
	defer tallies.mu.Unlock()
	key := [3]int{decks, b2i(withSuits), b2i(withInsurance)}
	if t, ok := tallies.m[key]; ok {
		return t
	}
	if tallies.m == nil {
		tallies.m = map[[3]int]*Tally{}
	}
	t := Enumerate(decks, withSuits, withInsurance)
	tallies.m[key] = t
	return t
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// analyzeShared is Analyze with the tests' shared enumerations.
func analyzeShared(rs *baccarat.RuleSet, decks int) (*Report, error) {
	return analyze(rs, decks, sharedEnumerate)
}

// The published exact figures for 8 decks: ordered 6-card sequences by result, and the
// game project sheet's returns (Banker 98.94%, Player 98.76%, Tie 85.64%).
func TestClassicEightDecksMatchesPublished(t *testing.T) {
	r, err := analyzeShared(baccarat.MustLookup("classic", baccarat.Options{}), 8)
	if err != nil {
		t.Fatal(err)
	}
	if r.TotalWeight != 4998398275503360 {
		t.Errorf("total weight %d", r.TotalWeight)
	}
	want := Outcomes{Banker: 2292252566437888, Player: 2230518282592256, Tie: 475627426473216}
	if r.Outcomes != want {
		t.Errorf("outcomes %+v, want %+v", r.Outcomes, want)
	}
	rtp := map[baccarat.Bet]float64{baccarat.BetBanker: 98.94, baccarat.BetPlayer: 98.76, baccarat.BetTie: 85.64}
	edge := map[baccarat.Bet]float64{baccarat.BetBanker: 1.0579, baccarat.BetPlayer: 1.2351, baccarat.BetTie: 14.3596}
	for _, b := range r.Bets {
		if math.Round(b.RTPPercent*100)/100 != rtp[b.Bet] {
			t.Errorf("%s RTP %.4f%%, want %.2f%%", b.Bet, b.RTPPercent, rtp[b.Bet])
		}
		if b.HouseEdgePercent != edge[b.Bet] {
			t.Errorf("%s house edge %.4f%%, want %.4f%%", b.Bet, b.HouseEdgePercent, edge[b.Bet])
		}
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if back["total_weight"] != "4998398275503360" || back["rules"] != "classic" {
		t.Errorf("JSON: %s", out[:200])
	}
}

// Every rule set at every deck count it permits: the weights of the results sum to the
// number of ordered 6-card sequences, for every bet. Under the race detector it is left
// to BenchmarkWeightsAddUp, which .ci/run's benchmarks pass runs without it, and to the
// emulated ARM tests: the enumeration starts no goroutine, and the detector only made it
// several times slower.
func TestWeightsAddUp(t *testing.T) {
	if testing.Short() {
		t.Skip("enumerates every rule set at every deck count")
	}
	if raceDetector {
		t.Skip("under the race detector: BenchmarkWeightsAddUp checks the same without it")
	}
	weightsAddUp(t)
}

// BenchmarkWeightsAddUp is TestWeightsAddUp whatever the flags.
func BenchmarkWeightsAddUp(b *testing.B) {
	for b.Loop() {
		weightsAddUp(b)
	}
}

func weightsAddUp(t testing.TB) {
	for _, name := range baccarat.Names {
		rs := baccarat.MustLookup(name, baccarat.Options{})
		for _, d := range []int{rs.Decks[0], rs.Decks[len(rs.Decks)-1]} {
			r, err := analyzeShared(rs, d)
			if err != nil {
				t.Fatal(err)
			}
			n := uint64(52 * d)
			total := n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)
			if uint64(r.TotalWeight) != total || uint64(r.Outcomes.Banker+r.Outcomes.Player+r.Outcomes.Tie) != total {
				t.Errorf("%s %d decks: total %d, outcomes %+v, want %d", name, d, r.TotalWeight, r.Outcomes, total)
			}
			for _, b := range r.Bets {
				var sum Weight
				for _, l := range b.Results {
					sum += l.Weight
				}
				if uint64(sum) != total {
					t.Errorf("%s %d decks, %s: results weigh %d, want %d", name, d, b.Bet, sum, total)
				}
			}
		}
	}
}

// TestFourCardRoundsByBruteForce checks the rank-level enumeration, its all-one-suit
// split and the continuation weights against a plain enumeration of every ordered
// sequence of four physical cards from one deck: every round that ends on four cards
// must get the same weight for the same Outcome (suit class included).
func TestFourCardRoundsByBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("6.5 million sequences")
	}
	const decks = 1
	var shoe []baccarat.Card
	for s := baccarat.Spades; s <= baccarat.Clubs; s++ {
		for r := baccarat.Ace; r <= baccarat.King; r++ {
			shoe = append(shoe, baccarat.Card{Rank: r, Suit: s})
		}
	}
	brute := map[baccarat.Outcome]uint64{}
	tail := uint64(48 * 47) // ways to continue four cards to six
	// The coup of the first cards is dealt once for all the sequences that start with them.
	for a := range shoe {
		var c1 baccarat.Coup
		c1.Place(shoe[a])
		for b := range shoe {
			if b == a {
				continue
			}
			c2 := c1
			c2.Place(shoe[b])
			for c := range shoe {
				if c == a || c == b {
					continue
				}
				c3 := c2
				c3.Place(shoe[c])
				for d := range shoe {
					if d == a || d == b || d == c {
						continue
					}
					coup := c3
					coup.Place(shoe[d])
					if coup.Complete() {
						brute[baccarat.OutcomeOf(coup)] += tail
					}
				}
			}
		}
	}
	got := Enumerate(decks, true, false).Outcomes
	n := 0
	for o, w := range got {
		if o.PlayerCards == 2 && o.BankerCards == 2 {
			n++
			if brute[o] != w {
				t.Errorf("%s %s: enumeration %d, brute force %d", o, o.Suits, w, brute[o])
			}
		}
	}
	if n != len(brute) {
		t.Errorf("%d four-card outcomes enumerated, %d by brute force", n, len(brute))
	}
	flush := 0
	for o := range brute {
		if o.Suits != baccarat.Unsuited {
			flush++
		}
	}
	if flush == 0 {
		t.Error("no suited four-card round: the check did not exercise the suit split")
	}
}

// The Insurance situations cover exactly the rounds the controller would offer them in:
// the weight of each row equals the weight of the rounds whose cards open that row.
func TestInsuranceRows(t *testing.T) {
	r, err := analyzeShared(baccarat.MustLookup("nc-insurance", baccarat.Options{}), 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Insurance) != len(baccarat.InsuranceTable) {
		t.Fatalf("%d insurance rows, want %d", len(r.Insurance), len(baccarat.InsuranceTable))
	}
	for i, in := range r.Insurance {
		row := baccarat.InsuranceTable[i]
		if in.Bet != row.Bet || in.Pays != row.Odds || in.Weight == 0 {
			t.Errorf("row %d: %+v", i, in)
		}
		var sum Weight
		for _, l := range in.Results {
			sum += l.Weight
		}
		if sum != in.Weight {
			t.Errorf("row %d: results weigh %d of %d", i, sum, in.Weight)
		}
	}
	// The Player-9 row is paid on a Tie: it has no push line (NC Insurance 4.2.1); every
	// other row pushes on a Tie where a tie is possible.
	for i, in := range r.Insurance {
		for _, l := range in.Results {
			if l.Result == baccarat.Push && baccarat.InsuranceTable[i].TieWins {
				t.Errorf("row %d (Player 9) pushes", i)
			}
		}
	}
}

func TestAnalyzeRejectsDecks(t *testing.T) {
	if _, err := Analyze(baccarat.MustLookup("royal", baccarat.Options{}), 5); err == nil {
		t.Error("royal with 5 decks analysed")
	}
}

func BenchmarkAnalyze(b *testing.B) {
	for _, name := range baccarat.Names {
		b.Run(name, func(b *testing.B) {
			rs := baccarat.MustLookup(name, baccarat.Options{})
			for i := 0; i < b.N; i++ {
				if _, err := Analyze(rs, 8); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
