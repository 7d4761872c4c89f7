// Package report turns a table's journal, replayed through the round controller, into the
// shoe reports surveillance, regulators and the pit read: for each shoe the set and its
// shuffle, every round with its cards, points, outcome and settlements, every
// irregularity with its rule and who decided what and when, device disconnects, power
// interruptions and restarts, the signed chain heads, and a summary per shoe and per day.
// It reads nothing itself: the caller feeds it the replay (Builder) and writes the Report
// as HTML, CSV or JSON lines. docs/reports.md describes the formats.
package report

import (
	"slices"
	"sort"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
)

// Report is everything a journal tells of a table's shoes.
type Report struct {
	// Table is the table's id and Rules its rule set, as the journal's last settings say.
	Table, Rules string
	// Shoes are the shoes in the order they were dealt.
	Shoes []*Shoe
	// Restarts are the times the table started on this journal, in order (the first is
	// its first start).
	Restarts []Restart
	// Checkpoints are the signed chain heads of the journal's heads file.
	Checkpoints []journal.Checkpoint
	// Days is the summary for each day (UTC) with play, in order.
	Days []DaySummary
}

// Restart is one start of the table on the journal.
type Restart struct {
	// Record is the journal record of the settings written at the start.
	Record uint64
	// Table and Rules are the settings then.
	Table, Rules string
	// After is the time of the last event before the start (zero for the first start).
	After time.Time
}

// Shoe is one shoe: a set loaded, dealt and ended.
type Shoe struct {
	Number uint32
	// Set is the set's identity, Decks its decks and Cards the shuffler's count (0 when
	// unknown).
	Set          string
	Decks, Cards int
	// Shuffle says what the journal holds of the shuffle: the shuffler's recorded order
	// (its length) or none.
	OrderRecorded int
	// Started and Ended are the times of the set's loading and of the shoe's end (zero
	// while the shoe is in play).
	Started, Ended time.Time
	// FirstRecord and LastRecord are the journal records the shoe spans.
	FirstRecord, LastRecord uint64
	// Burned are the cards burned, in order.
	Burned []baccarat.Card
	// Rounds are the rounds dealt from the shoe, settled or void.
	Rounds []*Round
	// Irregularities are those raised while the shoe was in play.
	Irregularities []*Irregularity
	// Events are the device disconnects and returns, power interruptions and restarts
	// while the shoe was in play.
	Events []Event
	// Checkpoints are the signed chain heads of records in the shoe's span.
	Checkpoints []journal.Checkpoint
	// Summary is the shoe's figures.
	Summary Summary

	cardTimes []time.Time // when each card was drawn from the shoe
}

// Round is one round: its cards, result and settlements.
type Round struct {
	Number uint32
	// Started is the time of the round's first event (bets closed or its first card),
	// Ended that of its settlement or void.
	Started, Ended time.Time
	// Player and Banker are the cards of each hand, by slot order.
	Player, Banker []baccarat.Card
	// Outcome is the round's result (zero for a void round before its cards were
	// complete).
	Outcome baccarat.Outcome
	// Complete is true when the round's cards were complete.
	Complete bool
	// Void is true for a void round, with the reason.
	Void       bool
	VoidReason string
	// Settlements are the table's settlements of the wagers it knew.
	Settlements []round.Settlement
	// Irregularities are the ids of the irregularities raised in the round.
	Irregularities []uint32
	// FirstRecord and LastRecord are the journal records of the round's events.
	FirstRecord, LastRecord uint64
}

// Irregularity is one irregularity and what became of it.
type Irregularity struct {
	ID    uint32
	Kind  irregularities.Kind
	Rule  string // the rule of the table's rule set, e.g. "RWS Baccarat 5.10"
	Round uint32
	// Raised is when it was raised, Reason what was seen.
	Raised time.Time
	Reason string
	// Holds is true when it held the table for a decision.
	Holds bool
	// Decision is who decided what and when; nil while none was made.
	Decision *Decision
}

// Decision is the resolution of an irregularity.
type Decision struct {
	Choice irregularities.Choice
	// Role and Actor are who decided; Role 0 means the rule itself.
	Role   irregularities.Role
	Actor  string
	At     time.Time
	Reason string
}

