package archive

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/pit"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// deriver turns one table's records, in order, into the rows a person searches: it
// replays them through the round controller as the table did (table.Replayer) and
// writes a round's row when it is settled or void, an irregularity's when it is raised
// (its decision when it is made) and a command's for each event a person gave.
type deriver struct {
	db     *DB
	table  string
	rp     table.Replayer
	rules  string
	rnd    *openRound
	opened opened
	x      followed
	// tally is the statement adding the round just written to its hour's tally
	// (pace.go), written after it.
	tally stmt
	// ig are the integrity watch's settings (nil: no watch), now the archive's clock;
	// set is the set in play, ended the sets ended whose check against the floor's
	// other shoes is still to do (integrity.go).
	ig    *IntegrityOptions
	now   func() time.Time
	set   *openSet
	ended []endedSet
}

// openRound is the round in play, and its times (docs/pit.md): betting opened, its
// first and last card, the time its options windows were open and it was held (before
// its last card, and after), and the dealer on at its first card.
type openRound struct {
	shoe, number   uint32
	first          uint64
	started        time.Time
	player, banker []baccarat.Card

	opened, firstCard, complete time.Time
	windows, held, heldAfter    time.Duration
	dealer                      string
	// last is the time of the round's last event; inWindow and inHold what the table
	// was doing since (an options window open, held for a decision), as its state said.
	last             time.Time
	inWindow, inHold bool
}

// mark counts the time from the round's last event to at by what the table was doing:
// an options window open, else held (before its last card, or after), else dealing or
// confirming, which the phases' ends give. Time before the first card is betting.
func (r *openRound) mark(at time.Time) {
	if r.last.IsZero() || r.firstCard.IsZero() || !at.After(r.last) {
		return
	}
	d := at.Sub(r.last)
	switch {
	case r.inWindow:
		r.windows += d
	case r.inHold && r.complete.IsZero():
		r.held += d
	case r.inHold:
		r.heldAfter += d
	}
}

// opened is the last round whose betting opened: its shoe, number and time.
type opened struct {
	shoe, number uint32
	at           time.Time
}

// followed is what the deriver follows across records besides the controller's state,
// kept with it at a shoe's end (saveState): the dealer's stint open (the record that
// opened it, 0: none), whether the table has had a dealer on (a table that never
// records its dealers never stands still for want of one), the stretch the table stands
// still in (nil: none), and the time of the last event, which an outage starts at; and
// of the devices (devices.go): the last shoe's end not yet followed by a new shoe, the
// devices down, by name, and the shoe's last card number.
type followed struct {
	Stint  uint64    `json:"stint,omitempty"`
	Dealt  bool      `json:"dealt,omitempty"`
	Still  *still    `json:"still,omitempty"`
	LastAt time.Time `json:"last_at,omitzero"`

	ShoeEnd time.Time       `json:"shoe_end,omitzero"`
	Down    map[string]down `json:"down,omitempty"`
	CardNo  uint64          `json:"card_no,omitempty"`

	// Watch is the integrity watch's state of the table (integrity.go).
	Watch *watchState `json:"watch,omitempty"`
}

// still is a stretch a table stands still, open: the record that opened it, why, and
// since when.
type still struct {
	Seq  uint64    `json:"seq"`
	Why  string    `json:"why"`
	From time.Time `json:"from"`
}

// The reasons a table stands still (docs/pit.md, "Stand-still").
const (
	stillNoDealer  = pit.StillNoDealer
	stillHeld      = pit.StillHeld
	stillShuffling = pit.StillShuffling
	stillOffline   = pit.StillOffline
)

// replayError is a record the round controller cannot replay, as opposed to an error of
// the database.
type replayError struct{ error }

func (e replayError) Unwrap() error { return e.error }

// stmt is one statement and its arguments.
type stmt struct {
	query string
	args  []any
}

// what names the statement in an error: its first words.
func (s stmt) what() string {
	w := strings.Fields(s.query)
	return strings.Join(w[:min(len(w), 3)], " ")
}

