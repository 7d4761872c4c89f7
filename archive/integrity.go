package archive

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tablectl/tablectl/analysis"
	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/integrity"
	"github.com/tablectl/tablectl/round"
)

// IntegrityOptions are the settings of the integrity watch (docs/integrity.md, "What
// the archive checks"). A zero field takes its default.
type IntegrityOptions struct {
	// Off turns the watch off: no set is kept, no alarm raised.
	Off bool
	// Window is how far apart, by their last records' times, two shoes may be and still
	// be compared for a repeated order (0: DefaultIntegrityWindow).
	Window time.Duration
	// MinRun is the shortest run two shoes may share before it is an alarm (0:
	// integrity.DefaultFloor.MinRun(), 11). The index keys runs of MinRun cards, at most
	// integrity.MaxKey.
	MinRun int
	// Sets is how many of a table's last sets the weak-shuffle p-values are combined
	// over (0: DefaultIntegritySets).
	Sets int
	// ShuffleAlarm is the p-value at or below which a shuffle is an alarm, one set's or
	// the last Sets' combined (0: integrity.ShuffleAlarm).
	ShuffleAlarm float64
	// DriftRatio is the raised rate of a result the drift looks for, as a multiple of its
	// exact rate (0: DefaultDriftRatio); DriftARL the rounds, on average, honest play
	// deals at least between two false alarms of one table and result (0:
	// DefaultDriftARL).
	DriftRatio, DriftARL float64
}

// The integrity watch's defaults.
const (
	DefaultIntegrityWindow = 90 * 24 * time.Hour
	DefaultIntegritySets   = 10
	DefaultDriftRatio      = 1.25
	DefaultDriftARL        = 1e6
)

// WithDefaults is o with each zero field at its default.
func (o IntegrityOptions) WithDefaults() IntegrityOptions {
	if o.Window <= 0 {
		o.Window = DefaultIntegrityWindow
	}
	if o.MinRun <= 0 {
		o.MinRun = integrity.DefaultFloor.MinRun()
	}
	if o.Sets <= 0 {
		o.Sets = DefaultIntegritySets
	}
	if o.ShuffleAlarm <= 0 {
		o.ShuffleAlarm = integrity.ShuffleAlarm
	}
	if o.DriftRatio <= 1 {
		o.DriftRatio = DefaultDriftRatio
	}
	if o.DriftARL <= 1 {
		o.DriftARL = DefaultDriftARL
	}
	return o
}

// keyLen is the length of the runs the index keys.
func (o IntegrityOptions) keyLen() int { return min(o.MinRun, integrity.MaxKey) }

// openSet is the set in play at a table, as its records give it: the record that
// started it, its shoe, the shuffler's set and report of it, and the cards read.
type openSet struct {
	seq      uint64
	shoe     uint32
	set      string
	decks    int
	at       time.Time
	setCards int
	order    []baccarat.Card
	cards    []baccarat.Card
	lastNo   uint64 // the shoe's number of the last card read (a card sent again has it)
}

// endedSet is a set whose end the deriver saw, its repeated-order check still to do
// (Archive.watchRows): it reads the other shoes of the floor.
type endedSet struct {
	ref     history.ShoeRef
	lastSeq uint64
	decks   int
	cards   []baccarat.Card
	set     *openSet
	prevSeq uint64 // the first record of the table's set before it, when it dealt that set's order (0: none)
}

// watchState is what the watch keeps of a table across its sets, with the replay
// state: the previous set (its dealt order, a card a byte, and which set it was), the
// last sets' weak-shuffle p-values, and each result's drift with the rule set and decks
// it follows.
type watchState struct {
	Prev    []byte               `json:"prev,omitempty"`
	PrevRef history.ShoeRef      `json:"prev_ref,omitzero"`
	PS      []float64            `json:"ps,omitempty"`
	Rules   string               `json:"rules,omitempty"`
	Decks   int                  `json:"decks,omitempty"`
	Drift   map[string]driftKept `json:"drift,omitempty"`
}

