package round

import (
	"fmt"
	"strings"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// EventKind says what happened at the table.
type EventKind uint8

// The events the controller takes. Each is written to the journal before it is stepped.
const (
	_ EventKind = iota
	// NewShoe: a shuffled set is loaded. Set is its identity, Decks its deck count.
	NewShoe
	// BetsClosed: the dealer announced "No more Bets". Wagers, if the table knows them,
	// are the bets on the layout.
	BetsClosed
	// CardDrawn: the shoe read a card. Seq is the shoe's sequence number. A zero Card is a
	// card the shoe could not name (Detail says what was read).
	CardDrawn
	// InsuranceBet: a box takes Insurance on an open offer; Wagers holds the one wager.
	InsuranceBet
	// InsuranceWindowClosed: the dealer closed the Insurance offers.
	InsuranceWindowClosed
	// SqueezeRequested: the House consented to squeeze or expose the Banker's third card
	// before the Player's third card is opened (NC Insurance 3.14).
	SqueezeRequested
	// ConfirmResult: the dealer confirmed the revealed result; bets are settled.
	ConfirmResult
	// CutCard: the cut card came out of the shoe.
	CutCard
	// ShoeEnd: the shoe was closed (ended by the dealer, or emptied).
	ShoeEnd
	// PowerRestored: the controller restarted after a technical interruption; the journal
	// has been replayed up to here (RWS Baccarat 5.4).
	PowerRestored
	// Report: a dealer, supervisor or device reports an irregularity of kind Irregularity
	// (a card dealt to the wrong hand, an exposed card, cards drawn together, an error in
	// earlier Round...). Role and Actor say who; Detail says what was seen; Card, for a
	// foreign card, the card found.
	Report
	// Decide: Role/Actor decides held irregularity ID with Choice.
	Decide
	// DeviceLost and DeviceBack: the shoe or shuffler (named in Detail) disconnected or
	// came back.
	DeviceLost
	DeviceBack
	// BoxChoice: box Box took Option this round (RWS Baccarat 5.12, NC Insurance 5.13,
	// NC Tournament 3.9); Bet is the Insurance bet intended (5.13). Role and Actor say who
	// recorded it.
	BoxChoice
	// LidOpened: the shoe's lid was opened. Once the shoe's last round is dealt, that is
	// the dealer taking out what is left: the shoe ends.
	LidOpened
	// OptionsWindowClosed: Role/Actor closes the players' options window (RWS Baccarat 5.12,
	// window.go): the boxes that chose nothing continue, and the cards held for the
	// window are placed. Role 0 is the table's own stand-in for the dealer.
	OptionsWindowClosed
	// DealerOn: dealer Dealer takes the table (a dealer in their own name, a
	// supervisor for another); the dealer on before, if any, leaves it. Role and Actor
	// say who recorded it; Detail, for a badge or button, which input.
	DealerOn
	// DealerOff: dealer Dealer (or whoever is on, when Dealer is empty) leaves the
	// table; no dealer is on until the next DealerOn.
	DealerOff
	eventKindCount
)

// EventInfo is one row of the event table: what is said of an event kind besides its
// case in the controller.
type EventInfo struct {
	// Name is the kind's name in the journal, e.g. "card".
	Name string
	// By is the lowest role of a person who gives an event of the kind, where the
	// controller asks it of every such event; 0 where it asks none (a device's event)
	// or asks by rule (a decision: the rule's deciding role). The table's own stand-in
	// gives OptionsWindowClosed with no role.
	By irregularities.Role
}

// eventTable is the event table, indexed by EventKind. The names, their parsing and
// EventKinds come from it.
var eventTable = [eventKindCount]EventInfo{
	NewShoe:               {Name: "new-shoe"},
	BetsClosed:            {Name: "bets-closed"},
	CardDrawn:             {Name: "card"},
	InsuranceBet:          {Name: "insurance-bet"},
	InsuranceWindowClosed: {Name: "insurance-closed"},
	SqueezeRequested:      {Name: "squeeze"},
	ConfirmResult:         {Name: "confirm"},
	CutCard:               {Name: "cut-card"},
	ShoeEnd:               {Name: "shoe-end"},
	PowerRestored:         {Name: "power-restored"},
	Report:                {Name: "report", By: irregularities.Dealer},
	Decide:                {Name: "decide"},
	DeviceLost:            {Name: "device-lost"},
	DeviceBack:            {Name: "device-back"},
	BoxChoice:             {Name: "box-option", By: irregularities.Dealer},
	LidOpened:             {Name: "lid-opened"},
	OptionsWindowClosed:   {Name: "options-closed", By: irregularities.Supervisor},
	DealerOn:              {Name: "dealer-on", By: irregularities.Dealer},
	DealerOff:             {Name: "dealer-off", By: irregularities.Dealer},
}

// EventKinds are the kinds of event, in the order of the event table.
func EventKinds() []EventKind {
	out := make([]EventKind, 0, eventKindCount-1)
	for k := EventKind(1); k < eventKindCount; k++ {
		out = append(out, k)
	}
	return out
}

// Info is the kind's row of the event table; the zero EventInfo for no kind.
func (k EventKind) Info() EventInfo {
	if k == 0 || k >= eventKindCount {
		return EventInfo{}
	}
	return eventTable[k]
}

// String names the kind, e.g. "card".
func (k EventKind) String() string {
	if n := k.Info().Name; n != "" {
		return n
	}
	return "?"
}

// MarshalText prints the kind's name.
func (k EventKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *EventKind) UnmarshalText(b []byte) error {
	for _, kind := range EventKinds() {
		if eventTable[kind].Name == string(b) {
			*k = kind
			return nil
		}
	}
	return &UnknownKindError{Kind: string(b)}
}

// UnknownKindError reports an event kind the controller does not know.
type UnknownKindError struct{ Kind string }

// Error names the kind.
func (e *UnknownKindError) Error() string { return "unknown event kind " + quote(e.Kind) }

// Event is one input to the controller. It is a flat value so it can be journalled as it
// is and stepped without allocation; each kind uses the fields its comment names. Time
// is data: At is when the event happened, as recorded by whoever produced it.
type Event struct {
	Kind EventKind `json:"kind"`
	At   time.Time `json:"at,omitzero"`
	// Set is the card-set identity: of the set loaded (NewShoe), or as read from a card
	// (CardDrawn; empty when the shoe cannot read it).
	Set   string `json:"set,omitempty"`
	Decks int    `json:"decks,omitempty"`
	// Cards is the shuffler's count of the set (NewShoe; 0 when unknown).
	Cards int `json:"cards,omitempty"`
	// Order is the shuffled set's card order as the shuffler recorded it (NewShoe;
	// optional).
	Order []baccarat.Card `json:"order,omitempty"`
	// Empty: the shoe reports it holds no more cards (ShoeEnd).
	Empty bool          `json:"empty,omitempty"`
	Card  baccarat.Card `json:"card,omitzero"`
	// Seq is the shoe's sequence number of a card; 0 when the shoe gives none.
	// Renumbered: the shoe's numbering started again with this card (it was powered off
	// and on), so no card is missing before it.
	Seq        uint64 `json:"seq,omitempty"`
	Renumbered bool   `json:"renumbered,omitempty"`
	// Burned: the shoe read the card in its burn mode (CardDrawn). Under BurnShoe it is
	// burned; under the other burn rules it is a card like any other.
	Burned bool `json:"burned,omitempty"`
	// ShoeTime is when the shoe read the card by its own clock (CardDrawn), in
	// milliseconds from an origin of the shoe's own, wrapping at 2^32; valid when
	// ShoeTimed, for a shoe whose protocol carries it (docs/protocol.md). Simultaneous
	// draws are judged on it, never on when the table read the card (RWS Baccarat 5.10,
	// docs/irregularities.md).
	ShoeTime  uint32 `json:"shoe_ms,omitempty"`
	ShoeTimed bool   `json:"shoe_timed,omitempty"`
	// Resent: the shoe sent the card again, after a restart of the table, because the
	// table had not acknowledged it: a backlog, never a simultaneous draw.
	Resent bool `json:"resent,omitempty"`
	// Signal is the shoe's number of the signal (cut card, shoe empty, lid, double card)
	// the event came from, extended to 64 bits; 0 when none. The controller does not use
	// it: a table restarted reads it back from the journal to know which of the signals
	// the shoe sends again it has already (docs/protocol.md, "Signal numbers").
	Signal uint64           `json:"signal,omitempty"`
	Wagers []baccarat.Wager `json:"wagers,omitempty"`
	// Irregularity is the kind reported (Report).
	Irregularity irregularities.Kind `json:"irregularity,omitempty"`
	// ID is the held irregularity decided (Decide).
	ID     uint32                `json:"id,omitempty"`
	Choice irregularities.Choice `json:"choice,omitempty"`
	// Round is the earlier round an error was noticed in (Report of a late error).
	Round uint32 `json:"round,omitempty"`
	// Role and Actor are who reported or decided (a role, and a person's id).
	Role   irregularities.Role `json:"role,omitempty"`
	Actor  string              `json:"actor,omitempty"`
	Detail string              `json:"detail,omitempty"`
	// Box, Option and Bet are a box's choice (BoxChoice).
	Box    string                `json:"box,omitempty"`
	Option irregularities.Option `json:"option,omitempty"`
	Bet    baccarat.Bet          `json:"bet,omitempty"`
	// Dealer is the dealer who takes or leaves the table (DealerOn, DealerOff).
	Dealer string `json:"dealer,omitempty"`
}

// String prints the event on one line, for example "card 9H seq=12" or
// "decide #3 swapped by supervisor S17".
func (e Event) String() string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	switch e.Kind {
	case NewShoe:
		fmt.Fprintf(&b, " set=%s decks=%d", e.Set, e.Decks)
		if e.Cards != 0 {
			fmt.Fprintf(&b, " cards=%d", e.Cards)
		}
		if e.Order != nil {
			fmt.Fprintf(&b, " order=%d", len(e.Order))
		}
	case CardDrawn:
		fmt.Fprintf(&b, " %s", e.Card)
		if e.Burned {
			b.WriteString(" burned")
		}
		if e.Resent {
			b.WriteString(" resent")
		}
		if e.ShoeTimed {
			fmt.Fprintf(&b, " shoe=%dms", e.ShoeTime)
		}
		if e.Seq != 0 {
			fmt.Fprintf(&b, " seq=%d", e.Seq)
		}
		if e.Set != "" {
			fmt.Fprintf(&b, " set=%s", e.Set)
		}
	case BetsClosed, InsuranceBet:
		for _, w := range e.Wagers {
			b.WriteString(" " + wagerText(w))
		}
	case Report:
		fmt.Fprintf(&b, " %s", e.Irregularity)
		if e.Round != 0 {
			fmt.Fprintf(&b, " round=%d", e.Round)
		}
	case Decide:
		fmt.Fprintf(&b, " #%d %s", e.ID, e.Choice)
	case BoxChoice:
		fmt.Fprintf(&b, " box=%s %s", e.Box, e.Option)
		if e.Bet != 0 {
			fmt.Fprintf(&b, " %s", e.Bet)
		}
	case DealerOn, DealerOff:
		if e.Dealer != "" {
			fmt.Fprintf(&b, " %s", quote(e.Dealer))
		}
	case ShoeEnd:
		if e.Empty {
			b.WriteString(" empty")
		}
	}
	if e.Role != 0 {
		fmt.Fprintf(&b, " by %s", e.Role)
	}
	if e.Actor != "" {
		b.WriteString(" " + e.Actor)
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}
