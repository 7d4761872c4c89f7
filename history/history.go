// Package history is the vocabulary of a search of the rounds the floor's archive
// holds: the search, a round's place in its order, a page of rounds, and one round
// whole. The archive answers in it (archive.DB) and the console asks in it
// (console.History), so neither needs the other.
package history

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxSearchLimit is the most rounds one page of a search returns.
const MaxSearchLimit = 1000

// DefaultSearchLimit is a page's rounds when a search gives no limit.
const DefaultSearchLimit = 100

// Search is a search of the rounds an archive holds. Every condition given must hold;
// one left at its zero value does not restrict. Rounds come in a stable order: by the
// time the round ended, then table, shoe, round, and the record that ended it.
type Search struct {
	// Tables are the tables searched. Empty means every table: a caller that limits a
	// person to some tables must check that the list it passes is not empty.
	Tables []string
	// From and To bound the time the round ended: From <= ended < To.
	From, To time.Time
	// Kind is an irregularity's kind (incorrect_cards, simultaneous_draw...): rounds
	// with an irregularity of that kind.
	Kind string
	// Decision is a decision's choice (continue, void...): rounds with an irregularity
	// decided so.
	Decision string
	// Person is a person's name: rounds where they decided an irregularity or gave a
	// command.
	Person string
	// Limit is the most rounds returned (DefaultSearchLimit when 0, at most
	// MaxSearchLimit).
	Limit int
	// After is the last round of the page before (its Cursor): the search goes on after
	// it. Nil starts at the first.
	After *Cursor
}

// Cursor is a round's place in the order of a search: a page goes on after it.
type Cursor struct {
	Ended time.Time
	Table string
	Shoe  uint32
	Round uint32
	Seq   uint64
}

// String writes the cursor as one token for a URL: the end time in Unix microseconds,
// the shoe, round and record, then the table id, joined by '.' (a table id may hold
// dots; it comes last).
func (c Cursor) String() string {
	return fmt.Sprintf("%d.%d.%d.%d.%s", c.Ended.UnixMicro(), c.Shoe, c.Round, c.Seq, c.Table)
}

// ParseCursor reads a Cursor's String.
func ParseCursor(s string) (Cursor, error) {
	parts := strings.SplitN(s, ".", 5)
	if len(parts) != 5 || parts[4] == "" {
		return Cursor{}, fmt.Errorf("cursor %q: want micros.shoe.round.seq.table", s)
	}
	var n [4]uint64
	for i := range 4 {
		bits := 32
		if i == 0 || i == 3 {
			bits = 63
		}
		v, err := strconv.ParseUint(parts[i], 10, bits)
		if err != nil {
			return Cursor{}, fmt.Errorf("cursor %q: part %d: %w", s, i+1, err)
		}
		n[i] = v
	}
	return Cursor{Ended: time.UnixMicro(int64(n[0])).UTC(), Shoe: uint32(n[1]), Round: uint32(n[2]), Seq: n[3], Table: parts[4]}, nil
}

// RoundRow is one round as a search returns it.
type RoundRow struct {
	Table string `json:"table"`
	Shoe  uint32 `json:"shoe"`
	Round uint32 `json:"round"`
	// FirstSeq and Seq are the round's first record and the record that ended it
	// (settled or void): Seq names the round in RoundDetail.
	FirstSeq uint64    `json:"first_seq"`
	Seq      uint64    `json:"seq"`
	Started  time.Time `json:"started,omitzero"`
	Ended    time.Time `json:"ended"`
	// Player and Banker are the hands' cards as the reports write them ("9S KD").
	Player string `json:"player"`
	Banker string `json:"banker"`
	// Winner is banker, player or tie; empty for a void round.
	Winner       string `json:"winner,omitempty"`
	PlayerPoints int    `json:"player_points"`
	BankerPoints int    `json:"banker_points"`
	Void         bool   `json:"void,omitempty"`
	VoidReason   string `json:"void_reason,omitempty"`
	// Irregularities are the kinds of the round's irregularities, in the order raised.
	Irregularities []string `json:"irregularities,omitempty"`
}

