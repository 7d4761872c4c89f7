package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The commands' names, as a command's cmd gives them.
const (
	CmdBetsClosed      = "bets_closed"
	CmdInsuranceBet    = "insurance_bet"
	CmdInsuranceClosed = "insurance_closed"
	CmdSqueeze         = "squeeze"
	CmdConfirm         = "confirm"
	CmdCutCard         = "cut_card"
	CmdNewShoe         = "new_shoe"
	CmdEndShoe         = "end_shoe"
	CmdReport          = "report"
	CmdDecide          = "decide"
	CmdBoxOption       = "box_option"
	CmdOptionsClosed   = "options_closed"
	CmdCallSupervisor  = "call_supervisor"
	CmdCancelCall      = "cancel_call"
	CmdDealerOn        = "dealer_on"
	CmdDealerOff       = "dealer_off"
)

// Call is what a command does to the dealer's call for a Pit Supervisor: nothing (a
// round event's command), or turn it on or off.
type Call uint8

// The calls a command makes.
const (
	NoCall Call = iota
	CallOn
	CallOff
)

// Command is a dealer's or supervisor's command, as JSON on tablectl/v1/<table>/cmd/<role>.
// Cmd says what; the other fields are those the command takes (docs/mqtt.md).
type Command struct {
	ID     string `json:"id,omitempty"`
	Cmd    string `json:"cmd"`
	Actor  string `json:"actor,omitempty"`
	Detail string `json:"detail,omitempty"`
	// bets_closed: the wagers on the layout; insurance_bet: the one wager.
	Wagers []Wager `json:"wagers,omitempty"`
	Wager  *Wager  `json:"wager,omitempty"`
	// new_shoe: the set and its decks; with none, a set of the table's deck count.
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
	// dealer_on, dealer_off: the dealer who takes or leaves the table; left out, the
	// person giving the command (actor).
	Dealer string `json:"dealer,omitempty"`
}

// CommandSpec is one command of the table: its name (the JSON's cmd), the fields it takes,
// the lowest role that may give it, what it does, and the check of its fields. The
// parsing, the role check, the unknown command's error and docs/mqtt.md's list all come
// from Commands. A check every command needs (a field's length, say) goes in
// ParseCommand; one of a command's own, in its Check. The table turns a command into its
// round event (table.ParseCommand).
type CommandSpec struct {
	Name string
	// Title names the command on a button, e.g. "Close bets".
	Title string
	// Fields says which fields the command takes, for docs/mqtt.md.
	Fields string
	// Takes are the JSON names of the fields the command takes besides id, cmd, actor
	// and detail, for a form that gives the command.
	Takes []string
	// Role is the lowest role that may give the command.
	Role Role
	// RoleFor, when set, is the lowest role for the command with these fields, where
	// they raise it above Role (LowestRole). The table checks it again with its rule.
	RoleFor func(c Command) Role
	// RoleNote, when set, says more of the roles than Role, for docs/mqtt.md.
	RoleNote string
	// Does says what the command does, in one line.
	Does string
	// Check, when set, checks the fields of the command's own: a kind, choice, option,
	// bet or card that is none, a field it needs left out.
	Check func(c Command) error
	// Calls, for a command that is no round event, turns the supervisor call on or off,
	// as the call_supervisor button does (table.Node.Call).
	Calls Call
}