// take replays record seq and returns the statements of its rows, in order, then at a
// shoe's end the one keeping the replaying state (saveState). A record the controller
// cannot replay is a replayError.
func (d *deriver) take(seq uint64, data []byte) ([]stmt, error) {
	e, effs, err := d.rp.Take(seq, data)
	if err != nil {
		return nil, replayError{err}
	}
	if e.Settings != nil {
		if e.Settings.Round.Rules != nil {
			d.rules = e.Settings.Round.Rules.Name
		}
		return nil, nil
	}
	if e.Event == nil {
		return nil, nil
	}
	var out []stmt
	ev := *e.Event
	if ev.Kind == round.PowerRestored && !d.x.LastAt.IsZero() && ev.At.After(d.x.LastAt) {
		// The table was down from its last event to its restart: an outage.
		out = append(out, d.closeStill(d.x.LastAt)...)
		out = append(out, stmt{`INSERT INTO stills (table_id, seq, why, from_at, to_at) VALUES ($1, $2, $3, $4, $5)`,
			[]any{d.table, int64(seq), stillOffline, d.db.ts(d.x.LastAt), d.db.ts(ev.At)}})
	}
	if d.rnd != nil && !ev.At.IsZero() {
		d.rnd.mark(ev.At)
	}
	if ev.Role != 0 || ev.Actor != "" {
		out = append(out, stmt{`INSERT INTO commands (table_id, seq, at, kind, role, actor, detail)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			[]any{d.table, int64(seq), d.db.ts(ev.At), ev.Kind.String(), roleName(ev.Role), ev.Actor, commandDetail(ev)}})
	}
	shoeEnded := false
	for _, f := range effs {
		s, err := d.effect(seq, f)
		if err != nil {
			return nil, fmt.Errorf("rows of record %d: %w", seq, err)
		}
		if s.query != "" {
			out = append(out, s)
		}
		if d.tally.query != "" {
			out, d.tally = append(out, d.tally), stmt{}
		}
		shoeEnded = shoeEnded || f.Kind == round.ShoeEnded
	}
	out = append(out, d.devices(seq, ev, effs)...)
	out = append(out, d.watch(seq, ev, effs)...)
	if r := d.rnd; r != nil && !ev.At.IsZero() {
		st := d.rp.Controller().State()
		r.last, r.inWindow, r.inHold = ev.At, st.Window.Open, st.Held.ID != 0
	}
	if !ev.At.IsZero() {
		out = append(out, d.follow(seq, ev.At)...)
		d.x.LastAt = ev.At
	}
	if ctl := d.rp.Controller(); shoeEnded && d.rnd == nil && ctl.State().Phase == round.NoShoe {
		s, err := d.saveState(seq)
		if err != nil {
			return nil, fmt.Errorf("replay state at record %d: %w", seq, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// saveState is the statement keeping the replaying controller's state after record seq,
// with no shoe in play: a restart restores it (restoreState) and replays the records
// after seq only.
func (d *deriver) saveState(seq uint64) (stmt, error) {
	settings, err := json.Marshal(d.rp.Settings())
	if err != nil {
		return stmt{}, err
	}
	state, err := json.Marshal(d.rp.Controller().State())
	if err != nil {
		return stmt{}, err
	}
	x, err := json.Marshal(d.x)
	if err != nil {
		return stmt{}, err
	}
	return stmt{query: `INSERT INTO replay_state (table_id, seq, settings, state, derived) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (table_id) DO UPDATE SET seq = excluded.seq, settings = excluded.settings, state = excluded.state,
			derived = excluded.derived`,
		args: []any{d.table, int64(seq), string(settings), string(state), string(x)}}, nil
}

// restoreState sets the deriver to the state saveState kept after record seq: the
// controller's (settings, state) and the deriver's own (kept; empty in a state kept
// before schema version 6, whose open stint and stretch are then not followed).
func (d *deriver) restoreState(settings, state, kept []byte) error {
	var x followed
	if len(kept) > 0 {
		if err := json.Unmarshal(kept, &x); err != nil {
			return fmt.Errorf("derived: %w", err)
		}
	}
	if err := d.restoreController(settings, state); err != nil {
		return err
	}
	d.x = x
	return nil
}

// restoreController sets the deriver's controller to the state saveState kept.
func (d *deriver) restoreController(settings, state []byte) error {
	var s table.Settings
	if err := json.Unmarshal(settings, &s); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	if s.Round.Rules == nil {
		return fmt.Errorf("settings without a rule set")
	}
	var st round.State
	if err := json.Unmarshal(state, &st); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	ctl, err := round.Restore(s.Round, st)
	if err != nil {
		return err
	}
	d.rp, d.rules, d.rnd, d.set, d.ended = table.ResumeReplayer(ctl, &s), s.Round.Rules.Name, nil, nil, nil
	return nil
}

func (d *deriver) effect(seq uint64, e round.Effect) (stmt, error) {
	db := d.db
	switch e.Kind {
	case round.ShoeStarted, round.ShoeEnded:
		d.rnd = nil
	case round.BettingOpened:
		d.opened = opened{shoe: e.Shoe, number: e.Round, at: e.At()}
	case round.BettingClosed:
		d.round(seq, e)
	case round.DealerStarted:
		d.x.Stint, d.x.Dealt = seq, true
		return stmt{`INSERT INTO dealers (table_id, on_seq, dealer, on_at, on_role, on_by) VALUES ($1, $2, $3, $4, $5, $6)`,
			[]any{d.table, int64(seq), e.Dealer(), db.ts(e.At()), roleName(e.Role), e.Actor()}}, nil
	case round.DealerLeft:
		on := d.x.Stint
		d.x.Stint = 0
		if on == 0 { // its start is before what this archive follows
			return stmt{}, nil
		}
		return stmt{`UPDATE dealers SET off_seq = $1, off_at = $2, off_role = $3, off_by = $4, off_note = $5
			WHERE table_id = $6 AND on_seq = $7`,
			[]any{int64(seq), db.ts(e.At()), roleName(e.Role), e.Actor(), e.Reason(), d.table, int64(on)}}, nil
	case round.CardPlaced:
		r := d.round(seq, e)
		if r.firstCard.IsZero() {
			r.firstCard, r.dealer = e.At(), d.rp.Controller().State().Dealer
		}
		if e.Slot.Player() {
			r.player = append(r.player, e.Card)
		} else {
			r.banker = append(r.banker, e.Card)
		}
	case round.Reconstructed, round.RoundComplete:
		r := d.round(seq, e)
		r.player, r.banker = handCards(e.Coup().Player), handCards(e.Coup().Banker)
		if e.Kind == round.RoundComplete {
			r.complete = e.At()
		}
	case round.RoundSettled, round.RoundVoided:
		r := d.round(seq, e)
		d.rnd = nil
		settlements, err := json.Marshal(e.Settlements())
		if err != nil {
			return stmt{}, err
		}
		winner, reason := winnerName(e.Outcome().Winner), ""
		if e.Kind == round.RoundVoided {
			winner, reason = "", e.Reason()
		}
		d.tally = d.tallyRound(r, e.At(), e.Kind == round.RoundVoided)
		return stmt{`INSERT INTO rounds (table_id, shoe, round, first_seq, last_seq, started_at, ended_at,
			player_cards, banker_cards, winner, player_points, banker_points, void, void_reason, settlements,
			dealer, opened_at, first_card_at, complete_at, windows_ms, held_ms, held_after_ms)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`,
			[]any{d.table, int64(r.shoe), int64(r.number), int64(r.first), int64(seq), db.ts(r.started), db.ts(e.At()),
				cardList(r.player), cardList(r.banker), winner, int64(e.Outcome().PlayerPoints), int64(e.Outcome().BankerPoints),
				e.Kind == round.RoundVoided, reason, string(settlements),
				r.dealer, db.ts(r.opened), db.ts(r.firstCard), db.ts(r.complete), r.windows.Milliseconds(), r.held.Milliseconds(), r.heldAfter.Milliseconds()}}, nil
	case round.IrregularityRaised:
		entry := irregularities.Lookup(e.Irregularity)
		return stmt{`INSERT INTO irregularities (table_id, seq, id, shoe, round, kind, rule, raised_at, reason, holds)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			[]any{d.table, int64(seq), int64(e.ID), int64(e.Shoe), int64(e.Round), entry.ID,
				irregularities.Rule(e.Irregularity, d.rules), db.ts(e.At()), e.Reason(), len(entry.Choices) > 0}}, nil
	case round.IrregularityResolved:
		return stmt{`UPDATE irregularities SET decision = $1, decided_role = $2, decided_by = $3,
			decided_at = $4, decision_reason = $5, decided_seq = $6
			WHERE table_id = $7 AND id = $8 AND decided_seq IS NULL`,
			[]any{e.Choice.String(), roleName(e.Role), e.Actor(), db.ts(e.At()), e.Reason(), int64(seq), d.table, int64(e.ID)}}, nil
	}
	return stmt{}, nil
}

// round returns the round in play, starting it at effect e when there is none.
func (d *deriver) round(seq uint64, e round.Effect) *openRound {
	if d.rnd == nil || d.rnd.number != e.Round {
		d.rnd = &openRound{shoe: e.Shoe, number: e.Round, first: seq, started: e.At()}
		if d.opened.shoe == e.Shoe && d.opened.number == e.Round {
			d.rnd.opened = d.opened.at
		}
	}
	return d.rnd
}

// follow returns the statements of the stretches the table stands still in, after the
// event at at of record seq: the one open closes when the table's reason to stand still
// changed, and a new one opens at at.
func (d *deriver) follow(seq uint64, at time.Time) []stmt {
	why := d.stillWhy()
	if d.x.Still != nil && d.x.Still.Why == why {
		return nil
	}
	out := d.closeStill(at)
	if why != "" {
		d.x.Still = &still{Seq: seq, Why: why, From: at}
		out = append(out, stmt{`INSERT INTO stills (table_id, seq, why, from_at) VALUES ($1, $2, $3, $4)`,
			[]any{d.table, int64(seq), why, d.db.ts(at)}})
	}
	return out
}

// closeStill returns the statement closing the stretch open, at at, if there is one:
// one that lasted no time is removed.
func (d *deriver) closeStill(at time.Time) []stmt {
	s := d.x.Still
	if s == nil {
		return nil
	}
	d.x.Still = nil
	if !at.After(s.From) { // it lasted no time: it was not
		return []stmt{{`DELETE FROM stills WHERE table_id = $1 AND seq = $2 AND why = $3`,
			[]any{d.table, int64(s.Seq), s.Why}}}
	}
	return []stmt{{`UPDATE stills SET to_at = $1 WHERE table_id = $2 AND seq = $3 AND why = $4`,
		[]any{d.db.ts(at), d.table, int64(s.Seq), s.Why}}}
}

// stillWhy is why the table stands still now, "" while it deals (docs/pit.md): a round
// in play is dealing, its holds included; otherwise held for a decision, no dealer on
// (at a table that records its dealers), or between shoes, in that order.
func (d *deriver) stillWhy() string {
	st := d.rp.Controller().State()
	switch {
	case d.rnd != nil:
		return ""
	case st.Held.ID != 0:
		return stillHeld
	case st.Dealer == "" && d.x.Dealt:
		return stillNoDealer
	case st.Phase == round.NoShoe || st.Phase == round.ShoeDone:
		return stillShuffling
	}
	return ""
}

func handCards(h baccarat.Hand) []baccarat.Card {
	cs := make([]baccarat.Card, h.Len())
	for i := range cs {
		cs[i] = h.Card(i)
	}
	return cs
}

// cardList writes cards as the reports do: "9S KD".
func cardList(cs []baccarat.Card) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return strings.Join(s, " ")
}

func winnerName(w baccarat.Winner) string {
	b, _ := w.MarshalText()
	return string(b)
}

// roleName is a role's name, empty for none (the rule itself, or the table).
func roleName(r irregularities.Role) string {
	if r == 0 {
		return ""
	}
	return r.String()
}

// commandDetail says what a command was about, beyond its kind: the irregularity and
// the choice of a decision, a box's option, a report's kind, or the event's detail.
func commandDetail(ev round.Event) string {
	var parts []string
	if ev.Irregularity != 0 {
		parts = append(parts, irregularities.Lookup(ev.Irregularity).ID)
	}
	if ev.ID != 0 {
		parts = append(parts, fmt.Sprintf("#%d", ev.ID))
	}
	if ev.Choice != 0 {
		parts = append(parts, ev.Choice.String())
	}
	if ev.Box != "" {
		parts = append(parts, "box "+ev.Box)
	}
	if ev.Detail != "" {
		parts = append(parts, ev.Detail)
	}
	return strings.Join(parts, " ")
}
