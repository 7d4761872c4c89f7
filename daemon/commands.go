package daemon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/round"
)

// Command is a dealer's or supervisor's command, as JSON on tablectl/v1/<table>/cmd/<role>.
// Cmd says what; the other fields are those the command takes (docs/mqtt.md).
type Command struct {
	ID     string `json:"id,omitempty"`
	Cmd    string `json:"cmd"`
	Actor  string `json:"actor,omitempty"`
	Detail string `json:"detail,omitempty"`
	// bets_closed: the wagers on the layout; insurance_bet: the one wager.
	Wagers []baccarat.Wager `json:"wagers,omitempty"`
	Wager  *baccarat.Wager  `json:"wager,omitempty"`
	// new_shoe: the set and its decks.
	Set   string `json:"set,omitempty"`
	Decks int    `json:"decks,omitempty"`
	// report: the irregularity kind, and for a late error the round it was in; for a
	// foreign card, the card found (optional).
	Kind  string `json:"kind,omitempty"`
	Round uint32 `json:"round,omitempty"`
	Card  string `json:"card,omitempty"`
	// decide: the irregularity's number and the choice.
	Irregularity uint32 `json:"irregularity,omitempty"`
	Choice       string `json:"choice,omitempty"`
	// box_option: the box, its option, and for insurance-intended the Insurance bet.
	Box    string `json:"box,omitempty"`
	Option string `json:"option,omitempty"`
	Bet    string `json:"bet,omitempty"`
}

// commands are the commands and the lowest role that may give each. Decisions on
// irregularities are further checked against the role each rule names (RWS Baccarat
// 5.10: a Pit Supervisor or above).
var commands = map[string]irregularities.Role{
	"bets_closed":      irregularities.Dealer,
	"confirm":          irregularities.Dealer,
	"insurance_bet":    irregularities.Dealer,
	"insurance_closed": irregularities.Dealer,
	"squeeze":          irregularities.Dealer,
	"cut_card":         irregularities.Dealer,
	"new_shoe":         irregularities.Dealer,
	"end_shoe":         irregularities.Dealer,
	"report":           irregularities.Dealer,
	"decide":           irregularities.Supervisor,
	"box_option":       irregularities.Dealer,
}

// ParseCommand reads a command given by role. Anything malformed, unknown or not allowed
// to the role is an error saying so; it changes nothing.
func ParseCommand(roleName string, payload []byte) (Command, round.Event, error) {
	var c Command
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, round.Event{}, fmt.Errorf("malformed command: %v", err)
	}
	if dec.More() {
		return c, round.Event{}, fmt.Errorf("malformed command: more than one JSON value")
	}
	role, err := irregularities.ParseRole(roleName)
	if err != nil {
		return c, round.Event{}, fmt.Errorf("command topic cmd/%s: %v", roleName, err)
	}
	need, ok := commands[c.Cmd]
	if !ok {
		return c, round.Event{}, fmt.Errorf("unknown command %q: want one of %s", c.Cmd, commandNames())
	}
	if role < need {
		return c, round.Event{}, fmt.Errorf("a %s may not give %q: it takes a %s or above", role, c.Cmd, need)
	}
	ev := round.Event{Role: role, Actor: c.Actor, Detail: c.Detail}
	switch c.Cmd {
	case "bets_closed":
		ev.Kind, ev.Wagers = round.BetsClosed, c.Wagers
	case "confirm":
		ev.Kind = round.ConfirmResult
	case "insurance_bet":
		if c.Wager == nil {
			return c, ev, fmt.Errorf("insurance_bet needs a wager")
		}
		ev.Kind, ev.Wagers = round.InsuranceBet, []baccarat.Wager{*c.Wager}
	case "insurance_closed":
		ev.Kind = round.InsuranceWindowClosed
	case "squeeze":
		ev.Kind = round.SqueezeRequested
	case "cut_card":
		ev.Kind = round.CutCard
	case "new_shoe":
		if c.Set == "" || c.Decks == 0 {
			return c, ev, fmt.Errorf("new_shoe needs the set and its decks")
		}
		ev.Kind, ev.Set, ev.Decks = round.NewShoe, c.Set, c.Decks
	case "end_shoe":
		ev.Kind = round.ShoeEnd
	case "report":
		k, err := irregularities.ParseKind(c.Kind)
		if err != nil {
			return c, ev, err
		}
		ev.Kind, ev.Irregularity, ev.Round = round.Report, k, c.Round
		if c.Card != "" {
			if ev.Card, err = baccarat.ParseCard(c.Card); err != nil {
				return c, ev, fmt.Errorf("report card: %w", err)
			}
		}
	case "decide":
		ch, err := irregularities.ParseChoice(c.Choice)
		if err != nil {
			return c, ev, err
		}
		if c.Irregularity == 0 {
			return c, ev, fmt.Errorf("decide needs the irregularity's number")
		}
		ev.Kind, ev.ID, ev.Choice = round.Decide, c.Irregularity, ch
	case "box_option":
		if err := boxOption(c, &ev); err != nil {
			return c, ev, err
		}
	}
	return c, ev, nil
}

func commandNames() string {
	names := make([]string, 0, len(commands))
	for _, n := range []string{"bets_closed", "confirm", "insurance_bet", "insurance_closed", "squeeze", "cut_card",
		"new_shoe", "end_shoe", "report", "decide", "box_option"} {
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// command carries out one command and answers it on the reply topic.
func (d *Daemon) command(c display.Command) error {
	reply := messages.Reply{Schema: messages.Schema, Table: d.cfg.Table, At: d.cfg.Now(), Role: c.Role}
	cmd, ev, err := ParseCommand(c.Role, c.Payload)
	reply.ID = cmd.ID
	if err != nil {
		reply.Error = err.Error()
		d.log.Warn("command refused", "role", c.Role, "err", err)
		return d.answer(c, reply)
	}
	ev.At = d.cfg.Now()
	d.capture = &reply.Effects
	err = d.tbl.Step(ev)
	d.capture = nil
	if err != nil {
		return err // the journal failed: the table cannot go on
	}
	reply.OK = true
	for _, e := range reply.Effects {
		if strings.HasPrefix(e, round.EventRefused.String()) {
			reply.OK, reply.Error = false, strings.TrimPrefix(e, round.EventRefused.String()+": ")
		}
	}
	return d.answer(c, reply)
}

func (d *Daemon) answer(c display.Command, r messages.Reply) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	c.Reply(b) // not waited for: the reply topic is not journalled
	return nil
}
