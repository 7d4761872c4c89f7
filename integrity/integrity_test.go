package integrity

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

// set returns the cards of decks decks in suit and rank order.
func set(decks int) []baccarat.Card {
	var out []baccarat.Card
	for range decks {
		for s := baccarat.Suit(1); s <= 4; s++ {
			for r := baccarat.Rank(1); r <= 13; r++ {
				out = append(out, baccarat.NewCard(r, s))
			}
		}
	}
	return out
}

// honest returns n thoroughly shuffled 8-deck shoes, each cut to dealt cards.
func honest(seed uint64, n, dealt int) [][]baccarat.Card {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([][]baccarat.Card, n)
	for i := range out {
		s := set(8)
		rng.Shuffle(len(s), func(a, b int) { s[a], s[b] = s[b], s[a] })
		out[i] = s[:dealt]
	}
	return out
}

// riffle is one riffle of order (the Gilbert–Shannon–Reeds model): a cut near the
// middle, then the two packets dropped card by card, each in proportion to its size.
func riffle(rng *rand.Rand, order []baccarat.Card) []baccarat.Card {
	cut := 0
	for range order {
		if rng.IntN(2) == 0 {
			cut++
		}
	}
	a, b := order[:cut], order[cut:]
	out := make([]baccarat.Card, 0, len(order))
	for len(a)+len(b) > 0 {
		if rng.IntN(len(a)+len(b)) < len(a) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

// TestMinRunOfTheDefaultFloor derives the alarm's run length for 500 tables, 30 shoes
// a table a day and a 90-day window of 8-deck shoes: 11 cards, for chance gives
// a shared run of 10 several times a year and one of 11 once in about six years.
func TestMinRunOfTheDefaultFloor(t *testing.T) {
	f := DefaultFloor
	if got := f.MinRun(); got != 11 {
		t.Fatalf("MinRun = %d, want 11", got)
	}
	// By hand: 500·30·365 new shoes a year, each against 500·30·90 shoes, 416² starts.
	want := 500.0 * 30 * 365 * 500 * 30 * 90 * 416 * 416 / math.Pow(52, 11)
	if got := f.ChanceRuns(11); math.Abs(got-want) > 1e-9*want || got >= 1 {
		t.Errorf("ChanceRuns(11) = %v, want %v (< 1)", got, want)
	}
	if f.ChanceRuns(10) < 1 {
		t.Errorf("ChanceRuns(10) = %v: a run of 10 would be alarm enough", f.ChanceRuns(10))
	}
	small := Floor{Tables: 1, ShoesPerDay: 1, WindowDays: 1, Cards: 416}
	if got := small.MinRun(); got >= 11 {
		t.Errorf("a one-table floor's run length is %d, want shorter than a full floor's", got)
	}
}

// TestKeysSpellRunsExactly checks that the rolling keys are the keys of each run, and
// that two different runs never share a key.
func TestKeysSpellRunsExactly(t *testing.T) {
	order := honest(1, 1, 416)[0]
	keys := Keys(order, MaxKey)
	if len(keys) != len(order)-MaxKey+1 {
		t.Fatalf("%d keys for %d cards", len(keys), len(order))
	}
	seen := map[int64]int{}
	for i, k := range keys {
		if k != Key(order, i, MaxKey) {
			t.Fatalf("key %d: rolling %d, direct %d", i, k, Key(order, i, MaxKey))
		}
		if k < 0 {
			t.Fatalf("key %d is negative: %d does not fit a signed integer", i, k)
		}
		if j, ok := seen[k]; ok && !slices.Equal(order[i:i+MaxKey], order[j:j+MaxKey]) {
			t.Fatalf("runs at %d and %d differ and share key %d", j, i, k)
		}
		seen[k] = i
	}
	top := make([]baccarat.Card, MaxKey)
	for i := range top {
		top[i] = baccarat.NewCard(baccarat.King, baccarat.Suit(4)) // index 51: the largest key
	}
	if k := Key(top, 0, MaxKey); k != int64(math.Pow(52, MaxKey))-1 || k < 0 {
		t.Errorf("the largest key is %d", k)
	}
}

// TestPlantedRunFound puts a 20-card run of one shoe into another at a different place
// and finds it once, whole, at both positions; the index finds it too.
func TestPlantedRunFound(t *testing.T) {
	shoes := honest(2, 30, 400)
	a, b := shoes[0], slices.Clone(shoes[1])
	copy(b[250:270], a[100:120])
	runs := Runs(b, a, 11)
	var planted []Run
	for _, r := range runs {
		if r.Len >= 20 {
			planted = append(planted, r)
		}
	}
	if len(planted) != 1 || planted[0].A != 250 || planted[0].B != 100 {
		t.Fatalf("runs of b in a: %+v, want one from 250 in b and 100 in a, of 20 cards or a little more", runs)
	}
	if n := planted[0].Len; n > 22 {
		t.Errorf("the run is %d long: chance extends a planted run of 20 by a card or two, not more", n)
	}
	x := NewIndex(DefaultFloor.MinRun())
	for _, s := range shoes {
		x.Add(s)
	}
	m := x.Find(b)
	var other []Match
	for _, f := range m {
		if f.Shoe != 1 { // b is shoe 1 but for the run: every card of it is a match
			other = append(other, f)
		}
	}
	if len(other) != 1 || other[0].Shoe != 0 || other[0].Run != planted[0] {
		t.Errorf("index: %+v, want only shoe 0's %+v", other, planted[0])
	}
}

// TestHonestShoesShareNoRun deals honest shoes (20,000 without -short, 2,000 with it or
// under the race detector: BenchmarkHonestShoesShareNoRun deals the 20,000) and finds no
// run of the alarm's length that two of them share.
func TestHonestShoesShareNoRun(t *testing.T) {
	n := 20000
	if testing.Short() || raceDetector {
		n = 2000
	}
	honestShoesShareNoRun(t, n)
}

// BenchmarkHonestShoesShareNoRun is TestHonestShoesShareNoRun with its 20,000 shoes
// whatever the flags: .ci/run's benchmarks pass, without the race detector, checks them.
func BenchmarkHonestShoesShareNoRun(b *testing.B) {
	for b.Loop() {
		honestShoesShareNoRun(b, 20000)
	}
}

func honestShoesShareNoRun(t testing.TB, n int) {
	shoes := honest(3, n, 400)
	keys := make([]int64, 0, n*400)
	for _, s := range shoes {
		keys = append(keys, Keys(s, MaxKey)...)
	}
	slices.Sort(keys)
	twice := map[int64]bool{} // keys found more than once: which shoes, in a second pass
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			twice[keys[i]] = true
		}
	}
	shared := 0
	if len(twice) > 0 {
		first := map[int64]int{}
		for i, s := range shoes {
			for j, k := range Keys(s, MaxKey) {
				if !twice[k] {
					continue
				}
				if o, ok := first[k]; ok && o != i {
					shared++
					t.Errorf("shoes %d and %d share a run of %d, from %d in shoe %d", o, i, MaxKey, j, i)
				}
				first[k] = i
			}
		}
	}
	t.Logf("%d honest shoes, %d runs of %d keyed: %d shared", n, len(keys), MaxKey, shared)
}

