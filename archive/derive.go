package archive

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// deriver turns one table's records, in order, into the rows a person searches: it
// replays them through the round controller as the table did (table.Replayer) and
// writes a round's row when it is settled or void, an irregularity's when it is raised
// (its decision when it is made) and a command's for each event a person gave.
type deriver struct {
	db    *DB
	table string
	rp    table.Replayer
	rules string
	rnd   *openRound
}

// openRound is the round in play.
type openRound struct {
	shoe, number   uint32
	first          uint64
	started        time.Time
	player, banker []baccarat.Card
}

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
		shoeEnded = shoeEnded || f.Kind == round.ShoeEnded
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
	return stmt{query: `INSERT INTO replay_state (table_id, seq, settings, state) VALUES ($1, $2, $3, $4)
		ON CONFLICT (table_id) DO UPDATE SET seq = excluded.seq, settings = excluded.settings, state = excluded.state`,
		args: []any{d.table, int64(seq), string(settings), string(state)}}, nil
}

// restoreState sets the deriver to the state saveState kept after record seq.
func (d *deriver) restoreState(settings, state []byte) error {
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
	d.rp, d.rules, d.rnd = table.ResumeReplayer(ctl, &s), s.Round.Rules.Name, nil
	return nil
}

func (d *deriver) effect(seq uint64, e round.Effect) (stmt, error) {
	db := d.db
	switch e.Kind {
	case round.ShoeStarted, round.ShoeEnded:
		d.rnd = nil
	case round.BettingClosed:
		d.round(seq, e)
	case round.CardPlaced:
		r := d.round(seq, e)
		if e.Slot.Player() {
			r.player = append(r.player, e.Card)
		} else {
			r.banker = append(r.banker, e.Card)
		}
	case round.Reconstructed, round.RoundComplete:
		r := d.round(seq, e)
		r.player, r.banker = handCards(e.Coup().Player), handCards(e.Coup().Banker)
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
		return stmt{`INSERT INTO rounds (table_id, shoe, round, first_seq, last_seq, started_at, ended_at,
			player_cards, banker_cards, winner, player_points, banker_points, void, void_reason, settlements)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
			[]any{d.table, int64(r.shoe), int64(r.number), int64(r.first), int64(seq), db.ts(r.started), db.ts(e.At()),
				cardList(r.player), cardList(r.banker), winner, int64(e.Outcome().PlayerPoints), int64(e.Outcome().BankerPoints),
				e.Kind == round.RoundVoided, reason, string(settlements)}}, nil
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
	}
	return d.rnd
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