// Commands are the commands a table takes, in the order docs/mqtt.md lists them.
// Decisions on irregularities are further checked against the role each rule names
// (RWS Baccarat 5.10: a Pit Supervisor or above).
var Commands = []CommandSpec{
	{Name: CmdBetsClosed, Title: "Close bets", Takes: []string{"wagers"}, Fields: "`wagers` (optional: `[{\"box\":\"1\",\"seat\":\"standing\",\"bet\":\"banker\",\"stake\":100}]`; `seat` is `seated` or `standing`, left out `seated`)", Role: RoleDealer,
		Does: "no more bets (RWS Baccarat 5.6); the wagers are checked against the rule set and the table's limits (docs/rules.md, \"Limits\")"},
	{Name: CmdInsuranceBet, Title: "Insurance bet", Takes: []string{"wager"}, Fields: "`wager`", Role: RoleDealer,
		Does: "takes an Insurance wager on the open offer (NC Insurance 3.11, 3.12.2)",
		Check: func(c Command) error {
			if c.Wager == nil {
				return fmt.Errorf("insurance_bet needs a wager")
			}
			return nil
		}},
	{Name: CmdInsuranceClosed, Title: "Insurance closed", Role: RoleDealer, Does: "closes the Insurance offers"},
	{Name: CmdSqueeze, Title: "Squeeze", Role: RoleDealer,
		Does: "the Banker's third card is squeezed first: later Insurance waived (NC Insurance 3.14)"},
	{Name: CmdConfirm, Title: "Confirm result", Role: RoleDealer, Does: "confirms the revealed result; the round is settled"},
	{Name: CmdCutCard, Title: "Cut card out", Role: RoleDealer, Does: "the cut card came out (when the shoe cannot say so)"},
	{Name: CmdNewShoe, Title: "New shoe", Takes: []string{"set", "decks"}, Fields: "`set`, `decks` (both optional)", Role: RoleDealer,
		Does: "as the `new_shoe` button: ends the shoe in play, then loads the set given (when no shuffler reports it) or the next shuffled set; at a table without a serial shuffler, with no `decks`, a set of the table's deck count (docs/config.md, \"A table without a serial shuffler\")",
		Check: func(c Command) error {
			if c.Decks < 0 {
				return fmt.Errorf("new_shoe: %d decks", c.Decks)
			}
			return nil
		}},
	{Name: CmdEndShoe, Title: "End shoe", Role: RoleDealer, Does: "ends the shoe"},
	{Name: CmdReport, Title: "Report", Takes: []string{"kind", "round", "card"}, Fields: "`kind`, `detail`, `round` (for `late_error`), `card` (for `foreign_card`, optional)", Role: RoleDealer,
		RoleNote: "dealer (`late_error`: supervisor)",
		RoleFor: func(c Command) Role {
			if c.Kind == string(LateError) {
				return RoleSupervisor // RWS Baccarat 5.11
			}
			return RoleDealer
		},
		Does: "reports an irregularity (docs/irregularities.md)",
		Check: func(c Command) error {
			if _, err := ParseIrregularityKind(c.Kind); err != nil {
				return err
			}
			if c.Card != "" {
				if _, err := ParseCardCode(c.Card); err != nil {
					return fmt.Errorf("report card: %w", err)
				}
			}
			return nil
		}},
	{Name: CmdDecide, Title: "Decide", Takes: []string{"irregularity", "choice"}, Fields: "`irregularity` (its number), `choice`", Role: RoleSupervisor,
		RoleNote: "supervisor, or the role the rule names", Does: "decides a held irregularity",
		Check: func(c Command) error {
			if _, err := ParseChoice(c.Choice); err != nil {
				return err
			}
			if c.Irregularity == 0 {
				return fmt.Errorf("decide needs the irregularity's number")
			}
			return nil
		}},
	{Name: CmdBoxOption, Title: "Box option", Takes: []string{"box", "option", "bet"}, Fields: "`box`, `option`, `bet` (for `insurance-intended`)", Role: RoleDealer,
		RoleNote: "dealer, or the role the rule names",
		RoleFor: func(c Command) Role {
			if c.Option == string(OptionInsuranceIntended) {
				return RolePitManager // NC Insurance 5.13
			}
			return RoleDealer
		},
		Does:  "records one box's choice for the round (RWS Baccarat 5.12, NC Insurance 5.13, NC Tournament 3.9)",
		Check: checkBoxOption},
	{Name: CmdCallSupervisor, Title: "Call a supervisor", Role: RoleDealer, Calls: CallOn,
		Does: "as the `call_supervisor` button: calls a Pit Supervisor; the status carries `\"call\":\"supervisor\"` until `cancel_call` or a decision"},
	{Name: CmdCancelCall, Title: "End the call", Role: RoleDealer, Calls: CallOff,
		Does: "ends the call for a Pit Supervisor"},
	{Name: CmdOptionsClosed, Title: "Close options", Role: RoleSupervisor,
		Does: "closes the players' options window (RWS Baccarat 5.12): the boxes that chose nothing continue, and the cards held for it are placed"},
	{Name: CmdDealerOn, Title: "I deal here", Takes: []string{"dealer"}, Fields: "`dealer` (optional: left out, the `actor`)", Role: RoleDealer,
		RoleNote: "dealer (in their own name), supervisor (for another dealer)", RoleFor: dealerRole,
		Does: "the dealer takes the table; the dealer on before leaves it; the rounds from the next first card are credited to the dealer (docs/pit.md)"},
	{Name: CmdDealerOff, Title: "I leave", Takes: []string{"dealer"}, Fields: "`dealer` (optional: the dealer on)", Role: RoleDealer,
		RoleNote: "dealer (in their own name), supervisor (for another dealer)", RoleFor: dealerRole,
		Does: "the dealer on leaves the table; the status says no dealer is on until the next `dealer_on`"},
}