// driftKept is one result's drift, and the time of the first round it counts.
type driftKept struct {
	integrity.DriftState
	Since time.Time `json:"since,omitzero"`
}

// cardBytes writes cards a byte each (baccarat.Card.Index), as the shoes table keeps
// an order.
func cardBytes(cs []baccarat.Card) []byte {
	b := make([]byte, len(cs))
	for i, c := range cs {
		b[i] = byte(c.Index())
	}
	return b
}

// bytesCards reads cardBytes back; a byte that is no card is left out.
func bytesCards(b []byte) []baccarat.Card {
	cs := make([]baccarat.Card, 0, len(b))
	for _, x := range b {
		if x < 52 {
			cs = append(cs, baccarat.Card{Rank: baccarat.Rank(x%13 + 1), Suit: baccarat.Suit(x/13 + 1)})
		}
	}
	return cs
}

// watch follows record seq, event ev with its effects, for the integrity watch: the
// cards read into the set in play; a set's start and end; each round's result into the
// drifts. It returns the statements of the alarms found from the table's own records; a
// set ended waits in d.ended for the check against the floor's other shoes.
func (d *deriver) watch(seq uint64, ev round.Event, effs []round.Effect) []stmt {
	if d.ig == nil || d.ig.Off {
		return nil
	}
	var out []stmt
	if s := d.set; s != nil && ev.Kind == round.CardDrawn && ev.Card.Valid() &&
		(ev.Seq == 0 || ev.Seq != s.lastNo || ev.Renumbered) {
		s.cards = append(s.cards, ev.Card)
		s.lastNo = ev.Seq
	}
	for _, f := range effs {
		switch f.Kind {
		case round.ShoeStarted, round.SetLoaded:
			at := cmp.Or(f.At(), ev.At)
			if d.set != nil {
				out = append(out, d.endSet(seq, at)...)
			}
			d.set = &openSet{seq: seq, shoe: f.Shoe, set: f.Set(), decks: f.Count, at: at}
			if ev.Kind == round.NewShoe {
				d.set.setCards, d.set.order = ev.Cards, slices.Clone(ev.Order)
			}
			d.followRules(f.Count)
		case round.ShoeEnded:
			if d.set != nil {
				out = append(out, d.endSet(seq, cmp.Or(f.At(), ev.At))...)
			}
		case round.RoundSettled:
			out = append(out, d.drift(f)...)
		}
	}
	return out
}

// state is the watch's state, made when there is none.
func (d *deriver) state() *watchState {
	if d.x.Watch == nil {
		d.x.Watch = &watchState{}
	}
	return d.x.Watch
}