// EventKind names the table events a report lists beside the rounds.
type EventKind string

// The events listed.
const (
	DeviceLost    EventKind = "device-lost"
	DeviceBack    EventKind = "device-back"
	PowerRestored EventKind = "power-restored"
	TableStarted  EventKind = "table-started"
)

// Event is a device disconnect or return, a power interruption or a restart.
type Event struct {
	Kind   EventKind
	At     time.Time
	Detail string
	Record uint64
}

// Summary is the pit's figures for a shoe or a day.
type Summary struct {
	// Rounds settled, by winner, and void.
	Rounds, Banker, Player, Tie, Void int
	// Irregularities counts them by catalogue id.
	Irregularities map[string]int
	// Held is the time the table was held for decisions (overlapping holds counted once).
	Held time.Duration
	// Cards is the number of cards drawn from the shoe (placed and burned) and Dealing the
	// time from the first card to the last, less the time held; CardsPerHour is Cards over
	// Dealing, 0 when Dealing is under a minute.
	Cards        int
	Dealing      time.Duration
	CardsPerHour int
}

// DaySummary is the summary of one day.
type DaySummary struct {
	Day string // YYYY-MM-DD, UTC
	Summary
}

// Builder assembles a Report from a journal's replay, record by record.
type Builder struct {
	r       Report
	shoe    *Shoe
	rnd     *Round
	irr     map[uint32]*Irregularity
	last    time.Time
	rules   string
	lastRec uint64
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{irr: map[uint32]*Irregularity{}}
}

// Settings takes the settings record seq, written at each start of the table.
func (b *Builder) Settings(seq uint64, table, rules string) {
	b.r.Table, b.r.Rules, b.rules = table, rules, rules
	rs := Restart{Record: seq, Table: table, Rules: rules, After: b.last}
	b.r.Restarts = append(b.r.Restarts, rs)
	if b.shoe != nil && b.shoe.Ended.IsZero() {
		b.shoe.Events = append(b.shoe.Events, Event{Kind: TableStarted, At: b.last, Record: seq,
			Detail: "the table was started again on its journal"})
	}
}

// Event takes the event of record seq and the effects the controller gave it.
func (b *Builder) Event(seq uint64, ev round.Event, effs []round.Effect) {
	b.lastRec = seq
	if !ev.At.IsZero() {
		b.last = ev.At
	}
	switch ev.Kind {
	case round.DeviceLost, round.DeviceBack, round.PowerRestored:
		if b.shoe != nil {
			kind := map[round.EventKind]EventKind{round.DeviceLost: DeviceLost, round.DeviceBack: DeviceBack,
				round.PowerRestored: PowerRestored}[ev.Kind]
			b.shoe.Events = append(b.shoe.Events, Event{Kind: kind, At: ev.At, Detail: ev.Detail, Record: seq})
		}
	case round.NewShoe:
		// The shoe itself starts with its ShoeStarted effect; the order is the event's.
		defer func() {
			if b.shoe != nil && b.shoe.FirstRecord == seq {
				b.shoe.Cards, b.shoe.OrderRecorded = ev.Cards, len(ev.Order)
			}
		}()
	}
	for _, e := range effs {
		b.effect(seq, e)
	}
	if b.shoe != nil {
		b.shoe.LastRecord = seq
	}
	if b.rnd != nil {
		b.rnd.LastRecord = seq
	}
}

