package api

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The words the messages and the commands carry: roles, cards and slots, bets and
// seats, results, irregularity kinds, decisions and options. Each is its text on the
// wire, and api holds every word a field may take, so a subscriber reads and checks the
// messages, and a client checks a command, without the game's engine. The engine keeps
// its own values; the packages that know both sides convert (messages/wire.go, and the
// tests there that every engine value has its word and every word its value).

// Role is who gives a command or makes a decision. Roles are ordered, lowest first:
// each may do what the roles below it may (RWS Baccarat 1.13: Dealer, Pit Supervisor,
// Pit Manager; 5.17: Table Game Shift Manager). A command topic is cmd/<role>.
type Role uint8

// The roles, lowest first.
const (
	RoleDealer Role = iota + 1
	RoleSupervisor
	RolePitManager
	RoleShiftManager
)

// roleNames are the roles' names, by value; "?" is no role.
var roleNames = [...]string{"?", "dealer", "supervisor", "pit_manager", "shift_manager"}

// Roles are the roles, lowest first.
var Roles = []Role{RoleDealer, RoleSupervisor, RolePitManager, RoleShiftManager}

// String names the role as the command topics do: dealer, supervisor, pit_manager,
// shift_manager ("?" for none).
func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "?"
}

// MarshalText prints the role's name.
func (r Role) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a role's name.
func (r *Role) UnmarshalText(b []byte) error {
	v, err := ParseRole(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// ParseRole reads a role's name.
func ParseRole(s string) (Role, error) {
	for _, r := range Roles {
		if roleNames[r] == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("unknown role %q: want one of %s", s, strings.Join(roleNames[1:], ", "))
}

// CardCode is a card as the messages write it: its rank (A, 2-9, T, J, Q, K) then its
// suit (S, H, D, C), as "9H" or "TS".
type CardCode string

// ParseCardCode reads a card in rank-then-suit notation, either case: "AS", "as", "TH",
// "10H", "kd". It returns the card as the messages write it ("TH" for "10h").
func ParseCardCode(s string) (CardCode, error) {
	if len(s) < 2 || len(s) > 3 {
		return "", fmt.Errorf("card %q: want a rank (A, 2-10, T, J, Q, K) then a suit (S, H, D, C)", s)
	}
	rank, suit := strings.ToUpper(s[:len(s)-1]), strings.ToUpper(s[len(s)-1:])
	if rank == "10" {
		rank = "T"
	}
	if len(rank) != 1 || !strings.Contains(rankLetters, rank) {
		return "", fmt.Errorf("card %q: unknown rank %q", s, s[:len(s)-1])
	}
	if !strings.Contains(suitLetters, suit) {
		return "", fmt.Errorf("card %q: unknown suit %q", s, s[len(s)-1:])
	}
	return CardCode(rank + suit), nil
}

// The ranks and the suits of a card's code, in order.
const (
	rankLetters = "A23456789TJQK"
	suitLetters = "SHDC"
)

// Valid reports whether c is a card as the messages write it: a rank letter then a
// suit letter, upper case.
func (c CardCode) Valid() bool {
	return len(c) == 2 && strings.IndexByte(rankLetters, c[0]) >= 0 && strings.IndexByte(suitLetters, c[1]) >= 0
}

// MarshalText writes the card's code; a code that is no card is an error.
func (c CardCode) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("marshal card: %q is not a card", string(c))
	}
	return []byte(c), nil
}

// UnmarshalText reads a card as ParseCardCode does.
func (c *CardCode) UnmarshalText(b []byte) error {
	v, err := ParseCardCode(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Slot is a card's place in a round, in drawing order: P1, B1, P2, B2, then P3 and B3
// (RWS Baccarat 3.10, 3.11). "" is none.
type Slot string

// Slots are the six slots, in drawing order.
var Slots = []Slot{"P1", "B1", "P2", "B2", "P3", "B3"}

// UnmarshalText reads a slot's name, or "none".
func (s *Slot) UnmarshalText(b []byte) error {
	if string(b) == "none" {
		*s = ""
		return nil
	}
	return readWord(s, b, Slots, func() error {
		return fmt.Errorf("slot %q: want P1, B1, P2, B2, P3, B3 or none", b)
	})
}

// Bet is a bet identifier, as "banker" or "player_wins_on_4" (docs/rules.md).
type Bet string

// Bets are every bet identifier of the five rule sets.
var Bets = func() []Bet {
	bs := []Bet{"player", "banker", "tie", "player_pair", "banker_pair", "super_six_plus"}
	for _, side := range []string{"player", "banker"} {
		for n := 1; n <= 9; n++ {
			bs = append(bs, Bet(side+"_wins_on_"+strconv.Itoa(n)))
		}
	}
	for n := 0; n <= 9; n++ {
		bs = append(bs, Bet("tie_wins_on_"+strconv.Itoa(n)))
	}
	return append(bs, "royal_tie", "player_insurance", "banker_insurance")
}()

// ParseBet reads a bet identifier.
func ParseBet(s string) (Bet, error) {
	if !slices.Contains(Bets, Bet(s)) {
		return "", fmt.Errorf("unknown bet %q", s)
	}
	return Bet(s), nil
}

// UnmarshalText reads a bet identifier.
func (t *Bet) UnmarshalText(b []byte) error {
	v, err := ParseBet(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Seat says whose a wager is in its box: the seated player's or a standing player's
// (RWS Baccarat 1.20, 1.21). A wager that names none is the seated player's.
type Seat string

// The seats.
const (
	Seated   Seat = "seated"
	Standing Seat = "standing"
)

// Seats are the seats.
var Seats = []Seat{Seated, Standing}

// UnmarshalText reads seated or standing.
func (s *Seat) UnmarshalText(b []byte) error {
	return readWord(s, b, Seats, func() error {
		return fmt.Errorf("unknown seat %q: want seated or standing", b)
	})
}

// Money is an amount in the table's smallest unit (a cent, a chip unit).
type Money int64

// Wager is one bet placed in one betting box: the box, whose it is (left out: the
// seated player's), the bet and the stake.
type Wager struct {
	Box   string `json:"box"`
	Seat  Seat   `json:"seat,omitempty"`
	Bet   Bet    `json:"bet"`
	Stake Money  `json:"stake"`
}

// Resolution is how a bet ends: lose, win or push (undecided while its round is not).
type Resolution string

// Resolutions are the ways a bet ends, undecided first.
var Resolutions = []Resolution{"undecided", "lose", "win", "push"}

// UnmarshalText reads undecided, lose, win or push.
func (r *Resolution) UnmarshalText(b []byte) error {
	return readWord(r, b, Resolutions, func() error {
		return fmt.Errorf("unknown bet result %q", b)
	})
}

// Winner is the result of a round: player, banker, tie, or none for a round not
// complete.
type Winner string

// MarshalText writes the winner; "" is none.
func (w Winner) MarshalText() ([]byte, error) {
	if w == "" {
		return []byte("none"), nil
	}
	return []byte(w), nil
}

// Winners are the results of a round, none first.
var Winners = []Winner{"none", "player", "banker", "tie"}

// UnmarshalText reads player, banker, tie or none.
func (w *Winner) UnmarshalText(b []byte) error {
	return readWord(w, b, Winners, func() error {
		return fmt.Errorf("unknown winner %q", b)
	})
}

// Outcome is everything about a complete round a bet can depend on: the winner, the
// hands' points and card counts, the pairs, and the suits' class for the Royal Tie
// (unsuited, flush, straight_flush, royal_flush).
type Outcome struct {
	Winner       Winner `json:"winner"`
	PlayerPoints int    `json:"player_points"`
	BankerPoints int    `json:"banker_points"`
	PlayerCards  int    `json:"player_cards"`
	BankerCards  int    `json:"banker_cards"`
	PlayerPair   bool   `json:"player_pair"`
	BankerPair   bool   `json:"banker_pair"`
	Suits        string `json:"suits"`
}

// InsuranceOffer is an Insurance bet open to the table: its row of the Insurance pay
// table (NC Insurance 4.1.2), the bet, the stage (after_four_cards or
// after_player_third), the points the row is for (as "5" or "0-4"), what it pays (as
// "2:1"), and whether a Tie wins it too.
type InsuranceOffer struct {
	Row          int    `json:"row"`
	Bet          Bet    `json:"bet"`
	Stage        string `json:"stage"`
	PlayerPoints string `json:"player_points"`
	BankerPoints string `json:"banker_points"`
	Odds         string `json:"odds"`
	TieWins      bool   `json:"tie_wins,omitempty"`
}

// Limits are a table's betting limits, in its smallest unit (docs/rules.md, "Limits"):
// each bet's minimum and maximum stake, a box's maximum Differential (0: none), what
// is done with an excess over it (reject or pro_rata), and the layout's boxes (0: any).
type Limits struct {
	Min             map[Bet]Money `json:"min,omitempty"`
	Max             map[Bet]Money `json:"max,omitempty"`
	MaxDifferential Money         `json:"max_differential,omitempty"`
	Excess          string        `json:"excess"`
	Boxes           int           `json:"boxes,omitempty"`
}

// IrregularityKind is an irregularity's identifier, as "wrong_hand"
// (docs/irregularities.md).
type IrregularityKind string

// IrregularityKinds are every kind of irregularity, in the catalogue's order.
var IrregularityKinds = []IrregularityKind{"technical_interruption", "foreign_card", "card_count",
	"incorrect_cards", "insufficient_cards", "not_shuffled", "excess_card", "wrong_hand", "exposed_card",
	"simultaneous_draw", "late_error", "insurance_not_offered", "bad_shuffle", "device_fault"}

// The kinds a command's fields name.
const (
	LateError IrregularityKind = "late_error"
)

// ParseIrregularityKind reads an irregularity's identifier.
func ParseIrregularityKind(s string) (IrregularityKind, error) {
	if !slices.Contains(IrregularityKinds, IrregularityKind(s)) {
		return "", fmt.Errorf("unknown irregularity %q", s)
	}
	return IrregularityKind(s), nil
}

// UnmarshalText reads an irregularity's identifier.
func (k *IrregularityKind) UnmarshalText(b []byte) error {
	v, err := ParseIrregularityKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Severity is how urgently the table must react to an irregularity: notice, warning,
// hold or critical.
type Severity string

// Severities are the severities, least urgent first.
var Severities = []Severity{"notice", "warning", "hold", "critical"}

// UnmarshalText reads a severity.
func (s *Severity) UnmarshalText(b []byte) error {
	return readWord(s, b, Severities, func() error {
		return fmt.Errorf("unknown severity %q (want one of %s)", b, joinWords(Severities))
	})
}

// Action is what the table does about an irregularity: continue, decide, reconstruct,
// void-round, refuse-shoe or by-rule.
type Action string

// Actions are the actions.
var Actions = []Action{"continue", "decide", "reconstruct", "void-round", "refuse-shoe", "by-rule"}

// UnmarshalText reads an action.
func (a *Action) UnmarshalText(b []byte) error {
	return readWord(a, b, Actions, func() error {
		return fmt.Errorf("unknown action %q (want one of %s)", b, joinWords(Actions))
	})
}

// Choice is a decision the rules allow on a held irregularity.
type Choice string

// Choices are every decision, as the decide command names them.
var Choices = []Choice{"as-read", "swapped", "reconstructed", "continue", "void"}

// ParseChoice reads a decision's name.
func ParseChoice(s string) (Choice, error) {
	if !slices.Contains(Choices, Choice(s)) {
		return "", fmt.Errorf("unknown decision %q: want one of %s", s, joinWords(Choices))
	}
	return Choice(s), nil
}

// UnmarshalText reads a decision's name.
func (c *Choice) UnmarshalText(b []byte) error {
	v, err := ParseChoice(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// BoxOption is one box's choice after an irregularity, as the box_option command
// records it (RWS Baccarat 5.12, NC Insurance 5.13, NC Tournament 3.9).
type BoxOption string

// The options a command's fields name.
const (
	OptionInsuranceIntended BoxOption = "insurance-intended"
)

// BoxOptions are the options a box_option command records, in the order a form offers
// them.
var BoxOptions = []BoxOption{"continue", "continue-reconstructed", "bet-returned", OptionInsuranceIntended, "withdraw"}

// ParseBoxOption reads an option's name.
func ParseBoxOption(s string) (BoxOption, error) {
	if !slices.Contains(BoxOptions, BoxOption(s)) {
		return "", fmt.Errorf("unknown option %q: want one of %s", s, joinWords(BoxOptions))
	}
	return BoxOption(s), nil
}

// UnmarshalText reads an option's name.
func (o *BoxOption) UnmarshalText(b []byte) error {
	v, err := ParseBoxOption(string(b))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// readWord sets *w to b when b is one of words, else returns refused's error.
func readWord[W ~string](w *W, b []byte, words []W, refused func() error) error {
	if !slices.Contains(words, W(b)) {
		return refused()
	}
	*w = W(b)
	return nil
}

// joinWords joins words with commas.
func joinWords[W ~string](words []W) string {
	s := make([]string, len(words))
	for i, w := range words {
		s[i] = string(w)
	}
	return strings.Join(s, ", ")
}
