package api

import (
	"fmt"
	"time"
)

// The payloads of the topics (docs/mqtt.md). Each names the topic it goes on.

// Schema is the version of the message layout, in every message. 2: a result's
// settlements are flat (box, seat, bet, stake, effective_stake, result, won, returned,
// rule), as `tablectl settle` prints them.
const Schema = 2

// Envelope is what every message carries: which table, shoe and round it belongs to, a
// sequence number and the time of the event it reports. Seq counts the messages of the
// card, result and irregularity topics of a table in one series, with no gaps: a
// subscriber that sees a number skipped has missed a message, and one it has seen before
// is a duplicate. The retained state and roadmap carry the Seq of the latest message.
type Envelope struct {
	Schema int       `json:"schema"`
	Table  string    `json:"table"`
	Shoe   uint32    `json:"shoe"`
	Round  uint32    `json:"round"`
	Seq    uint64    `json:"seq"`
	At     time.Time `json:"at"`
}

// JournalHead is the retained journal message (topic journal): the journal's chain head
// signed with the table's key at the end of the round the envelope names
// (docs/journal.md, "Tamper evidence"). A witness keeps each one it receives;
// `tablectl journal verify --key PUBKEY --witness FILE` checks the journal against them.
type JournalHead struct {
	Envelope
	Checkpoint Checkpoint `json:"checkpoint"`
}

// Status is the retained status of the table (topic status). It is published on every
// connect, on every shoe's start and end, on every change of a device's connection or
// of the supervisor call, and once "offline" on a clean stop, with the stop's time
// (NewStatus, StatusDue, StatusAs).
type Status struct {
	Envelope
	State string `json:"state"` // Online or Offline
	Rules string `json:"rules"`
	// RulesName is the rule set's name for people ("NC Insurance"), and RulesFamily the
	// game it is a variant of ("non-commission"), from its book (baccarat.Rulebook's
	// Display and Family): the console and the board show them. Absent from a table
	// that did not send them.
	RulesName   string `json:"rules_name,omitempty"`
	RulesFamily string `json:"rules_family,omitempty"`
	// Decks is the shoe's deck count, or the table's before its first shoe (0: the
	// table takes any count its rule set allows); Set is the set's identity, "" before
	// the first shoe. Both are always present.
	Decks   int    `json:"decks"`
	Set     string `json:"set"`
	Version string `json:"version"`
	// NoInsurance: the table offers no Insurance though its rule set has it (the
	// dealer.no_insurance setting), which a notice at the table says (NC Insurance
	// 4.2.2). Absent when false.
	NoInsurance bool `json:"no_insurance,omitempty"`
	// Devices says, per device, "connected", "disconnected" or "absent".
	Devices map[string]string `json:"devices,omitempty"`
	// Call is "supervisor" while the dealer's call for a Pit Supervisor stands.
	Call string `json:"call,omitempty"`
	// Dealer is the dealer on the table, "" while none is (the dealer_on and dealer_off
	// commands, docs/pit.md). Always present.
	Dealer string `json:"dealer"`

	// Held is the irregularity the table is held for, as in the state message, while
	// it is held: why, and the decision it waits for.
	Held *Held `json:"held,omitempty"`
	// Limits are the table's betting limits, for the board to show (RWS Baccarat 3.4):
	// each bet's minimum and maximum, a box's maximum Differential, what is done with an
	// excess, the layout's boxes. Absent when the table has none.
	Limits *Limits `json:"limits,omitempty"`
	// PayRounded: the table accepts stakes whose winnings are not whole units and rounds
	// their payouts (dealer.pay_rounded), which the board says. Absent when false.
	PayRounded bool `json:"pay_rounded,omitempty"`
	// Archive is how far the floor's archive is behind the table's journal, for a table
	// that ships it (archive.ship). The status is published again when the archive
	// becomes late (a record it does not hold was written 5 s ago or more) or is no
	// longer, and when it holds every record after a status said it did not.
	Archive *ArchiveLag `json:"archive,omitempty"`
}