// endSet ends the set in play at record seq, time at: the checks of the table's own
// records (the set accounted, the shuffler's input, the weak shuffle), and the set
// kept for the repeated-order check. The set dealt the shuffler's input when half its
// cards or more lie in runs of MinRun cards or more of the previous set's order; the
// weak-shuffle test is then not needed.
func (d *deriver) endSet(seq uint64, at time.Time) []stmt {
	s := d.set
	d.set = nil
	if len(s.cards) == 0 {
		return nil
	}
	w := d.state()
	ref := history.ShoeRef{Table: d.table, Shoe: s.shoe, Set: s.set, FirstSeq: s.seq, Started: s.at, Ended: at}
	out := d.accountSet(s, ref)
	input := false
	if prev := bytesCards(w.Prev); len(prev) > 0 {
		prevRef := w.PrevRef
		runs := integrity.Runs(s.cards, prev, d.ig.MinRun)
		n := 0
		for _, r := range runs {
			n += r.Len
		}
		if input = 2*n >= len(s.cards); input {
			out = append(out, d.alarm(api.AlertIntegrityInput, alarmID(api.AlertIntegrityInput, ref), s.at, at,
				fmt.Sprintf("shoe %d (set %s) dealt %d of its %d cards in runs of the previous set's order, the shuffler's input",
					s.shoe, s.set, n, len(s.cards)),
				history.IntegrityEvidence{Shoe: ref, Other: &prevRef, Runs: sharedRuns(s.cards, runs)}))
		} else {
			r := integrity.ShuffleTest(prev, s.cards)
			if math.IsNaN(r.P) { // no statistic: nothing to say, and JSON holds no NaN
				r.P = 1
			}
			w.PS = append(w.PS, r.P)
			if len(w.PS) > d.ig.Sets {
				w.PS = slices.Delete(w.PS, 0, len(w.PS)-d.ig.Sets)
			}
			ev := history.IntegrityEvidence{Shoe: ref, Other: &prevRef, Neighbours: r.Neighbours, Expected: r.Expected, P: r.P,
				Combined: integrity.Combined(w.PS), PS: slices.Clone(w.PS), Alarm: d.ig.ShuffleAlarm}
			if math.IsNaN(ev.Combined) {
				ev.Combined = 1
			}
			switch {
			case r.P <= d.ig.ShuffleAlarm:
				out = append(out, d.alarm(api.AlertIntegrityShuffle, alarmID(api.AlertIntegrityShuffle, ref), s.at, at,
					fmt.Sprintf("shoe %d (set %s): %d cards follow the card they followed in the previous set, %.1f expected (p = %.3g)",
						s.shoe, s.set, r.Neighbours, r.Expected, r.P), ev))
				w.PS = nil
			case len(w.PS) > 1 && ev.Combined <= d.ig.ShuffleAlarm:
				out = append(out, d.alarm(api.AlertIntegrityShuffle, alarmID(api.AlertIntegrityShuffle, ref)+"/combined", s.at, at,
					fmt.Sprintf("shoe %d (set %s): the last %d shuffles, combined, leave too many neighbours together (p = %.3g)",
						s.shoe, s.set, len(ev.PS), ev.Combined), ev))
				w.PS = nil // the next alarm needs sets of its own
			}
		}
	}
	prevSeq := w.PrevRef.FirstSeq
	w.Prev, w.PrevRef = cardBytes(s.cards), ref
	if !input {
		prevSeq = 0 // the runs it shares with the set before, if any, are repeated orders
	}
	d.ended = append(d.ended, endedSet{ref: ref, lastSeq: seq, decks: s.decks, cards: s.cards, set: s, prevSeq: prevSeq})
	return out
}