// Cursor is the row's place in the order: the next page starts after it.
func (r RoundRow) Cursor() Cursor {
	return Cursor{Ended: r.Ended, Table: r.Table, Shoe: r.Shoe, Round: r.Round, Seq: r.Seq}
}

// Page is one page of a search.
type Page struct {
	Rounds []RoundRow `json:"rounds"`
	// Next is the cursor of the page after, nil when this page is the last.
	Next *Cursor `json:"-"`
}

// RoundDetail is one round whole: its row, its settlements, its irregularities with
// their decisions, and the commands given during it.
type RoundDetail struct {
	RoundRow
	Settlements    []SettlementRow  `json:"settlements"`
	Irregularities []IrregularityIn `json:"irregularities"`
	Commands       []CommandIn      `json:"commands"`
}

// SettlementRow is one box's wager as the table settled it (docs/mqtt.md, result):
// money in the table's smallest unit.
type SettlementRow struct {
	Box         string `json:"box"`
	Seat        string `json:"seat,omitempty"`
	Bet         string `json:"bet"`
	Stake       int64  `json:"stake"`
	Effective   int64  `json:"effective_stake"`
	Result      string `json:"result"`
	Won         int64  `json:"won"`
	Returned    int64  `json:"returned"`
	Rule        string `json:"rule"`
	MayWithdraw bool   `json:"may_withdraw,omitempty"`
	Option      string `json:"option,omitempty"`
}

// IrregularityIn is one irregularity of a round, with its decision when one was made.
type IrregularityIn struct {
	Seq    uint64    `json:"seq"`
	ID     uint32    `json:"id"`
	Kind   string    `json:"kind"`
	Rule   string    `json:"rule"`
	Raised time.Time `json:"raised,omitzero"`
	Reason string    `json:"reason"`
	// Holds: the irregularity held the table for a decision.
	Holds          bool      `json:"holds"`
	Decision       string    `json:"decision,omitempty"`
	DecidedRole    string    `json:"decided_role,omitempty"`
	DecidedBy      string    `json:"decided_by,omitempty"`
	Decided        time.Time `json:"decided,omitzero"`
	DecisionReason string    `json:"decision_reason,omitempty"`
}

// CommandIn is one command given during a round, with the person's name.
type CommandIn struct {
	Seq    uint64    `json:"seq"`
	At     time.Time `json:"at,omitzero"`
	Kind   string    `json:"kind"`
	Role   string    `json:"role,omitempty"`
	Actor  string    `json:"actor,omitempty"`
	Detail string    `json:"detail,omitempty"`
}

// ErrNoRound is RoundDetail's error for a round the archive does not hold.
var ErrNoRound = errors.New("archive: no such round")

// Alert is an alert the console raised, as the archive keeps it, with its
// acknowledgement (AckBy empty while none): docs/pit.md, "Alerts".
type Alert struct {
	ID, Table, Pit, Kind string
	Since, Raised        time.Time
	Text                 string
	AckBy, AckRole       string
	AckAt                time.Time
	AckNote              string
}

// AlertSearch chooses alerts: raised in From <= t < To (either zero: unbounded), of one
// table, kind or ID when not empty, only those not acknowledged when Open.
type AlertSearch struct {
	From, To        time.Time
	Table, Kind, ID string
	Open            bool
}

// PitFilter chooses what the pit's figures are read from: the time range (From <= t <
// To; a round by the time it is credited to, its first card), and a table, dealer or pit
// when not empty. Now is the moment the figures are read at: a stint or stretch still
// open ends there, or at To if that is earlier.
type PitFilter struct {
	From, To           time.Time
	Table, Dealer, Pit string
	Now                time.Time
}

// IntegrityAlarm is an alarm of the integrity watch (docs/integrity.md), as the archive
// keeps it with the alerts: the alert, acknowledged as any other, and what it found.
type IntegrityAlarm struct {
	Alert
	Evidence IntegrityEvidence
}