// SlotCard is a card in its slot. CardNo is the shoe's card number (0: none), published
// as shoe_seq; an envelope's seq is the message number.
type SlotCard struct {
	Slot   Slot     `json:"slot"`
	Card   CardCode `json:"card"`
	CardNo uint64   `json:"shoe_seq,omitempty"`
}

// Card is one card placed in its hand (topic card).
type Card struct {
	Envelope
	SlotCard
	PlayerPoints int `json:"player_points"`
	BankerPoints int `json:"banker_points"`
}

// BetResult is one bet identifier's resolution in a round.
type BetResult struct {
	Bet    Bet        `json:"bet"`
	Result Resolution `json:"result"`
	// Odds is what a win pays, e.g. "0.95:1"; OddsNum and OddsDen the exact ratio.
	Odds    string `json:"odds,omitempty"`
	OddsNum uint32 `json:"odds_num,omitempty"`
	OddsDen uint32 `json:"odds_den,omitempty"`
	// Offer is the Insurance pay-table row the bet was offered on.
	Offer *InsuranceOffer `json:"offer,omitempty"`
}

// Result is a finished or void round (topic result).
type Result struct {
	Envelope
	Void         bool         `json:"void"`
	Reason       string       `json:"reason,omitempty"`
	Player       []CardCode   `json:"player"`
	Banker       []CardCode   `json:"banker"`
	PlayerPoints int          `json:"player_points"`
	BankerPoints int          `json:"banker_points"`
	Winner       Winner       `json:"winner"`
	Natural      bool         `json:"natural"`
	PlayerPair   bool         `json:"player_pair"`
	BankerPair   bool         `json:"banker_pair"`
	Suits        string       `json:"suits,omitempty"`
	Bets         []BetResult  `json:"bets"`
	Settlements  []Settlement `json:"settlements,omitempty"`
}

// Settlement is one wager's settlement in a result, flat, as `tablectl settle` prints
// it: the wager (box, seat, bet, stake), the part of the stake that played, the bet's
// result, the winnings, everything handed back and the decision's rule; may_withdraw
// and option when set.
type Settlement struct {
	Box         string     `json:"box"`
	Seat        Seat       `json:"seat"`
	Bet         Bet        `json:"bet"`
	Stake       Money      `json:"stake"`
	Effective   Money      `json:"effective_stake"`
	Result      Resolution `json:"result"`
	Won         Money      `json:"won"`
	Returned    Money      `json:"returned"`
	Rule        string     `json:"rule"`
	MayWithdraw bool       `json:"may_withdraw,omitempty"`
	Option      BoxOption  `json:"option,omitempty"`
}

// Irregularity is an irregularity raised or resolved, a warning for the dealer, or a
// step of the players' options window (topic irregularity).
type Irregularity struct {
	Envelope
	// Event is "raised", "resolved", "dealer_warning", or for the players' options
	// "options_opened", "option_recorded" and "options_closed".
	Event         string           `json:"event"`
	ID            uint32           `json:"id,omitempty"`
	Kind          IrregularityKind `json:"kind,omitempty"`
	Rule          string           `json:"rule,omitempty"`
	Severity      Severity         `json:"severity,omitempty"`
	Action        Action           `json:"action,omitempty"`
	Display       string           `json:"display,omitempty"`
	Reason        string           `json:"reason,omitempty"`
	PlayerOptions bool             `json:"player_options,omitempty"`
	// Choices and DecidedBy, while the table is held: the decisions allowed and the
	// lowest role that may make them.
	Choices   []Choice `json:"choices,omitempty"`
	DecidedBy Role     `json:"decided_by,omitempty"`
	// Choice, Role and Actor, once resolved: what was decided and by whom (Role empty:
	// by the rule itself). Role and Actor of an irregularity raised by a report: who
	// reported it.
	Choice Choice `json:"choice,omitempty"`
	Role   Role   `json:"role,omitempty"`
	Actor  string `json:"actor,omitempty"`
	// Device, of an irregularity raised: the device whose failure raised it ("shoe" for
	// a card it could not read; the device, "shoe", "shuffler" or "gpio", for its own
	// fault); empty for any other irregularity.
	Device string `json:"device,omitempty"`
	// Box and Option, for option_recorded: the box and its choice (Bet: the Insurance
	// intended, NC Insurance 5.13).
	Box    string    `json:"box,omitempty"`
	Option BoxOption `json:"option,omitempty"`
	Bet    Bet       `json:"bet,omitempty"`
	// Options, for the options events: the window as it stands after the event.
	Options *Options `json:"options,omitempty"`
}