// dealerRole is the lowest role of a dealer_on or dealer_off: a dealer's own, in their
// own name (no dealer, or the actor); a supervisor's for another dealer.
func dealerRole(c Command) Role {
	if c.Dealer != "" && c.Dealer != c.Actor {
		return RoleSupervisor
	}
	return RoleDealer
}

// LookupCommand finds a command by name.
func LookupCommand(name string) (CommandSpec, bool) {
	for _, c := range Commands {
		if c.Name == name {
			return c, true
		}
	}
	return CommandSpec{}, false
}

// ParseCommand reads a command given by role, and the role. Anything malformed, unknown
// or not allowed to the role is an error saying so; it changes nothing. A payload over a
// limit is refused with a *LimitError; one whose text holds a control character or is
// not UTF-8, with a *TextError, before it is decoded (CheckCommandText): the Command
// returned then holds only the id, when one was read before the fault.
func ParseCommand(roleName string, payload []byte) (Command, Role, error) {
	var c Command
	if err := CheckCommandSize(payload); err != nil {
		return c, 0, err
	}
	if id, err := checkCommandText(payload); err != nil {
		c.ID = id // the id read before the fault, for the reply
		return c, 0, err
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, 0, fmt.Errorf("malformed command: %v", err)
	}
	if dec.More() {
		return c, 0, fmt.Errorf("malformed command: more than one JSON value")
	}
	if err := c.CheckFields(); err != nil {
		if len(c.ID) > MaxIDLen {
			c.ID = "" // not repeated in the reply
		}
		return c, 0, err
	}
	role, err := ParseRole(roleName)
	if err != nil {
		return c, 0, fmt.Errorf("command topic cmd/%s: %v", roleName, err)
	}
	spec, ok := LookupCommand(c.Cmd)
	if !ok {
		return c, 0, fmt.Errorf("unknown command %q: want one of %s", c.Cmd, CommandNames())
	}
	if role < spec.Role {
		return c, 0, fmt.Errorf("a %s may not give %q: it takes a %s or above", role, c.Cmd, spec.Role)
	}
	if spec.Check != nil {
		if err := spec.Check(c); err != nil {
			return c, role, err
		}
	}
	return c, role, nil
}

// LowestRole is the lowest role that may give c: its command's Role, raised by RoleFor
// where the command's fields ask more. ok is false for an unknown command.
func LowestRole(c Command) (role Role, ok bool) {
	spec, ok := LookupCommand(c.Cmd)
	if !ok {
		return 0, false
	}
	if spec.RoleFor != nil {
		return max(spec.Role, spec.RoleFor(c)), true
	}
	return spec.Role, true
}

// CommandNames are the commands' names, in the table's order, joined with commas.
func CommandNames() string {
	names := make([]string, 0, len(Commands))
	for _, c := range Commands {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// CommandsMarkdown is the table of commands docs/mqtt.md shows.
func CommandsMarkdown() string {
	var b strings.Builder
	b.WriteString("| `cmd` | fields | lowest role | does |\n|---|---|---|---|\n")
	for _, c := range Commands {
		role := c.RoleNote
		if role == "" {
			role = c.Role.String()
		}
		fields := " "
		if c.Fields != "" {
			fields = " " + c.Fields + " "
		}
		fmt.Fprintf(&b, "| `%s` |%s| %s | %s |\n", c.Name, fields, role, c.Does)
	}
	return b.String()
}

// checkBoxOption checks a box_option command: one box's choice for the round (RWS
// Baccarat 5.12, NC Insurance 5.13, NC Tournament 3.9). The controller checks it against
// the rule that gives it.
func checkBoxOption(c Command) error {
	if c.Box == "" {
		return fmt.Errorf("box_option needs the box")
	}
	if _, err := ParseBoxOption(c.Option); err != nil {
		return err
	}
	if c.Bet != "" {
		if _, err := ParseBet(c.Bet); err != nil {
			return fmt.Errorf("box_option bet: %w", err)
		}
	}
	return nil
}

// Reports are the irregularities a person reports with the report command, in the order
// a form offers them. The others are raised by the table itself.
var Reports = []IrregularityKind{"wrong_hand", "exposed_card", "simultaneous_draw", "incorrect_cards", "excess_card",
	"foreign_card", "insufficient_cards", "technical_interruption", "insurance_not_offered", LateError}