// accountSet is the alarm of a set whose cards do not add up: a card dealt more often
// than the set's decks hold; where the shuffler reported its order, a card of it passed
// over, a card of which it holds no copy left (foreign, not counted as the set's), a
// card dealt where the order did not have it.
func (d *deriver) accountSet(s *openSet, ref history.ShoeRef) []stmt {
	ev := history.IntegrityEvidence{Shoe: ref, Dealt: len(s.cards), SetCards: s.setCards}
	var foreign [52]int
	if s.order != nil {
		order := slices.Clone(s.order)
		left := [52]int{}
		for _, c := range order {
			left[c.Index()]++
		}
		const look = 8 // how far ahead a card found in the order means the ones before it were passed over
		pos := 0
		for _, c := range s.cards {
			switch j := slices.Index(order[pos:min(pos+look+1, len(order))], c); {
			case j >= 0:
				for _, m := range order[pos : pos+j] {
					ev.Missing = append(ev.Missing, m.String())
					left[m.Index()]--
				}
				left[c.Index()]--
				pos += j + 1
			case left[c.Index()] == 0:
				ev.Foreign = append(ev.Foreign, c.String())
				foreign[c.Index()]++
			default:
				// A copy lies further in the order: dealt out of its place, taken from the
				// order's copies still to come.
				ev.Misplaced = append(ev.Misplaced, c.String())
				left[c.Index()]--
				if k := slices.Index(order[pos:], c); k >= 0 {
					order = slices.Delete(order, pos+k, pos+k+1)
				}
			}
		}
		ev.Undealt = len(order) - pos
	}
	if s.decks > 0 {
		var n [52]int
		for _, c := range s.cards {
			n[c.Index()]++
		}
		for i := range n {
			if got := n[i] - foreign[i]; got > s.decks {
				ev.Over = append(ev.Over, history.CardCount{Card: bytesCards([]byte{byte(i)})[0].String(), Dealt: got, Allowed: s.decks})
			}
		}
	}
	if len(ev.Over)+len(ev.Missing)+len(ev.Foreign)+len(ev.Misplaced) == 0 {
		return nil
	}
	var says []string
	for _, c := range ev.Over {
		says = append(says, fmt.Sprintf("%s dealt %d times, %d decks hold %d", c.Card, c.Dealt, s.decks, c.Allowed))
	}
	for _, l := range []struct {
		what  string
		cards []string
	}{{"missing", ev.Missing}, {"foreign", ev.Foreign}, {"out of the order", ev.Misplaced}} {
		if len(l.cards) > 0 {
			says = append(says, l.what+": "+strings.Join(l.cards, " "))
		}
	}
	return []stmt{d.alarm(api.AlertIntegritySet, alarmID(api.AlertIntegritySet, ref), s.at, ref.Ended,
		fmt.Sprintf("shoe %d (set %s): %s", s.shoe, s.set, strings.Join(says, "; ")), ev)}
}

// followRules sets the drifts to the rule set and decks of the set starting: they start
// again from 0 when either changed.
func (d *deriver) followRules(decks int) {
	w := d.state()
	if w.Rules != d.rules || w.Decks != decks {
		w.Rules, w.Decks, w.Drift = d.rules, decks, nil
	}
}

// drift follows a settled round's result with each result's CUSUM, and returns the
// alarm of one that reached its threshold.
func (d *deriver) drift(f round.Effect) []stmt {
	w := d.state()
	set := d.rp.Settings()
	if set == nil || set.Round.Rules == nil || w.Decks <= 0 {
		return nil
	}
	p0, err := exactRates(set.Round.Rules, w.Decks)
	if err != nil {
		return nil
	}
	winner := winnerName(f.Outcome().Winner)
	var out []stmt
	for _, o := range []string{"banker", "player", "tie"} {
		dr, err := integrity.NewDrift(p0[o], d.ig.DriftRatio, d.ig.DriftARL)
		if err != nil {
			continue
		}
		if w.Drift == nil {
			w.Drift = map[string]driftKept{}
		}
		k := w.Drift[o]
		dr.SetState(k.DriftState)
		if k.Rounds == 0 {
			k.Since = f.At()
		}
		a, alarmed := dr.Add(winner == o)
		k.DriftState = dr.State()
		if alarmed {
			ref := history.ShoeRef{Table: d.table, Shoe: f.Shoe}
			if d.set != nil {
				ref.Set, ref.FirstSeq, ref.Started = d.set.set, d.set.seq, d.set.at
			}
			id := fmt.Sprintf("%s/%s/%s/%s", api.AlertIntegrityDrift, d.table, f.At().UTC().Format(time.RFC3339Nano), o)
			out = append(out, d.alarm(api.AlertIntegrityDrift, id, k.Since, f.At(),
				fmt.Sprintf("%s won %d of %d rounds, %.1f expected at the exact %.4f", o, a.Seen, a.Rounds, a.Expected, p0[o]),
				history.IntegrityEvidence{Shoe: ref, Outcome: o, Rounds: a.Rounds, Seen: a.Seen, RoundsExpected: a.Expected,
					P0: p0[o], P1: dr.P1, Sum: a.Sum, H: dr.H, ARL: d.ig.DriftARL}))
			k = driftKept{}
		}
		w.Drift[o] = k
	}
	return out
}