// Options is the players' options window of the round in play (RWS Baccarat 5.12;
// docs/irregularities.md, "The players' options"): the irregularity that gave the options,
// its rule, whether the window is still open (the table held until it closes), the
// options a box may take, the lowest role that may close the window, and each box in
// play with its choice (none yet: it continues when the window closes).
type Options struct {
	Irregularity uint32           `json:"irregularity"`
	Kind         IrregularityKind `json:"kind"`
	Rule         string           `json:"rule"`
	Open         bool             `json:"open"`
	Choices      []BoxOption      `json:"choices"`
	ClosedBy     Role             `json:"closed_by"`
	Boxes        []WindowBox      `json:"boxes"`
}

// WindowBox is a box in play in the players' options window, with its choice (none
// yet: absent).
type WindowBox struct {
	Box    string    `json:"box"`
	Option BoxOption `json:"option,omitempty"`
}

// Held is the irregularity the table is held for, in the state.
type Held struct {
	ID        uint32           `json:"id"`
	Kind      IrregularityKind `json:"kind"`
	Rule      string           `json:"rule"`
	Display   string           `json:"display"`
	Choices   []Choice         `json:"choices"`
	DecidedBy Role             `json:"decided_by"`
	Pending   []CardCode       `json:"pending,omitempty"`
	// Reason is what was seen, as the irregularity was raised with it.
	Reason string `json:"reason,omitempty"`
	// Role and Actor are who reported the irregularity, as its raised message says them;
	// both absent when the table raised it itself. Raised is when it was raised. So a
	// console that never saw the raised message still shows the hold in full.
	Role   Role      `json:"role,omitempty"`
	Actor  string    `json:"actor,omitempty"`
	Raised time.Time `json:"raised,omitzero"`
	// Options: no decision is awaited (or it is made): the table is held for the
	// players' options (the state's options), until every box has chosen or a
	// supervisor (decided_by) closes them.
	Options bool `json:"options,omitempty"`
}

// State is the whole current picture of the table (topic state, retained). Phase is the
// round's: no-shoe, burning, betting-open, dealing, complete, shoe-done or next-set.
type State struct {
	Envelope
	Phase          string           `json:"phase"`
	BettingOpen    bool             `json:"betting_open"`
	Rules          string           `json:"rules"`
	Decks          int              `json:"decks,omitempty"`
	Set            string           `json:"set,omitempty"`
	Cards          []SlotCard       `json:"cards"`
	PlayerPoints   int              `json:"player_points"`
	BankerPoints   int              `json:"banker_points"`
	Next           Slot             `json:"next_slot,omitempty"`
	Outcome        *Outcome         `json:"outcome,omitempty"`
	Offers         []InsuranceOffer `json:"insurance_offers"`
	Held           *Held            `json:"held,omitempty"`
	Options        *Options         `json:"options,omitempty"`
	CutCard        bool             `json:"cut_card"`
	CardsDrawn     int              `json:"cards_drawn"`
	CardsRemaining int              `json:"cards_remaining"`
	Burning        bool             `json:"burning,omitempty"`
}

// Reply answers a command (topic cmd/reply).
type Reply struct {
	Schema int       `json:"schema"`
	Table  string    `json:"table"`
	At     time.Time `json:"at"`
	ID     string    `json:"id,omitempty"`
	Role   string    `json:"role"`
	OK     bool      `json:"ok"`
	Error  string    `json:"error,omitempty"`
	// Effects are what the command did, as one-line texts.
	Effects []string `json:"effects,omitempty"`
}

// Roadmap is the shoe's roads (topic roadmap, retained): the bead plate, the big road,
// the derived roads, the predictions and the statistics.
type Roadmap struct {
	Envelope
	Roads
}