func (b *Builder) effect(seq uint64, e round.Effect) {
	switch e.Kind {
	case round.ShoeStarted:
		b.shoe = &Shoe{Number: e.Shoe, Set: e.Set(), Decks: e.Count, Started: e.At(), FirstRecord: seq}
		b.r.Shoes = append(b.r.Shoes, b.shoe)
		b.rnd = nil
	case round.CardBurned:
		if b.shoe != nil {
			b.shoe.Burned = append(b.shoe.Burned, e.Card)
			b.shoe.cardTimes = append(b.shoe.cardTimes, e.At())
		}
	case round.BettingClosed:
		b.round(seq, e)
	case round.CardPlaced:
		r := b.round(seq, e)
		if e.Slot.Player() {
			r.Player = append(r.Player, e.Card)
		} else {
			r.Banker = append(r.Banker, e.Card)
		}
		if b.shoe != nil {
			b.shoe.cardTimes = append(b.shoe.cardTimes, e.At())
		}
	case round.Reconstructed:
		r := b.round(seq, e)
		r.Player, r.Banker = handCards(e.Coup().Player), handCards(e.Coup().Banker)
	case round.RoundComplete:
		r := b.round(seq, e)
		r.Player, r.Banker = handCards(e.Coup().Player), handCards(e.Coup().Banker)
		r.Outcome, r.Complete = e.Outcome(), true
	case round.RoundSettled, round.RoundVoided:
		r := b.round(seq, e)
		r.Ended, r.Settlements = e.At(), e.Settlements()
		if e.Kind == round.RoundVoided {
			r.Void, r.VoidReason = true, e.Reason()
		} else {
			r.Outcome, r.Complete = e.Outcome(), true
		}
		b.rnd = nil
	case round.IrregularityRaised:
		entry := irregularities.Lookup(e.Irregularity)
		irr := &Irregularity{ID: e.ID, Kind: e.Irregularity, Rule: irregularities.Rule(e.Irregularity, b.rules),
			Round: e.Round, Raised: e.At(), Reason: e.Reason(), Holds: len(entry.Choices) > 0}
		b.irr[e.ID] = irr
		if b.shoe != nil {
			b.shoe.Irregularities = append(b.shoe.Irregularities, irr)
		}
		if b.rnd != nil && b.rnd.Number == e.Round {
			b.rnd.Irregularities = append(b.rnd.Irregularities, e.ID)
		}
	case round.IrregularityResolved:
		if irr, ok := b.irr[e.ID]; ok {
			irr.Decision = &Decision{Choice: e.Choice, Role: e.Role, Actor: e.Actor(), At: e.At(), Reason: e.Reason()}
		}
	case round.ShoeEnded:
		if b.shoe != nil {
			b.shoe.Ended = e.At()
		}
		b.rnd = nil
	}
}

// round returns the round in play, starting it at effect e when there is none.
func (b *Builder) round(seq uint64, e round.Effect) *Round {
	if b.rnd == nil || b.rnd.Number != e.Round {
		b.rnd = &Round{Number: e.Round, Started: e.At(), FirstRecord: seq}
		if b.shoe == nil {
			b.shoe = &Shoe{Number: e.Shoe, FirstRecord: seq}
			b.r.Shoes = append(b.r.Shoes, b.shoe)
		}
		b.shoe.Rounds = append(b.shoe.Rounds, b.rnd)
	}
	return b.rnd
}

func handCards(h baccarat.Hand) []baccarat.Card {
	cs := make([]baccarat.Card, h.Len())
	for i := range cs {
		cs[i] = h.Card(i)
	}
	return cs
}

// Finish returns the Report, with the checkpoints of the journal's heads file placed in
// the shoes whose records they vouch for, and the summaries computed. A round still in
// play (neither settled nor void) is left out of the summaries.
func (b *Builder) Finish(heads []journal.Checkpoint) *Report {
	r := &b.r
	r.Checkpoints = heads
	for _, c := range heads {
		for _, s := range r.Shoes {
			if c.Seq >= s.FirstRecord && c.Seq <= s.LastRecord {
				s.Checkpoints = append(s.Checkpoints, c)
				break
			}
		}
	}
	days := map[string]*DaySummary{}
	day := func(t time.Time) *Summary {
		k := t.UTC().Format(time.DateOnly)
		if days[k] == nil {
			days[k] = &DaySummary{Day: k, Summary: Summary{Irregularities: map[string]int{}}}
		}
		return &days[k].Summary
	}
	for _, s := range r.Shoes {
		s.Summary = summarize(s)
		for _, rd := range s.Rounds {
			if !rd.Ended.IsZero() {
				count(day(rd.Ended), rd)
			}
		}
		for _, irr := range s.Irregularities {
			day(irr.Raised).Irregularities[irregularities.Lookup(irr.Kind).ID]++
		}
		for _, iv := range holds(s.Irregularities) {
			day(iv[0]).Held += iv[1].Sub(iv[0])
		}
		byDay := map[string][]time.Time{}
		for _, at := range s.cardTimes {
			k := at.UTC().Format(time.DateOnly)
			byDay[k] = append(byDay[k], at)
		}
		for _, cs := range byDay {
			d := day(cs[0])
			d.Cards += len(cs)
			d.Dealing += dealing(cs, s.Irregularities)
		}
	}
	for _, d := range days {
		d.CardsPerHour = perHour(d.Cards, d.Dealing)
		r.Days = append(r.Days, *d)
	}
	sort.Slice(r.Days, func(i, j int) bool { return r.Days[i].Day < r.Days[j].Day })
	return r
}