// rates are the exact rates of the results, by rule set and decks.
var rates = struct {
	sync.Mutex
	of map[string]map[string]float64
}{of: map[string]map[string]float64{}}

// exactRates are the exact rates of Banker, Player and Tie under rs with decks decks
// (package analysis), worked out once for each.
func exactRates(rs *baccarat.RuleSet, decks int) (map[string]float64, error) {
	key := fmt.Sprintf("%s/%d", rs.Name, decks)
	rates.Lock()
	defer rates.Unlock()
	if r, ok := rates.of[key]; ok {
		return r, nil
	}
	rep, err := analysis.Analyze(rs, decks)
	if err != nil {
		return nil, err
	}
	rate := func(w analysis.Weight) float64 {
		f, _ := new(big.Rat).SetFrac(new(big.Int).SetUint64(uint64(w)), new(big.Int).SetUint64(uint64(rep.TotalWeight))).Float64()
		return f
	}
	r := map[string]float64{"banker": rate(rep.Outcomes.Banker), "player": rate(rep.Outcomes.Player), "tie": rate(rep.Outcomes.Tie)}
	rates.of[key] = r
	return r, nil
}

// alarmID names the alarm of kind of a shoe: the kind, the table, the shoe's first
// record's time and its number there ("integrity-set/pit3-t07/2026-03-02T14:03:00Z/17").
func alarmID(kind string, s history.ShoeRef) string {
	return fmt.Sprintf("%s/%s/%s/%d", kind, s.Table, s.Started.UTC().Format(time.RFC3339Nano), s.Shoe)
}

// alarm is the statement raising an integrity alarm of the table's: kept once, by its
// id, with its evidence.
func (d *deriver) alarm(kind, id string, since, raised time.Time, text string, ev history.IntegrityEvidence) stmt {
	return alarmStmt(d.db, d.table, kind, id, since, raised, text, ev, d.now)
}

// alarmStmt is the statement raising an integrity alarm of table: the alert, its pit
// the table's, received at now (the raising's time when now is nil).
func alarmStmt(db *DB, table, kind, id string, since, raised time.Time, text string, ev history.IntegrityEvidence, now func() time.Time) stmt {
	b, err := json.Marshal(ev)
	if err != nil { // no field of the evidence fails to marshal but a NaN, which none holds
		b = []byte("{}")
	}
	if len(text) > api.MaxAlertText {
		text = text[:api.MaxAlertText-3] + "..."
	}
	received := raised
	if now != nil {
		received = now()
	}
	if since.IsZero() {
		since = raised
	}
	return stmt{query: `INSERT INTO alerts (id, table_id, pit, kind, since, raised_at, text, received_at, evidence)
		VALUES ($1, $2, COALESCE((SELECT pit FROM tables WHERE table_id = $2), ''), $3, $4, $5, $6, $7, $8)
		ON CONFLICT (id) DO NOTHING`,
		args: []any{id, table, kind, db.ts(since), db.ts(raised), text, db.ts(received), string(b)}}
}

// sharedRuns are runs of a as the evidence names them.
func sharedRuns(a []baccarat.Card, runs []integrity.Run) []history.SharedRun {
	out := make([]history.SharedRun, len(runs))
	for i, r := range runs {
		out[i] = history.SharedRun{A: r.A, B: r.B, Len: r.Len, Cards: cardList(a[r.A : r.A+r.Len])}
	}
	return out
}

// queuedSet is a set whose rows this transaction writes: the repeated-order check of a
// set after it in the same transaction compares with it too.
type queuedSet struct {
	ref   history.ShoeRef
	cards []baccarat.Card
}

