package baccarat

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
)

// Seat says whose a wager is in its betting box: the Seated Player's (RWS Baccarat
// 1.20; NC Insurance 1.19) or a Standing Player's (RWS Baccarat 1.21; NC Insurance
// 1.20). The zero value is Seated: a wager that names no seat is the seated player's.
type Seat uint8

// The seats.
const (
	Seated Seat = iota
	Standing
)

var seatNames = [...]string{"seated", "standing"}

// String names the seat: seated or standing.
func (s Seat) String() string {
	if int(s) < len(seatNames) {
		return seatNames[s]
	}
	return "seat(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText prints the seat's name.
func (s Seat) MarshalText() ([]byte, error) {
	if int(s) >= len(seatNames) {
		return nil, fmt.Errorf("marshal seat: %d is not a seat", s)
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads seated or standing.
func (s *Seat) UnmarshalText(b []byte) error {
	for i, n := range seatNames {
		if n == string(b) {
			*s = Seat(i)
			return nil
		}
	}
	return fmt.Errorf("unknown seat %q: want seated or standing", b)
}

// Excess says what the table does with Bets over a box's maximum Differential: reject
// the excess when bets close (RWS Baccarat 5.1, the dealer noticed), or let the box's
// Bets win or lose pro rata (5.1.1, the excess was not rejected).
type Excess uint8

// The two ways.
const (
	ExcessReject Excess = iota
	ExcessProRata
)

var excessNames = [...]string{"reject", "pro_rata"}

// String names the way: reject or pro_rata.
func (e Excess) String() string {
	if int(e) < len(excessNames) {
		return excessNames[e]
	}
	return "?"
}

// MarshalText prints the way's name.
func (e Excess) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText reads reject or pro_rata.
func (e *Excess) UnmarshalText(b []byte) error {
	for i, n := range excessNames {
		if n == string(b) {
			*e = Excess(i)
			return nil
		}
	}
	return fmt.Errorf("%q: want reject or pro_rata", b)
}

// MaxStake is the largest stake, limit or Differential the table takes, in its smallest
// unit: large enough for any table, small enough that every payout (up to 10000 to 1)
// is an exact int64.
const MaxStake Money = 1 << 40

// MaxBoxes is the most betting boxes a layout may have.
const MaxBoxes = 99

// Limits are a table's betting limits, in its smallest unit: for each bet identifier a
// minimum and a maximum stake (RWS Baccarat 3.4, 3.5), the maximum Differential of a
// betting box (1.6, 5.1), what is done with an excess over it, and the number of betting
// boxes of the layout (2.1.1). A bet with no minimum has none; with no maximum, none; a
// MaxDifferential of 0 is no Differential limit; Boxes 0 takes any box name. Its JSON is
// the shape of the configuration's limits section and of the status message's limits.
type Limits struct {
	Min             map[Bet]Money `json:"min,omitempty"`
	Max             map[Bet]Money `json:"max,omitempty"`
	MaxDifferential Money         `json:"max_differential,omitempty"`
	Excess          Excess        `json:"excess"`
	Boxes           int           `json:"boxes,omitempty"`
}

// LimitError is a limit that cannot be met or is not the rule set's: its key, as the
// configuration writes it ("min.banker", "max_differential"), and what is wrong.
type LimitError struct {
	Key string
	Msg string
}

// Error prints KEY: what is wrong.
func (e *LimitError) Error() string { return e.Key + ": " + e.Msg }

// Check reports every limit that rule set rs cannot play by, in a stable order: a bet the
// rule set does not offer, an Insurance bet (its limit is the Original Bet, NC Insurance
// 3.12.2), an amount that is not positive or over MaxStake, a minimum above its maximum,
// a maximum Differential below the Player's or the Banker's minimum (one minimum bet
// would be over it), a number of boxes out of 1 to MaxBoxes.
func (l *Limits) Check(rs *RuleSet) []*LimitError {
	var errs []*LimitError
	add := func(key, format string, a ...any) {
		errs = append(errs, &LimitError{Key: key, Msg: fmt.Sprintf(format, a...)})
	}
	for _, side := range []struct {
		name string
		m    map[Bet]Money
	}{{"min", l.Min}, {"max", l.Max}} {
		for _, b := range sortedBets(side.m) {
			v, key := side.m[b], side.name+"."+b.String()
			switch {
			case !rs.Offers(b):
				add(key, "rule set %s does not offer %s", rs.Name, b)
			case b.Insurance():
				add(key, "an Insurance bet's limit is the Original Bet it insures (NC Insurance 3.12.2)")
			case v <= 0 || v > MaxStake:
				add(key, "%d: want a positive amount up to %d", v, MaxStake)
			}
		}
	}
	for _, b := range sortedBets(l.Min) {
		if mx, ok := l.Max[b]; ok && mx > 0 && l.Min[b] > mx {
			add("min."+b.String(), "%d is above the maximum %d of %s", l.Min[b], mx, b)
		}
	}
	switch d := l.MaxDifferential; {
	case d < 0 || d > MaxStake:
		add("max_differential", "%d: want a positive amount up to %d", d, MaxStake)
	case d > 0:
		for _, b := range []Bet{BetBanker, BetPlayer} {
			if m := l.Min[b]; m > d {
				add("max_differential", "%d is below the %s minimum of %d: one minimum %s bet would be over it", d, b, m, b)
			}
		}
	}
	if l.Excess > ExcessProRata {
		add("excess", "unknown excess handling %d: want reject or pro_rata", l.Excess)
	}
	if l.Boxes < 0 || l.Boxes > MaxBoxes {
		add("boxes", "%d: want 1 to %d", l.Boxes, MaxBoxes)
	}
	return errs
}

func sortedBets(m map[Bet]Money) []Bet {
	bets := make([]Bet, 0, len(m))
	for b := range m {
		bets = append(bets, b)
	}
	slices.Sort(bets)
	return bets
}

// Verdict is what the table made of a wager when bets closed.
type Verdict uint8

// The verdicts.
const (
	// Accepted: the wager plays as placed.
	Accepted Verdict = iota
	// CutBack: part of it plays (its effective stake); the rest is returned.
	CutBack
	// Refused: none of it plays; it is returned.
	Refused
	// UnderMinimum: it is under its bet's minimum and plays as placed (RWS Baccarat
	// 5.2.1, 5.1.2).
	UnderMinimum
)

var verdictNames = [...]string{"accepted", "cut_back", "refused", "under_minimum"}

// String names the verdict: accepted, cut_back, refused, under_minimum.
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "?"
}

// MarshalText prints the verdict's name.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText reads a verdict's name.
func (v *Verdict) UnmarshalText(b []byte) error {
	for i, n := range verdictNames {
		if n == string(b) {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("unknown verdict %q", b)
}

// Decision is the table's verdict on one wager when bets close: the stake that plays
// (Effective: the stake, part of it, or 0 when refused) and the rule that decided it.
// Rule begins with the verdict's name, then ": " and why, naming the document and rule.
type Decision struct {
	Verdict   Verdict `json:"verdict"`
	Effective Money   `json:"effective_stake"`
	Rule      string  `json:"rule"`
}

// Pay is how the table pays a stake whose winnings are not whole units: refused when
// bets close unless Rounded, then rounded by Rounding (docs/config.md, dealer.pay_rounded).
type Pay struct {
	Rounded  bool
	Rounding Rounding
}

// CloseBets decides every wager on the layout when bets close (RWS Baccarat 5.6: what is
// on the layout then is final) and returns one Decision per wager, in order. It is the one
// place the table's limits are applied; docs/rules.md ("Limits") states the reading:
//
//  1. the rule set's own checks (CheckWagers) and, unless pay.Rounded, exact payouts
//     (CheckExact), and the layout's boxes (RWS Baccarat 2.1.1): refused;
//  2. a stake under its bet's minimum plays as placed, marked under_minimum (5.2.1: the
//     dealer did not have it increased or withdrawn before "No more Bets");
//  3. a box's Bets on one bet are held to that bet's maximum (3.5), seated player first,
//     then standing players in the order given; the excess is returned;
//  4. a box whose Differential (1.6: Banker Bets less Player Bets) is over the maximum:
//     with ExcessReject the heavier side's Bets are taken seated first, then standing in
//     order, until the maximum is reached and the rest is rejected (5.1); with
//     ExcessProRata, the seated player's Bets are taken first (5.1), in full when they
//     fit, Bets under the minimum play as placed (5.1.2), and the standing players share
//     what is left pro rata (5.1.1), a share that would fall under the minimum being
//     returned instead and the others sharing again.
//
// A stake cut back or pro-rated stays a whole number of units and, unless pay.Rounded, a
// stake whose winnings are exact; a pro-rated share that does not divide is rounded by
// pay.Rounding (the rounding of payouts, Rounding.up). Every amount is an exact integer.
func (rs *RuleSet) CloseBets(ws []Wager, l *Limits, pay Pay) []Decision {
	ds := make([]Decision, len(ws))
	errs := rs.CheckWagers(ws)
	for i, w := range ws {
		if errs[i] == nil && !pay.Rounded {
			errs[i] = rs.CheckExact(w)
		}
		if errs[i] == nil && l != nil && l.Boxes > 0 && !boxOf(w.Box, l.Boxes) {
			errs[i] = &WagerError{Wager: w, Reason: fmt.Sprintf("no betting box %q on this layout of boxes 1 to %d (%s)", w.Box, l.Boxes, rs.cite(RuleBoxes))}
		}
		if errs[i] != nil {
			ds[i] = Decision{Verdict: Refused, Rule: Refused.String() + ": " + reasonOf(errs[i])}
			continue
		}
		ds[i] = Decision{Verdict: Accepted, Effective: w.Stake, Rule: Accepted.String()}
	}
	if l == nil {
		return ds
	}
	j := judge{rs: rs, ws: ws, ds: ds, l: l, pay: pay}
	for i, w := range ws {
		if ds[i].Verdict == Accepted {
			if m, ok := l.Min[w.Bet]; ok && w.Stake < m {
				j.set(i, UnderMinimum, w.Stake, "under the %s minimum of %d: it wins or loses as placed (%s)", w.Bet, m, rs.cite(RuleUnderMinimum))
			}
		}
	}
	for _, box := range j.boxes() {
		for _, b := range rs.Bets {
			if mx, ok := l.Max[b]; ok {
				j.maximum(box, b, mx)
			}
		}
		// A side cut back in whole steps, or a Bet refused rather than left under its
		// minimum, can leave the other side over the maximum: it is then held in turn.
		for range len(ws) + 1 {
			if l.MaxDifferential == 0 || !j.differential(box) {
				break
			}
		}
	}
	return ds
}

// boxOf says whether name is one of the boxes 1 to n, written as a plain number.
func boxOf(name string, n int) bool {
	v, err := strconv.Atoi(name)
	return err == nil && v >= 1 && v <= n && strconv.Itoa(v) == name
}

func reasonOf(err error) string {
	if we, ok := err.(*WagerError); ok {
		return we.Reason
	}
	return err.Error()
}

// judge holds one CloseBets at work.
type judge struct {
	rs  *RuleSet
	ws  []Wager
	ds  []Decision
	l   *Limits
	pay Pay
}

func (j *judge) set(i int, v Verdict, eff Money, format string, a ...any) {
	j.ds[i] = Decision{Verdict: v, Effective: eff, Rule: v.String() + ": " + fmt.Sprintf(format, a...)}
}

// boxes lists the boxes of the wagers in play, in the order they first appear.
func (j *judge) boxes() []string {
	var bs []string
	seen := map[string]bool{}
	for i, w := range j.ws {
		if j.ds[i].Verdict != Refused && !seen[w.Box] {
			seen[w.Box] = true
			bs = append(bs, w.Box)
		}
	}
	return bs
}

// priority lists the wagers in play of box on the bets keep says, seated player's first,
// then the standing players' in the order given (RWS Baccarat 5.1).
func (j *judge) priority(box string, keep func(Wager) bool) []int {
	var seated, standing []int
	for i, w := range j.ws {
		if w.Box != box || j.ds[i].Verdict == Refused || !keep(w) {
			continue
		}
		if w.Seat == Standing {
			standing = append(standing, i)
		} else {
			seated = append(seated, i)
		}
	}
	return append(seated, standing...)
}

// step is the unit a stake on bet b is cut back in: 1, or with exact payouts the
// smallest stake whose every win is whole (2 for Banker at 1:2, 20 at 0.95:1).
func (j *judge) step(b Bet) Money {
	if j.pay.Rounded {
		return 1
	}
	step := int64(1)
	for _, p := range j.rs.paidAt(b) {
		n := int64(p.odds.Den) / gcd(int64(p.odds.Num), int64(p.odds.Den))
		step = step / gcd(step, n) * n
	}
	return Money(step)
}

// minimum is bet b's minimum, or 1 unit when it has none.
func (j *judge) minimum(b Bet) Money {
	if m, ok := j.l.Min[b]; ok {
		return m
	}
	return 1
}

// fill takes the wagers idx in order, each as much of what is left of room as it can in
// whole steps, and cuts back or refuses those that do not fit; what would be left under
// its bet's minimum is refused in full. why says why, for the rule.
func (j *judge) fill(idx []int, room Money, why string) {
	for _, i := range idx {
		d, w := &j.ds[i], j.ws[i]
		take := min(d.Effective, room)
		take -= take % j.step(w.Bet)
		switch {
		case take == d.Effective:
		case take == 0:
			j.set(i, Refused, 0, "%s", why)
		case take < j.minimum(w.Bet):
			j.set(i, Refused, 0, "%s; the %d left would be under the %s minimum of %d", why, take, w.Bet, j.minimum(w.Bet))
		default:
			j.set(i, CutBack, take, "%d of %d plays: %s", take, w.Stake, why)
		}
		room -= j.ds[i].Effective
	}
}

// maximum holds box's Bets on b to the maximum mx (RWS Baccarat 3.5).
func (j *judge) maximum(box string, b Bet, mx Money) {
	idx := j.priority(box, func(w Wager) bool { return w.Bet == b })
	var total Money
	for _, i := range idx {
		total += j.ds[i].Effective
	}
	if total <= mx {
		return
	}
	j.fill(idx, mx, fmt.Sprintf("box %s's %s Bets of %d are over its maximum of %d, seated player first (%s)", box, b, total, mx, j.rs.cite(RuleMaximum)))
}

// differential holds box's Differential to the maximum (RWS Baccarat 5.1, 5.1.1, 5.1.2)
// and says whether it changed any wager.
func (j *judge) differential(box string) bool {
	var banker, player Money
	for _, i := range j.priority(box, func(w Wager) bool { return w.Bet.Main() }) {
		if j.ws[i].Bet == BetBanker {
			banker += j.ds[i].Effective
		} else {
			player += j.ds[i].Effective
		}
	}
	heavy, light, high := BetBanker, player, banker
	if player > banker {
		heavy, light, high = BetPlayer, banker, player
	}
	maxD := j.l.MaxDifferential
	if high-light <= maxD {
		return false
	}
	room := light + maxD
	idx := j.priority(box, func(w Wager) bool { return w.Bet == heavy })
	over := fmt.Sprintf("box %s's Differential of %d (%s %d, %s %d) is over the maximum of %d", box, high-light,
		BetBanker, banker, BetPlayer, player, maxD)
	before := j.total(idx)
	if j.l.Excess == ExcessReject {
		j.fill(idx, room, fmt.Sprintf("%s: the excess %s Bets are rejected, seated player first (%s)", over, heavy, j.rs.cite(RuleExcess)))
		return j.total(idx) != before
	}
	// Pro rata (5.1.1). The seated player's Bets take what the maximum allows first
	// (5.1); Bets under the minimum play as placed (5.1.2) and count next; the standing
	// players share what is left.
	var seated, under, standing []int
	for _, i := range idx {
		switch {
		case j.ds[i].Verdict == UnderMinimum:
			under = append(under, i)
			j.set(i, UnderMinimum, j.ds[i].Effective, "under the %s minimum of %d in a box over its maximum Differential: no pro rata, it wins or loses as placed (%s)",
				heavy, j.minimum(heavy), j.rs.cite(RuleExcessUnderMinimum))
		case j.ws[i].Seat == Standing:
			standing = append(standing, i)
		default:
			seated = append(seated, i)
		}
	}
	room -= j.proRata(seated, max(room, 0), over)
	room -= j.total(under)
	j.proRata(standing, max(room, 0), over)
	return j.total(idx) != before
}

// total is the effective stake of the wagers idx.
func (j *judge) total(idx []int) Money {
	var s Money
	for _, i := range idx {
		s += j.ds[i].Effective
	}
	return s
}

// proRata shares room among the wagers of group, each in proportion to its stake, when
// they do not all fit (RWS Baccarat 5.1.1), and returns what they take. A share that would
// fall under its bet's minimum is not played: that wager is refused (the smallest share
// first, the later one of equal shares) and the others share room again.
func (j *judge) proRata(group []int, room Money, over string) Money {
	var total Money
	for _, i := range group {
		total += j.ds[i].Effective
	}
	if total <= room {
		return total
	}
	in := slices.Clone(group)
	shares := map[int]Money{}
	for len(in) > 0 {
		var t Money
		for _, i := range in {
			t += j.ds[i].Effective
		}
		left := room
		low := -1
		for _, i := range in {
			s := j.share(j.ds[i].Effective, room, t, j.step(j.ws[i].Bet))
			s = min(s, left-left%j.step(j.ws[i].Bet))
			shares[i] = s
			left -= s
			if s < j.minimum(j.ws[i].Bet) && (low < 0 || s <= shares[low]) {
				low = i
			}
		}
		if low < 0 {
			break
		}
		w := j.ws[low]
		why := fmt.Sprintf("%s: its pro-rated stake of %d would be under the %s minimum of %d, so it neither wins nor loses (%s)",
			over, shares[low], w.Bet, j.minimum(w.Bet), j.rs.cite(RuleExcessProRata))
		if room == 0 {
			why = fmt.Sprintf("%s: nothing of the maximum is left for it, Bets before it in priority take it all (%s)", over, j.rs.cite(RuleExcess))
		}
		j.set(low, Refused, 0, "%s", why)
		in = slices.DeleteFunc(in, func(i int) bool { return i == low })
	}
	var took Money
	shared := j.total(in)
	for _, i := range in {
		s, w := shares[i], j.ws[i]
		took += s
		if s < w.Stake {
			j.set(i, CutBack, s, "%d of %d plays: %s: the Bets win or lose pro rata, %d of %d (%s)", s, w.Stake, over,
				room, shared, j.rs.cite(RuleExcessProRata))
		}
	}
	return took
}

// share is stake*room/total in whole steps, the fraction rounded by the table's rounding
// (Rounding.up): exact, with no float and no overflow.
func (j *judge) share(stake, room, total, step Money) Money {
	n := new(big.Int).Mul(big.NewInt(int64(stake)), big.NewInt(int64(room)))
	d := new(big.Int).Mul(big.NewInt(int64(total)), big.NewInt(int64(step)))
	q, r := new(big.Int).QuoRem(n, d, new(big.Int))
	v := q.Int64()
	if j.pay.Rounding.up(r.Int64(), d.Int64()) {
		v++
	}
	return Money(v) * step
}