// summarize computes a shoe's summary.
func summarize(s *Shoe) Summary {
	rounds, cards := s.Rounds, s.cardTimes
	sum := Summary{Irregularities: map[string]int{}}
	for _, rd := range rounds {
		if !rd.Ended.IsZero() {
			count(&sum, rd)
		}
	}
	for _, irr := range s.Irregularities {
		sum.Irregularities[irregularities.Lookup(irr.Kind).ID]++
	}
	for _, iv := range holds(s.Irregularities) {
		sum.Held += iv[1].Sub(iv[0])
	}
	sum.Cards = len(cards)
	sum.Dealing = dealing(cards, s.Irregularities)
	sum.CardsPerHour = perHour(sum.Cards, sum.Dealing)
	return sum
}

// count adds an ended round to sum.
func count(sum *Summary, rd *Round) {
	switch {
	case rd.Void:
		sum.Void++
		return
	case rd.Outcome.Winner == baccarat.BankerWins:
		sum.Banker++
	case rd.Outcome.Winner == baccarat.PlayerWins:
		sum.Player++
	default:
		sum.Tie++
	}
	sum.Rounds++
}

// holds returns the intervals the table was held for decisions, overlapping ones merged,
// in order. An irregularity still undecided holds until its shoe's last event is not
// known here, so it is left out.
func holds(irrs []*Irregularity) [][2]time.Time {
	var ivs [][2]time.Time
	for _, irr := range irrs {
		if irr.Holds && irr.Decision != nil && irr.Decision.At.After(irr.Raised) {
			ivs = append(ivs, [2]time.Time{irr.Raised, irr.Decision.At})
		}
	}
	slices.SortFunc(ivs, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	var merged [][2]time.Time
	for _, iv := range ivs {
		if n := len(merged); n > 0 && !iv[0].After(merged[n-1][1]) {
			if iv[1].After(merged[n-1][1]) {
				merged[n-1][1] = iv[1]
			}
			continue
		}
		merged = append(merged, iv)
	}
	return merged
}

// dealing is the time from the first card to the last, less the holds within it.
func dealing(cards []time.Time, irrs []*Irregularity) time.Duration {
	if len(cards) < 2 {
		return 0
	}
	first, last := cards[0], cards[len(cards)-1]
	d := last.Sub(first)
	for _, iv := range holds(irrs) {
		from, to := maxTime(iv[0], first), minTime(iv[1], last)
		if to.After(from) {
			d -= to.Sub(from)
		}
	}
	return max(d, 0)
}

// minDealing is the least dealing time a cards-per-hour figure is given for: over less,
// a figure says nothing of a dealer's speed.
const minDealing = time.Minute

func perHour(cards int, d time.Duration) int {
	if d < minDealing {
		return 0
	}
	return int(int64(cards) * int64(time.Hour) / int64(d))
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// Only returns the report of shoe n alone, its day summaries computed from that shoe; nil
// when the report has no shoe n.
func (r *Report) Only(n uint32) *Report {
	for _, s := range r.Shoes {
		if s.Number != n {
			continue
		}
		one := *s
		one.Checkpoints = nil
		b := NewBuilder()
		b.r = Report{Table: r.Table, Rules: r.Rules, Shoes: []*Shoe{&one}, Restarts: r.Restarts}
		return b.Finish(s.Checkpoints)
	}
	return nil
}