// IntegrityEvidence is what an integrity alarm found. Each kind fills its own fields:
// the repeated order and the shuffler's input Other and Runs; the weak shuffle the
// statistic and its p-values; the set the cards named; the drift the rounds counted.
type IntegrityEvidence struct {
	// Shoe is the shoe the alarm is of; Other the shoe it shares runs with.
	Shoe  ShoeRef  `json:"shoe"`
	Other *ShoeRef `json:"other,omitempty"`
	// Runs are the maximal runs the two shoes share, by position in Shoe.
	Runs []SharedRun `json:"runs,omitempty"`
	// Neighbours is the weak-shuffle statistic (integrity.Neighbours), Expected what
	// chance gives, P its p-value; Combined is Fisher's p-value over PS, the table's last
	// sets' p-values, oldest first; Alarm the threshold they were read against.
	Neighbours int       `json:"neighbours,omitempty"`
	Expected   float64   `json:"expected,omitempty"`
	P          float64   `json:"p,omitempty"`
	Combined   float64   `json:"combined,omitempty"`
	PS         []float64 `json:"ps,omitempty"`
	Alarm      float64   `json:"alarm,omitempty"`
	// Over are the cards dealt more often than the set's decks hold. Missing are the
	// cards of the shuffler's order passed over, never dealt; Foreign the cards dealt
	// of which the order holds no copy left (not counted as the set's); Misplaced the
	// cards dealt where the order did not have them. Dealt, Undealt and SetCards count
	// the cards dealt, those the order holds behind the last dealt (behind the cut card),
	// and the set's as the shuffler reported it.
	Over      []CardCount `json:"over,omitempty"`
	Missing   []string    `json:"missing,omitempty"`
	Foreign   []string    `json:"foreign,omitempty"`
	Misplaced []string    `json:"misplaced,omitempty"`
	Dealt     int         `json:"dealt,omitempty"`
	Undealt   int         `json:"undealt,omitempty"`
	SetCards  int         `json:"set_cards,omitempty"`
	// Outcome is the result a drift followed (banker, player or tie): Seen of Rounds
	// rounds against RoundsExpected at its exact rate P0; P1 the raised rate looked for,
	// Sum the CUSUM when it reached H = ln(ARL).
	Outcome        string  `json:"outcome,omitempty"`
	Rounds         int     `json:"rounds,omitempty"`
	Seen           int     `json:"seen,omitempty"`
	RoundsExpected float64 `json:"rounds_expected,omitempty"`
	P0             float64 `json:"p0,omitempty"`
	P1             float64 `json:"p1,omitempty"`
	Sum            float64 `json:"sum,omitempty"`
	H              float64 `json:"h,omitempty"`
	ARL            float64 `json:"arl,omitempty"`
}

// ShoeRef names a shoe of the floor: its table, its number there, the shuffler's set,
// the record that started it, and its first and last records' times.
type ShoeRef struct {
	Table    string    `json:"table"`
	Shoe     uint32    `json:"shoe"`
	Set      string    `json:"set,omitempty"`
	FirstSeq uint64    `json:"first_seq"`
	Started  time.Time `json:"started"`
	Ended    time.Time `json:"ended"`
}

// SharedRun is a run of Len cards two shoes share: from position A of the first (0 is
// its first card read, burns included) and B of the other; Cards are the run's cards
// as the reports write them ("9S KD"), the same in both.
type SharedRun struct {
	A     int    `json:"a"`
	B     int    `json:"b"`
	Len   int    `json:"len"`
	Cards string `json:"cards"`
}

// CardCount is a card dealt Dealt times where the decks hold Allowed.
type CardCount struct {
	Card    string `json:"card"`
	Dealt   int    `json:"dealt"`
	Allowed int    `json:"allowed"`
}

// PositionsReport is the position test of COMAR 36.05.02.17 over a table's sets
// (integrity.Positions): the sets tallied and those left out (dealt shorter than Depth
// cards), the test's figures, and Counts[card][part] for each card (by
// baccarat.Card.Index) named in Cards.
type PositionsReport struct {
	Table   string    `json:"table"`
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	Depth   int       `json:"depth"`
	Buckets int       `json:"buckets"`
	Sets    int       `json:"sets"`
	Short   int       `json:"short"`
	Chi2    float64   `json:"chi2"`
	DF      int       `json:"df"`
	P       float64   `json:"p"`
	Passes  bool      `json:"passes"`
	Cards   []string  `json:"cards"`
	Counts  [][]int64 `json:"counts"`
}
