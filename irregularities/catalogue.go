// Package irregularities is the catalogue of what can go wrong at a baccarat table, as the
// rule documents define it: for each kind, how severe it is, what the table must do,
// which decisions the rules allow and who may make them, and the text a display shows.
// The rule a kind comes from in each rule set is that rule set's book's citation
// (baccarat.Rulebook); Cite reads it. It also holds the detectors that need more than the
// round controller's own bookkeeping (a badly shuffled set). It does no I/O.
package irregularities

import (
	"fmt"
	"strings"

	"github.com/tablectl/tablectl/baccarat"
)

// Kind identifies an irregularity.
type Kind uint8

// The kinds, in catalogue order.
const (
	_ Kind = iota
	// TechnicalInterruption: a power failure or a lost shoe or shuffler (RWS Baccarat 5.4).
	TechnicalInterruption
	// ForeignCard: a card that is not part of the set (RWS Baccarat 5.5.1).
	ForeignCard
	// CardCount: a shortage or excess of cards in the set (RWS Baccarat 5.5.2).
	CardCount
	// IncorrectCards: a hand dealt an incorrect number of cards that cannot be
	// reconstructed: a card passed the reader unread, or came out of the recorded order
	// (RWS Baccarat 5.5.3).
	IncorrectCards
	// InsufficientCards: the shoe ran out before the round was complete (RWS Baccarat 5.5.4).
	InsufficientCards
	// NotShuffled: the cards were not shuffled (RWS Baccarat 5.5.5).
	NotShuffled
	// ExcessCard: a card drawn when the Table of Play gives none (RWS Baccarat 5.7).
	ExcessCard
	// WrongHand: a card dealt to the wrong hand (RWS Baccarat 5.8).
	WrongHand
	// ExposedCard: a card dealt face up on a face-down table (RWS Baccarat 5.9).
	ExposedCard
	// SimultaneousDraw: two or more cards drawn at once (RWS Baccarat 5.10).
	SimultaneousDraw
	// LateError: an error in a round noticed after the next round began (RWS Baccarat 5.11).
	LateError
	// InsuranceNotOffered: a card drawn while an Insurance offer was open (NC Insurance 5.13).
	InsuranceNotOffered
	// BadShuffle: the dealt order shows runs a fair shuffle almost never makes. Beyond
	// the rule documents.
	BadShuffle
	// DeviceFault: a device reported a fault of its own (a shoe's alarm or warning),
	// carried as it said it. Beyond the rule documents.
	DeviceFault
	kindCount
)

// Severity is how urgently the table must react.
type Severity uint8

// The severities.
const (
	// Notice: recorded and shown; play goes on.
	Notice Severity = iota + 1
	// Warning: play goes on, the pit is alerted.
	Warning
	// Hold: play stops until a decision is made.
	Hold
	// Critical: the round is void or the shoe refused.
	Critical
)

var severityNames = [...]string{"?", "notice", "warning", "hold", "critical"}

// String names the severity.
func (s Severity) String() string {
	if int(s) < len(severityNames) {
		return severityNames[s]
	}
	return "?"
}

// MarshalText prints the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity's name, as MarshalText prints it.
func (s *Severity) UnmarshalText(b []byte) error {
	if i := nameIndex(severityNames[:], string(b)); i > 0 {
		*s = Severity(i)
		return nil
	}
	return fmt.Errorf("irregularities: unknown severity %q (want one of %s)", b, strings.Join(severityNames[1:], ", "))
}

// Action is what the table does about an irregularity.
type Action uint8

// The actions.
const (
	// Continue: the round goes on; the irregularity is recorded.
	Continue Action = iota + 1
	// Decide: the round is held until a decision is made.
	Decide
	// Reconstruct: the cards are returned to their intended order (RWS Baccarat 1.18).
	Reconstruct
	// VoidRound: the round has no result; every bet is returned (RWS Baccarat 5.15).
	VoidRound
	// RefuseShoe: the set is not dealt; a round in play is void and no more rounds are
	// dealt from it.
	RefuseShoe
	// ByRule: the rule itself decides (RWS Baccarat 5.4: the round continues when an
	// outcome is established and is void when not); the table is held until the device
	// is back, and a supervisor may only confirm the rule's decision.
	ByRule
)

var actionNames = [...]string{"?", "continue", "decide", "reconstruct", "void-round", "refuse-shoe", "by-rule"}

// String names the action.
func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return "?"
}

// MarshalText prints the action's name.
func (a Action) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads an action's name, as MarshalText prints it.
func (a *Action) UnmarshalText(b []byte) error {
	if i := nameIndex(actionNames[:], string(b)); i > 0 {
		*a = Action(i)
		return nil
	}
	return fmt.Errorf("irregularities: unknown action %q (want one of %s)", b, strings.Join(actionNames[1:], ", "))
}

