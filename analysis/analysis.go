// Package analysis computes the exact probabilities, house edge and return to player of
// every bet of a rule set, by enumerating every possible round dealt from a full finite
// shoe without replacement. Each round is reduced and settled by the baccarat package's
// own OutcomeOf and Resolve, the code that settles a live round, so the analysis checks
// the live rules rather than a second copy of them.
package analysis

import (
	"fmt"
	"math/big"
	"sort"

	"github.com/tablectl/tablectl/baccarat"
)

// Report is the exact analysis of one rule set at one deck count. Weights count ordered
// 6-card sequences from the full shoe: a round that used k cards counts once for every way
// the shoe could continue to six cards, so every weight shares the denominator
// TotalWeight = N(N-1)...(N-5) for a shoe of N cards.
type Report struct {
	Rules       string      `json:"rules"`
	Decks       int         `json:"decks"`
	TotalWeight Weight      `json:"total_weight"`
	Outcomes    Outcomes    `json:"outcomes"`
	Bets        []BetReport `json:"bets"`
	// Insurance has one entry per row of the Insurance pay table, for rule sets that offer
	// Insurance (NC Insurance 4.1.2).
	Insurance []InsuranceReport `json:"insurance,omitempty"`
}

// Weight is an exact count, printed in JSON as a decimal string.
type Weight uint64

// MarshalText prints the weight in decimal.
func (w Weight) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "%d", uint64(w)), nil }

// Outcomes are the weights of the three results.
type Outcomes struct {
	Banker Weight `json:"banker"`
	Player Weight `json:"player"`
	Tie    Weight `json:"tie"`
}

// BetReport is the exact analysis of one bet.
type BetReport struct {
	Bet baccarat.Bet `json:"bet"`
	// HouseEdgePercent and RTPPercent are rounded to 4 decimal places; ExpectedReturn is
	// exact: the player's expected net gain per unit staked, as a reduced fraction.
	HouseEdgePercent float64      `json:"house_edge_percent"`
	RTPPercent       float64      `json:"rtp_percent"`
	ExpectedReturn   string       `json:"expected_return"`
	Results          []ResultLine `json:"results"`
}

// ResultLine is one way a bet can end, with its exact weight and its probability.
type ResultLine struct {
	Result      baccarat.Result `json:"result"`
	Odds        *baccarat.Odds  `json:"odds,omitempty"`
	Weight      Weight          `json:"weight"`
	Probability float64         `json:"probability"`
}

// InsuranceReport is the exact analysis of one Insurance pay-table row, conditional on
// the row being offered.
type InsuranceReport struct {
	Bet    baccarat.Bet  `json:"bet"`
	When   string        `json:"when"`
	Player string        `json:"player_points"`
	Banker string        `json:"banker_points"`
	Pays   baccarat.Odds `json:"pays"`
	// Weight is the weight of the rounds in which the row is offered; OfferedPercent
	// its share of all rounds.
	Weight           Weight       `json:"weight"`
	OfferedPercent   float64      `json:"offered_percent"`
	HouseEdgePercent float64      `json:"house_edge_percent"`
	ExpectedReturn   string       `json:"expected_return"`
	Results          []ResultLine `json:"results"`
}

// Analyze enumerates every round from a full shoe of decks decks for rule set rs.
func Analyze(rs *baccarat.RuleSet, decks int) (*Report, error) {
	return analyze(rs, decks, Enumerate)
}