// Roads are the roads of a shoe and their statistics, as the roadmap message carries
// them.
type Roads struct {
	BeadPlate    []Bead      `json:"bead_plate"`
	BigRoad      []BigRoad   `json:"big_road"`
	BigEyeBoy    DerivedRoad `json:"big_eye_boy"`
	SmallRoad    DerivedRoad `json:"small_road"`
	CockroachPig DerivedRoad `json:"cockroach_pig"`
	Predictions  Predictions `json:"predictions"`
	Stats        RoadStats   `json:"stats"`
}

// Bead is a bead plate cell. Points is left out when the point total is unknown.
type Bead struct {
	Col        int    `json:"col"`
	Row        int    `json:"row"`
	Outcome    string `json:"outcome"` // "B", "P" or "T"
	Points     *int   `json:"points,omitempty"`
	BankerPair bool   `json:"banker_pair"`
	PlayerPair bool   `json:"player_pair"`
	Natural    bool   `json:"natural"`
}

// BigRoad is a Big Road cell: a column of one winner, the ties on it.
type BigRoad struct {
	Col        int    `json:"col"`
	Row        int    `json:"row"`
	Outcome    string `json:"outcome"` // "B" or "P"
	Ties       int    `json:"ties"`
	BankerPair bool   `json:"banker_pair"`
	PlayerPair bool   `json:"player_pair"`
}

// DerivedRoad is a derived road: its marks in the order they were added, and the same
// marks as drawn cells.
type DerivedRoad struct {
	Marks []Mark     `json:"marks"`
	Cells []MarkCell `json:"cells"`
}

// MarkCell is a cell of a derived road.
type MarkCell struct {
	Col  int  `json:"col"`
	Row  int  `json:"row"`
	Mark Mark `json:"mark"`
}

// Mark is a mark of a derived road: MarkRed, MarkBlue, or NoMark (null in JSON).
type Mark string

// The marks.
const (
	NoMark   Mark = ""
	MarkRed  Mark = "red"
	MarkBlue Mark = "blue"
)

// MarshalJSON writes "red", "blue", or null for NoMark.
func (k Mark) MarshalJSON() ([]byte, error) {
	switch k {
	case MarkRed, MarkBlue:
		return []byte(`"` + string(k) + `"`), nil
	case NoMark:
		return []byte("null"), nil
	}
	return nil, fmt.Errorf("roadmap: mark %q is not red, blue or none", string(k))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (k *Mark) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"red"`:
		*k = MarkRed
	case `"blue"`:
		*k = MarkBlue
	case "null":
		*k = NoMark
	default:
		return fmt.Errorf("roadmap: mark %s is not \"red\", \"blue\" or null", b)
	}
	return nil
}

// NextMarks are the marks each derived road would add on one next result; null for
// none.
type NextMarks struct {
	BigEyeBoy    Mark `json:"big_eye_boy"`
	SmallRoad    Mark `json:"small_road"`
	CockroachPig Mark `json:"cockroach_pig"`
}

// Predictions are the marks the next Banker and the next Player result would add.
type Predictions struct {
	Banker NextMarks `json:"banker"`
	Player NextMarks `json:"player"`
}

// RoadStats are the shoe's statistics; cards_remaining is null when unknown.
type RoadStats struct {
	Rounds         int  `json:"rounds"`
	Banker         int  `json:"banker"`
	Player         int  `json:"player"`
	Tie            int  `json:"tie"`
	BankerPairs    int  `json:"banker_pairs"`
	PlayerPairs    int  `json:"player_pairs"`
	Naturals       int  `json:"naturals"`
	LongestBanker  int  `json:"longest_banker_streak"`
	LongestPlayer  int  `json:"longest_player_streak"`
	CardsRemaining *int `json:"cards_remaining"`
}

// The states a status says.
const (
	Online  = "online"
	Offline = "offline"
)

// The events of an irregularity message (Irregularity.Event).
const (
	EventRaised         = "raised"
	EventResolved       = "resolved"
	EventDealerWarning  = "dealer_warning"
	EventOptionsOpened  = "options_opened"
	EventOptionRecorded = "option_recorded"
	EventOptionsClosed  = "options_closed"
)