// Role is who may make a decision. Roles are ordered: each may make the decisions of the
// roles below it (RWS Baccarat 1.13: Dealer, Pit Supervisor, Pit Manager; 5.17: Table
// Game Shift Manager).
type Role uint8

// The roles, lowest first.
const (
	Dealer Role = iota + 1
	Supervisor
	PitManager
	ShiftManager
)

var roleNames = [...]string{"?", "dealer", "supervisor", "pit_manager", "shift_manager"}

// String names the role as commands and config do: dealer, supervisor, pit_manager,
// shift_manager.
func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "?"
}

// MarshalText prints the role's name.
func (r Role) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// ParseRole reads a role name.
func ParseRole(s string) (Role, error) {
	if i := nameIndex(roleNames[:ShiftManager+1], s); i > 0 {
		return Role(i), nil
	}
	return 0, fmt.Errorf("unknown role %q: want one of %s", s, strings.Join(roleNames[1:], ", "))
}

// Choice is a decision the rules allow on a held irregularity.
type Choice uint8

// The choices.
const (
	_ Choice = iota
	// AsRead: simultaneously drawn cards are taken in the order the shoe read them.
	AsRead
	// Swapped: the first two simultaneously drawn cards are taken the other way round.
	Swapped
	// Reconstructed: the cards were put back in their intended places; play goes on.
	Reconstructed
	// Proceed: play goes on with the cards as they are.
	Proceed
	// Void: the round is void and every bet returned.
	Void
	choiceCount
)

var choiceNames = [choiceCount]string{"?", "as-read", "swapped", "reconstructed", "continue", "void"}

// String names the choice as commands do.
func (c Choice) String() string {
	if c < choiceCount {
		return choiceNames[c]
	}
	return "?"
}

// MarshalText prints the choice's name.
func (c Choice) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// ParseChoice reads a choice name.
func ParseChoice(s string) (Choice, error) {
	if i := nameIndex(choiceNames[:choiceCount], s); i > 0 {
		return Choice(i), nil
	}
	return 0, fmt.Errorf("unknown decision %q: want one of %s", s, strings.Join(choiceNames[1:], ", "))
}

// Entry is the catalogue's entry for one kind.
type Entry struct {
	Kind Kind
	// ID is the kind's identifier in JSON and MQTT, e.g. "simultaneous_draw".
	ID string
	// Severity is how urgently the table reacts, and Action what it does.
	Severity Severity
	Action   Action
	// Choices are the decisions the rules allow while the table is held, and DecidedBy
	// the lowest role that may make them. Empty when the kind does not hold the table.
	Choices   []Choice
	DecidedBy Role
	// PlayerOptions: the players are given the options of RWS Baccarat 5.12 (continue,
	// continue with the reconstructed hand, or have the bet returned) when no outcome has
	// been established.
	PlayerOptions bool
	// Display is the text a display board shows.
	Display string
	// VoidReason is why a round is void, for the kinds whose action voids it.
	VoidReason string
}

var catalogue = [kindCount]Entry{
	TechnicalInterruption: {ID: "technical_interruption",
		Severity: Hold, Action: ByRule, Choices: []Choice{Proceed, Void}, DecidedBy: Supervisor,
		Display: "Technical interruption: the round continues if its outcome is established, otherwise it is void"},
	ForeignCard: {ID: "foreign_card",
		Severity: Critical, Action: VoidRound, Choices: []Choice{Proceed}, DecidedBy: Supervisor,
		Display:    "A card not of this set was found: the round is void; previous rounds stand",
		VoidReason: "a card not of this set was found"},
	CardCount: {ID: "card_count",
		Severity: Critical, Action: RefuseShoe,
		Display:    "Shortage or excess of cards in the set: the shoe is refused; previous rounds stand",
		VoidReason: "a shortage or excess of cards in the set"},
	IncorrectCards: {ID: "incorrect_cards",
		Severity: Hold, Action: Decide, Choices: []Choice{Proceed, Void}, DecidedBy: Supervisor,
		Display: "A card the table cannot account for (unread, unreadable or out of the recorded order): the supervisor decides whether the cards can be reconstructed"},
	InsufficientCards: {ID: "insufficient_cards",
		Severity: Critical, Action: VoidRound,
		Display:    "Insufficient cards to complete the round: the round is void",
		VoidReason: "insufficient cards to complete the round"},
	NotShuffled: {ID: "not_shuffled",
		Severity: Critical, Action: RefuseShoe,
		Display:    "The cards are not shuffled: the shoe is refused; previous rounds stand",
		VoidReason: "the cards are not shuffled"},
	ExcessCard: {ID: "excess_card",
		Severity: Warning, Action: Reconstruct, PlayerOptions: true,
		Display: "A card was drawn in excess: it is used in the next round or burned, as the table is set"},
	WrongHand: {ID: "wrong_hand",
		Severity: Hold, Action: Reconstruct, Choices: []Choice{Reconstructed, Proceed}, DecidedBy: Supervisor, PlayerOptions: true,
		Display: "A card was dealt to the wrong hand: the cards are reconstructed before play continues, or the round continues as dealt where they cannot be"},
	ExposedCard: {ID: "exposed_card",
		Severity: Notice, Action: Continue, PlayerOptions: true,
		Display: "A card was exposed: the round continues and the result stands"},
	SimultaneousDraw: {ID: "simultaneous_draw",
		Severity: Hold, Action: Decide, Choices: []Choice{AsRead, Swapped}, DecidedBy: Supervisor, PlayerOptions: true,
		Display: "Cards drawn simultaneously: the Pit Supervisor decides which card is received first"},
	LateError: {ID: "late_error",
		Severity: Notice, Action: Continue,
		Display: "An error in an earlier round was noticed: later rounds stand"},
	InsuranceNotOffered: {ID: "insurance_not_offered",
		Severity: Warning, Action: Continue,
		Display: "Insurance was not closed before the next card: the Pit Manager returns the Original Bets of players who intended an Insurance that would have won"},
	BadShuffle: {ID: "bad_shuffle",
		Severity: Warning, Action: Continue,
		Display: "The dealt order shows unusual runs: the shuffle should be checked"},
	DeviceFault: {ID: "device_fault",
		Severity: Notice, Action: Continue,
		Display: "A device reported a fault: see its message"},
}