// watchRows returns the rows of the sets der saw end: each set's row and its keys, and
// the alarms of the runs it shares with a shoe of the floor within the window (the
// table's previous set aside when the set dealt it as its shuffler's input: the
// deriver's alarm). Each pair
// of shoes is compared once, when the second of them is stored, whichever it is; the
// alarm names the later shoe (by its first record's time) first.
func (a *Archive) watchRows(ctx context.Context, der *deriver) ([]stmt, error) {
	ended := der.ended
	der.ended = nil
	var out []stmt
	o := a.opt.Integrity
	for _, e := range ended {
		if a.shoeID < 0 {
			var n int64
			if err := a.db.sql.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM shoes`).Scan(&n); err != nil {
				return nil, fmt.Errorf("the shoes: %w", err)
			}
			a.shoeID = n
		}
		a.shoeID++
		id := a.shoeID
		var setCards, setOrder any
		if e.set.setCards != 0 {
			setCards = int64(e.set.setCards)
		}
		if e.set.order != nil {
			setOrder = cardBytes(e.set.order)
		}
		out = append(out, stmt{query: `INSERT INTO shoes (id, table_id, shoe, first_seq, last_seq, set_name, decks, started_at, ended_at,
			dealt, set_cards, set_order) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			args: []any{id, e.ref.Table, int64(e.ref.Shoe), int64(e.ref.FirstSeq), int64(e.lastSeq), e.ref.Set, int64(e.decks),
				a.db.ts(e.ref.Started), a.db.ts(e.ref.Ended), cardBytes(e.cards), setCards, setOrder}})
		keys := integrity.Keys(e.cards, o.keyLen())
		for pos, k := range keys {
			out = append(out, stmt{query: `INSERT INTO shoe_keys (key, shoe, pos) VALUES ($1, $2, $3)`, args: []any{k, id, int64(pos)}})
		}
		others, err := a.sharing(ctx, keys, e.ref.Ended)
		if err != nil {
			return nil, err
		}
		for _, q := range a.queued {
			if e.ref.Ended.Sub(q.ref.Ended).Abs() <= o.Window && sharesKey(q.cards, keys, o.keyLen()) {
				others = append(others, q)
			}
		}
		for _, other := range others {
			if other.ref.Table == e.ref.Table && other.ref.FirstSeq == e.prevSeq {
				continue // the shuffler's input
			}
			out = append(out, a.repeated(queuedSet{ref: e.ref, cards: e.cards}, other)...)
		}
		a.queued = append(a.queued, queuedSet{ref: e.ref, cards: e.cards})
	}
	return out, nil
}

// sharesKey says whether cards have a run of n cards whose key is among keys.
func sharesKey(cards []baccarat.Card, keys []int64, n int) bool {
	for _, k := range integrity.Keys(cards, n) {
		if slices.Contains(keys, k) {
			return true
		}
	}
	return false
}

// sharing returns the shoes stored whose index holds one of keys and whose last record
// is within the window of ended: one query.
func (a *Archive) sharing(ctx context.Context, keys []int64, ended time.Time) ([]queuedSet, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	keys = slices.Compact(slices.Sorted(slices.Values(keys)))
	// The keys are written into the query as numbers: SQLite finds each numbered
	// parameter by a walk of those before it, n² for the 400 keys of a shoe.
	var in strings.Builder
	for i, k := range keys {
		if i > 0 {
			in.WriteString(", ")
		}
		in.WriteString(strconv.FormatInt(k, 10))
	}
	w := a.opt.Integrity.Window
	rows, err := a.db.sql.QueryContext(ctx, `SELECT table_id, shoe, first_seq, set_name, started_at, ended_at, dealt FROM shoes
		WHERE id IN (SELECT shoe FROM shoe_keys WHERE key IN (`+in.String()+`))
		AND ended_at >= $1 AND ended_at <= $2 ORDER BY id`, a.db.ts(ended.Add(-w)), a.db.ts(ended.Add(w)))
	if err != nil {
		return nil, fmt.Errorf("the shoes sharing a run: %w", err)
	}
	defer rows.Close()
	var out []queuedSet
	for rows.Next() {
		var q queuedSet
		var shoe, first int64
		var started, endedAt any
		var dealt []byte
		if err := rows.Scan(&q.ref.Table, &shoe, &first, &q.ref.Set, &started, &endedAt, &dealt); err != nil {
			return nil, fmt.Errorf("the shoes sharing a run: %w", err)
		}
		q.ref.Shoe, q.ref.FirstSeq = uint32(shoe), uint64(first)
		if q.ref.Started, err = scanTime(started); err == nil {
			q.ref.Ended, err = scanTime(endedAt)
		}
		if err != nil {
			return nil, fmt.Errorf("the shoes sharing a run: %w", err)
		}
		q.cards = bytesCards(dealt)
		out = append(out, q)
	}
	return out, rows.Err()
}