// TestRepeatedSetFound is the shoe dealt in the order the shuffler was given: the
// previous shoe's dealt order, or that order with one riffle and no more. The first
// shares the whole shoe; the riffle breaks it into runs too short for the run alarm,
// which the weak-shuffle test finds instead.
func TestRepeatedSetFound(t *testing.T) {
	prev := honest(4, 1, 400)[0]
	runs := Runs(prev, prev, 11)
	if len(runs) == 0 || runs[0].Len != 400 {
		t.Fatalf("the same order twice: runs %+v, want one of 400", runs)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	once := riffle(rng, prev)
	if r := ShuffleTest(prev, once); r.P > ShuffleAlarm {
		t.Errorf("one riffle: %d neighbours kept against %.1f by chance, p = %v: not found", r.Neighbours, r.Expected, r.P)
	}
}

// TestShuffleTestCalibrated checks the weak-shuffle test on thorough shuffles (20,000
// sets, each against the one before): the share of p-values at or below each threshold
// is at most the threshold, and not far below it.
// With -short or under the race detector it takes 2,000 sets;
// BenchmarkShuffleTestCalibrated takes the 20,000.
func TestShuffleTestCalibrated(t *testing.T) {
	n := 20000
	if testing.Short() || raceDetector {
		n = 2000
	}
	shuffleTestCalibrated(t, n)
}

// BenchmarkShuffleTestCalibrated is TestShuffleTestCalibrated with its 20,000 sets
// whatever the flags: .ci/run's benchmarks pass, without the race detector, checks them.
func BenchmarkShuffleTestCalibrated(b *testing.B) {
	for b.Loop() {
		shuffleTestCalibrated(b, 20000)
	}
}

func shuffleTestCalibrated(t testing.TB, n int) {
	shoes := honest(5, n+1, 400)
	levels := []float64{0.5, 0.05, 0.01, 0.001}
	below := make([]int, len(levels))
	alarms := 0
	var over float64
	for i := 1; i <= n; i++ {
		r := ShuffleTest(shoes[i-1], shoes[i])
		over += float64(r.Neighbours) - r.Expected
		for k, l := range levels {
			if r.P <= l {
				below[k]++
			}
		}
		if r.P <= ShuffleAlarm {
			alarms++
		}
	}
	t.Logf("%d thorough shuffles: at or below %v: %v; alarms (p ≤ %v): %d; neighbours over the expected, on average: %.3f",
		n, levels, below, ShuffleAlarm, alarms, over/float64(n))
	for k, l := range levels {
		// At most the threshold (four standard deviations over it): the count is whole,
		// so the law's p-values are a little conservative. At least half of it: a test
		// that never gives a small p finds nothing.
		lo, _ := binomialBounds(n, l/2)
		if _, hi := binomialBounds(n, l); below[k] < max(lo, 0) || below[k] > hi {
			t.Errorf("%d of %d thorough shuffles at or below %v, want %d to %d", below[k], n, l, max(lo, 0), hi)
		}
	}
	if alarms > 0 {
		t.Errorf("%d thorough shuffles of %d alarmed", alarms, n)
	}
}

// binomialBounds is n·p ± 4 standard deviations, rounded outwards.
func binomialBounds(n int, p float64) (int, int) {
	m, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
	return int(math.Floor(m - 4*sd)), int(math.Ceil(m + 4*sd))
}

// TestWeakShufflesFound: riffles few enough to leave the previous order's neighbours
// are found, set by set or over the last ten sets.
func TestWeakShufflesFound(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	prev := honest(6, 1, 416)[0]
	var ps []float64
	for range 10 {
		next := prev
		for range 3 {
			next = riffle(rng, next)
		}
		r := ShuffleTest(prev, next)
		ps = append(ps, r.P)
		prev = next
	}
	if p := Combined(ps); p > 1e-6 {
		t.Errorf("ten sets shuffled with three riffles each: p-values %v, combined %v: not found", ps, p)
	}
	// −2 Σ ln p = 4 ln 2 with 4 degrees of freedom: e^(−2 ln 2)(1 + 2 ln 2) = 0.5966.
	if got := Combined([]float64{0.5, 0.5}); math.Abs(got-0.5966) > 0.001 {
		t.Errorf("Combined(0.5, 0.5) = %v, want 0.5966", got)
	}
}

// TestPositionsChiSquare: honest sets pass the COMAR position test about 95% of the
// time; a shuffler fed one order and riffling it twice fails it. With -short or under the
// race detector it takes 40 tallies; BenchmarkPositionsChiSquare takes the 100.
func TestPositionsChiSquare(t *testing.T) {
	tallies := 100
	if testing.Short() || raceDetector {
		tallies = 40
	}
	positionsChiSquare(t, tallies)
}

// BenchmarkPositionsChiSquare is TestPositionsChiSquare with its 100 tallies whatever
// the flags: .ci/run's benchmarks pass, without the race detector, checks them.
func BenchmarkPositionsChiSquare(b *testing.B) {
	for b.Loop() {
		positionsChiSquare(b, 100)
	}
}

func positionsChiSquare(t testing.TB, tallies int) {
	const sets = 40
	fails := 0
	for i := range tallies {
		p, err := NewPositions(400, 8)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range honest(uint64(100+i), sets, 400) {
			if err := p.Add(s); err != nil {
				t.Fatal(err)
			}
		}
		r := p.Test()
		if r.DF != 51*7 || r.Sets != sets {
			t.Fatalf("%d degrees of freedom over %d sets, want %d over %d", r.DF, r.Sets, 51*7, sets)
		}
		if !r.Passes {
			fails++
		}
	}
	t.Logf("%d tallies of %d honest sets: %d failed the position test at %v confidence", tallies, sets, fails, Confidence)
	if lo, hi := binomialBounds(tallies, 1-Confidence); fails < max(lo, 0) || fails > hi {
		t.Errorf("honest sets failed the position test %d times in %d, want %d to %d", fails, tallies, max(lo, 0), hi)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	p, _ := NewPositions(400, 8)
	for range sets {
		p.Add(riffle(rng, riffle(rng, set(8))))
	}
	if r := p.Test(); r.Passes || r.P > 1e-9 {
		t.Errorf("two riffles of a sorted set: chi-square %.0f, p = %v: not found", r.Chi2, r.P)
	}
	if _, err := NewPositions(400, 7); err == nil {
		t.Error("400 positions in 7 parts accepted")
	}
}

// rounds deals the rounds of n honest shoes and calls f with each.
func rounds(seed uint64, n int, f func(baccarat.Coup)) {
	for _, s := range honest(seed, n, 400) {
		for len(s) >= 6 {
			c, used := baccarat.CoupOf(s...)
			f(c)
			s = s[used:]
		}
	}
}

// TestDriftFalseAlarms measures the CUSUM's false alarms on honest rounds (dealt from
// shuffled shoes, so with the shoe's own dependence between rounds) against the bound
// it is built on: at most one alarm in arl rounds on average. With -short or under the
// race detector it deals 500 shoes; BenchmarkDriftFalseAlarms deals the 3,000.
func TestDriftFalseAlarms(t *testing.T) {
	shoes := 3000
	if testing.Short() || raceDetector {
		shoes = 500
	}
	driftFalseAlarms(t, shoes)
}

// BenchmarkDriftFalseAlarms is TestDriftFalseAlarms with its 3,000 shoes whatever the
// flags: .ci/run's benchmarks pass, without the race detector, checks them.
func BenchmarkDriftFalseAlarms(b *testing.B) {
	for b.Loop() {
		driftFalseAlarms(b, 3000)
	}
}

func driftFalseAlarms(t testing.TB, shoes int) {
	const p0, arl = 0.458597, 500 // Banker's exact rate with 8 decks (analyze)
	d, err := NewDrift(p0, 1.25, arl)
	if err != nil {
		t.Fatal(err)
	}
	n, alarms := 0, 0
	rounds(8, shoes, func(c baccarat.Coup) {
		n++
		if _, ok := d.Add(c.Outcome().Winner == baccarat.BankerWins); ok {
			alarms++
		}
	})
	if limit := float64(n) / arl; float64(alarms) > limit {
		t.Errorf("%d false alarms in %d honest rounds, more than the bound's %.0f", alarms, n, limit)
	}
	t.Logf("%d honest rounds: %d false alarms with a run length of %d rounds between them at least", n, alarms, arl)
}

// TestDriftFindsBias: rounds whose Banker wins 60% of the time are found within a few
// shoes; rounds at the exact rate hardly move the sum.
func TestDriftFindsBias(t *testing.T) {
	d, err := NewDrift(0.458597, 1.25, 1e6)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 1; i <= 2000; i++ {
		if a, ok := d.Add(rng.Float64() < 0.6); ok {
			if a.Seen <= int(a.Expected) || a.Rounds != i {
				t.Errorf("alarm after %d rounds: %d Banker wins against %.0f expected", a.Rounds, a.Seen, a.Expected)
			}
			t.Logf("Banker at 60%%: found after %d rounds", i)
			return
		}
	}
	t.Errorf("Banker at 60%% for 2,000 rounds not found (sum %.1f, threshold %.1f)", d.Sum(), d.H)
}

// TestNewDriftRefusesNonsense names each bad argument.
func TestNewDriftRefusesNonsense(t *testing.T) {
	for _, c := range []struct{ p0, ratio, arl float64 }{{0, 1.2, 100}, {1, 1.2, 100}, {0.5, 1, 100}, {0.5, 1.2, 1}, {math.NaN(), 1.2, 100}} {
		if _, err := NewDrift(c.p0, c.ratio, c.arl); err == nil {
			t.Errorf("NewDrift(%v, %v, %v) accepted", c.p0, c.ratio, c.arl)
		}
	}
}

// TestDriftStateResumes: a Drift set to another's State (as a follower keeps it across
// a restart, through JSON) alarms where the one that never stopped does.
func TestDriftStateResumes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	whole, err := NewDrift(0.4586, 1.25, 500)
	if err != nil {
		t.Fatal(err)
	}
	resumed, _ := NewDrift(0.4586, 1.25, 500)
	var want, got []DriftAlarm
	for i := range 20_000 {
		had := rng.Float64() < 0.5
		if a, ok := whole.Add(had); ok {
			want = append(want, a)
		}
		if i%97 == 0 { // a restart: the state kept, a new Drift given it
			b, err := json.Marshal(resumed.State())
			if err != nil {
				t.Fatal(err)
			}
			var s DriftState
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			resumed, _ = NewDrift(0.4586, 1.25, 500)
			resumed.SetState(s)
		}
		if a, ok := resumed.Add(had); ok {
			got = append(got, a)
		}
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("resumed: %d alarms %v, want %d %v", len(got), got, len(want), want)
	}
}