// analyze is Analyze with the enumeration done by enumerate, which the tests share
// between rule sets whose rounds are the same.
func analyze(rs *baccarat.RuleSet, decks int, enumerate func(decks int, withSuits, withInsurance bool) *Tally) (*Report, error) {
	if err := rs.CheckDecks(decks); err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	t := enumerate(decks, rs.NeedsSuits(), rs.Insurance)
	r := &Report{Rules: rs.Name, Decks: decks, TotalWeight: Weight(t.Total)}
	for o, w := range t.Outcomes {
		switch o.Winner {
		case baccarat.BankerWins:
			r.Outcomes.Banker += Weight(w)
		case baccarat.PlayerWins:
			r.Outcomes.Player += Weight(w)
		case baccarat.Tie:
			r.Outcomes.Tie += Weight(w)
		}
	}
	for _, b := range rs.Bets {
		if b.Insurance() {
			continue
		}
		lines := map[baccarat.Resolution]uint64{}
		for o, w := range t.Outcomes {
			lines[rs.Resolve(b, o)] += w
		}
		br := BetReport{Bet: b}
		br.Results, br.ExpectedReturn, br.HouseEdgePercent, br.RTPPercent = summarize(lines, t.Total)
		r.Bets = append(r.Bets, br)
	}
	rows := make([]int, 0, len(t.Insurance))
	for row := range t.Insurance {
		rows = append(rows, row)
	}
	sort.Ints(rows)
	for _, row := range rows {
		outcomes := t.Insurance[row]
		info := baccarat.InsuranceOffer{Row: row}.Info()
		lines := map[baccarat.Resolution]uint64{}
		var offered uint64
		for o, w := range outcomes {
			lines[baccarat.ResolveInsurance(baccarat.InsuranceOffer{Row: row}, o)] += w
			offered += w
		}
		p, b := info.Points()
		ir := InsuranceReport{Bet: info.Bet, When: info.Stage.String(), Player: p, Banker: b, Pays: info.Odds,
			Weight: Weight(offered), OfferedPercent: percent(new(big.Rat).SetFrac(u64(offered), u64(t.Total)))}
		if offered > 0 {
			ir.Results, ir.ExpectedReturn, ir.HouseEdgePercent, _ = summarize(lines, offered)
		}
		r.Insurance = append(r.Insurance, ir)
	}
	return r, nil
}

// summarize turns the weights of a bet's resolutions into result lines, the exact
// expected return per unit staked, and the house edge and RTP in percent.
func summarize(lines map[baccarat.Resolution]uint64, total uint64) (out []ResultLine, ev string, edge, rtp float64) {
	sum := new(big.Rat)
	den := u64(total)
	for res, w := range lines {
		l := ResultLine{Result: res.Result, Weight: Weight(w)}
		l.Probability, _ = new(big.Rat).SetFrac(u64(w), den).Float64()
		var net *big.Rat
		switch res.Result {
		case baccarat.Win:
			odds := res.Odds
			l.Odds = &odds
			net = new(big.Rat).SetFrac64(int64(odds.Num), int64(odds.Den))
		case baccarat.Lose:
			net = big.NewRat(-1, 1)
		default:
			net = new(big.Rat)
		}
		sum.Add(sum, net.Mul(net, new(big.Rat).SetFrac(u64(w), den)))
		out = append(out, l)
	}
	// Wins first, best odds first; then pushes; then losses.
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Result != b.Result {
			return resultOrder[a.Result] < resultOrder[b.Result]
		}
		return a.Odds != nil && b.Odds != nil && uint64(a.Odds.Num)*uint64(b.Odds.Den) > uint64(b.Odds.Num)*uint64(a.Odds.Den)
	})
	return out, sum.RatString(), -percent(sum), 100 + percent(sum)
}

var resultOrder = map[baccarat.Result]int{baccarat.Win: 0, baccarat.Push: 1, baccarat.Lose: 2}

func u64(v uint64) *big.Int { return new(big.Int).SetUint64(v) }

// percent is r as a percentage rounded to 4 decimal places.
func percent(r *big.Rat) float64 {
	scaled := new(big.Rat).Mul(r, big.NewRat(1000000, 1))
	f, _ := scaled.Float64()
	return roundHalfAway(f) / 10000
}

func roundHalfAway(f float64) float64 {
	if f < 0 {
		return -float64(int64(-f + 0.5))
	}
	return float64(int64(f + 0.5))
}