// laterShoe says whether shoe x comes after shoe y: by its first record's time, then table
// and first record.
func laterShoe(x, y history.ShoeRef) bool {
	if c := x.Started.Compare(y.Started); c != 0 {
		return c > 0
	}
	if c := cmp.Compare(x.Table, y.Table); c != 0 {
		return c > 0
	}
	return x.FirstSeq > y.FirstSeq
}

// repeated is the alarm of the runs shoes x and y share, if any of MinRun cards or
// more: named, and raised, by the later of them, so that either order of storing them
// raises the same alarm once.
func (a *Archive) repeated(x, y queuedSet) []stmt {
	if !laterShoe(x.ref, y.ref) {
		x, y = y, x
	}
	runs := integrity.Runs(x.cards, y.cards, a.opt.Integrity.MinRun)
	if len(runs) == 0 {
		return nil
	}
	longest := slices.MaxFunc(runs, func(p, q integrity.Run) int { return cmp.Compare(p.Len, q.Len) })
	id := fmt.Sprintf("%s/%s/%s/%d/%s/%s/%d", api.AlertIntegrityRepeated, x.ref.Table, x.ref.Started.UTC().Format(time.RFC3339Nano), x.ref.Shoe,
		y.ref.Table, y.ref.Started.UTC().Format(time.RFC3339Nano), y.ref.Shoe)
	raised := x.ref.Ended
	if y.ref.Ended.After(raised) {
		raised = y.ref.Ended
	}
	other := y.ref
	text := fmt.Sprintf("shoe %d (set %s) of %s repeats %d cards of shoe %d (set %s) of %s: card %d there, card %d here",
		x.ref.Shoe, x.ref.Set, x.ref.Table, longest.Len, y.ref.Shoe, y.ref.Set, y.ref.Table, longest.B+1, longest.A+1)
	if len(runs) > 1 {
		text += fmt.Sprintf(" (%d runs)", len(runs))
	}
	return []stmt{alarmStmt(a.db, x.ref.Table, api.AlertIntegrityRepeated, id, x.ref.Started, raised, text,
		history.IntegrityEvidence{Shoe: x.ref, Other: &other, Runs: sharedRuns(x.cards, runs)}, a.opt.Now)}
}