// Lookup returns the catalogue entry for kind k.
func Lookup(k Kind) Entry {
	if k == 0 || k >= kindCount {
		return Entry{}
	}
	e := catalogue[k]
	e.Kind = k
	return e
}

// Kinds lists every kind, in catalogue order.
func Kinds() []Kind {
	ks := make([]Kind, 0, kindCount-1)
	for k := Kind(1); k < kindCount; k++ {
		ks = append(ks, k)
	}
	return ks
}

// String is the kind's identifier, e.g. "foreign_card".
func (k Kind) String() string {
	if k == 0 || k >= kindCount {
		return "unknown"
	}
	return catalogue[k].ID
}

// MarshalText prints the kind's identifier.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's identifier.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// ParseKind reads a kind's identifier.
func ParseKind(s string) (Kind, error) {
	for k := Kind(1); k < kindCount; k++ {
		if catalogue[k].ID == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown irregularity %q", s)
}

// Rule names the rule for kind k under the standard rule set called ruleSet
// (baccarat.Standard), e.g. "NC Tournament 5.1.1", as Cite does; a rule set it does not
// know cites no rule of its own.
func Rule(k Kind, ruleSet string) string {
	rb, _ := baccarat.Standard.Get(ruleSet)
	return Cite(k, rb)
}

// Cite names the rule for kind k in rule book rb, e.g. "NC Tournament 5.1.1": the
// book's citation of the kind (where its document is silent, the book cites the rule
// it follows, RWS Baccarat's for most). A kind the book does not cite, a kind of one
// other document (NC Insurance 5.13, say), is named by the first standard book that
// cites it. A kind beyond the documents is "house procedure". rb may be nil.
func Cite(k Kind, rb *baccarat.Rulebook) string {
	id := k.RuleID()
	if rb != nil {
		if r, ok := rb.Cite(id); ok {
			return r
		}
	}
	for _, b := range baccarat.Standard.List() {
		if r, ok := b.Cite(id); ok {
			return r
		}
	}
	return "house procedure"
}

// Of lists the kinds rule book rb cites, its irregularities, in catalogue order.
func Of(rb *baccarat.Rulebook) []Kind {
	var ks []Kind
	for _, k := range Kinds() {
		if _, ok := rb.Cite(k.RuleID()); ok {
			ks = append(ks, k)
		}
	}
	return ks
}

// RuleID is the kind's rule id in a rule book's citations: its identifier.
func (k Kind) RuleID() baccarat.RuleID { return baccarat.RuleID(k.String()) }

// Allows reports whether the entry accepts choice c.
func (e Entry) Allows(c Choice) bool {
	for _, x := range e.Choices {
		if x == c {
			return true
		}
	}
	return false
}

// UnmarshalText reads a role name.
func (r *Role) UnmarshalText(b []byte) error {
	v, err := ParseRole(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// UnmarshalText reads a choice name.
func (c *Choice) UnmarshalText(b []byte) error {
	v, err := ParseChoice(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// nameIndex is the index of s in names, an enum's names by value with "?" at 0; 0 when
// s is none of them.
func nameIndex(names []string, s string) int {
	for i := 1; i < len(names); i++ {
		if names[i] == s {
			return i
		}
	}
	return 0
}