// IntegrityAlarms are the integrity watch's alarms s chooses (its Kind one of the
// integrity kinds, every one of them when empty), in the order they were raised (then
// by ID), each with its acknowledgement and evidence.
func (d *DB) IntegrityAlarms(ctx context.Context, s history.AlertSearch) ([]history.IntegrityAlarm, error) {
	var q filter
	if !s.From.IsZero() {
		q.and("raised_at >= " + q.arg(d.ts(s.From)))
	}
	if !s.To.IsZero() {
		q.and("raised_at < " + q.arg(d.ts(s.To)))
	}
	if s.Table != "" {
		q.and("table_id = " + q.arg(s.Table))
	}
	if s.Kind != "" {
		q.and("kind = " + q.arg(s.Kind))
	} else {
		q.and("kind LIKE " + q.arg(api.IntegrityAlertPrefix+"%"))
	}
	if s.ID != "" {
		q.and("id = " + q.arg(s.ID))
	}
	if s.Open {
		q.and("ack_at IS NULL")
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT id, table_id, pit, kind, since, raised_at, text,
		COALESCE(ack_by, ''), COALESCE(ack_role, ''), ack_at, COALESCE(ack_note, ''), COALESCE(evidence, '')
		FROM alerts`+q.sql()+` ORDER BY raised_at, id`, q.args...)
	if err != nil {
		return nil, fmt.Errorf("archive: the integrity alarms: %w", err)
	}
	defer rows.Close()
	var out []history.IntegrityAlarm
	for rows.Next() {
		var al history.IntegrityAlarm
		var since, raised, ackAt any
		var ev string
		if err := rows.Scan(&al.ID, &al.Table, &al.Pit, &al.Kind, &since, &raised, &al.Text, &al.AckBy, &al.AckRole, &ackAt, &al.AckNote, &ev); err != nil {
			return nil, fmt.Errorf("archive: the integrity alarms: %w", err)
		}
		for _, c := range []struct {
			v  any
			to *time.Time
		}{{since, &al.Since}, {raised, &al.Raised}, {ackAt, &al.AckAt}} {
			if *c.to, err = scanTime(c.v); err != nil {
				return nil, fmt.Errorf("archive: the integrity alarms: %w", err)
			}
		}
		if ev != "" {
			if err := json.Unmarshal([]byte(ev), &al.Evidence); err != nil {
				return nil, fmt.Errorf("archive: the integrity alarm %s: its evidence: %w", al.ID, err)
			}
		}
		out = append(out, al)
	}
	return out, rows.Err()
}

// PositionDepth and PositionParts are the position test's tally: the first 400 cards
// of each set, in 8 parts of 50 (docs/integrity.md, "The position test").
const (
	PositionDepth = 400
	PositionParts = 8
)

// Positions is the position test of COMAR 36.05.02.17 over the sets table dealt whose
// last record is in [from, to) (either zero: unbounded): each set's first PositionDepth
// cards read tallied in PositionParts parts (integrity.Positions); a set dealt shorter
// is counted in Short and left out.
func (d *DB) Positions(ctx context.Context, table string, from, to time.Time) (history.PositionsReport, error) {
	rep := history.PositionsReport{Table: table, From: from, To: to, Depth: PositionDepth, Buckets: PositionParts}
	var q filter
	q.and("table_id = " + q.arg(table))
	if !from.IsZero() {
		q.and("ended_at >= " + q.arg(d.ts(from)))
	}
	if !to.IsZero() {
		q.and("ended_at < " + q.arg(d.ts(to)))
	}
	p, err := integrity.NewPositions(PositionDepth, PositionParts)
	if err != nil {
		return rep, err
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT dealt FROM shoes`+q.sql()+` ORDER BY ended_at, id`, q.args...)
	if err != nil {
		return rep, fmt.Errorf("archive: the positions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var dealt []byte
		if err := rows.Scan(&dealt); err != nil {
			return rep, fmt.Errorf("archive: the positions: %w", err)
		}
		if p.Add(bytesCards(dealt)) != nil {
			rep.Short++
		}
	}
	if err := rows.Err(); err != nil {
		return rep, fmt.Errorf("archive: the positions: %w", err)
	}
	r := p.Test()
	rep.Sets, rep.Chi2, rep.DF, rep.P, rep.Passes = r.Sets, r.Chi2, r.DF, r.P, r.Passes
	if math.IsNaN(rep.Chi2) {
		rep.Chi2 = 0
	}
	for i := range 52 {
		c := bytesCards([]byte{byte(i)})[0]
		rep.Cards = append(rep.Cards, c.String())
		row := make([]int64, PositionParts)
		for b := range row {
			row[b] = p.Count(i, b)
		}
		rep.Counts = append(rep.Counts, row)
	}
	return rep, nil
}
