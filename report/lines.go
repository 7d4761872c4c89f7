package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
)

// CSVHeader is the first line of a CSV report: one row a round. docs/reports.md says
// what each column holds.
var CSVHeader = []string{"table", "rules", "shoe", "set", "round", "started", "ended",
	"player_cards", "banker_cards", "player_points", "banker_points", "result", "natural",
	"player_pair", "banker_pair", "void_reason", "wagers", "staked", "returned",
	"irregularities", "first_record", "last_record"}

// WriteCSV writes one row a round of the report's shoes, after CSVHeader.
func WriteCSV(w io.Writer, r *Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return fmt.Errorf("report: csv: %w", err)
	}
	for _, s := range r.Shoes {
		for _, rd := range s.Rounds {
			staked, returned := money(rd.Settlements)
			row := []string{r.Table, r.Rules, strconv.Itoa(int(s.Number)), s.Set, strconv.Itoa(int(rd.Number)),
				stamp(rd.Started), stamp(rd.Ended), cardList(rd.Player), cardList(rd.Banker),
				points(rd, true), points(rd, false), result(rd), yesNo(rd.Complete && natural(rd.Outcome)),
				yesNo(rd.Complete && rd.Outcome.PlayerPair), yesNo(rd.Complete && rd.Outcome.BankerPair), rd.VoidReason,
				strconv.Itoa(len(rd.Settlements)), strconv.FormatInt(staked, 10), strconv.FormatInt(returned, 10),
				irregularityList(s, rd), strconv.FormatUint(rd.FirstRecord, 10), strconv.FormatUint(rd.LastRecord, 10)}
			if err := cw.Write(row); err != nil {
				return fmt.Errorf("report: csv: %w", err)
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: csv: %w", err)
	}
	return nil
}

// WriteJSONLines writes the report as JSON lines: per shoe a "shoe" line, then its
// "round", "irregularity", "event" and "checkpoint" lines; then one "day" line a day.
// docs/reports.md says what each holds.
func WriteJSONLines(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	for _, s := range r.Shoes {
		if err := enc.Encode(newShoeLine(r, s)); err != nil {
			return fmt.Errorf("report: json: %w", err)
		}
		for _, rd := range s.Rounds {
			if err := enc.Encode(roundLineOf(r, s, rd)); err != nil {
				return fmt.Errorf("report: json: %w", err)
			}
		}
		for _, irr := range s.Irregularities {
			if err := enc.Encode(irregularityLineOf(r, s, irr)); err != nil {
				return fmt.Errorf("report: json: %w", err)
			}
		}
		for _, ev := range s.Events {
			if err := enc.Encode(eventLine{"event", r.Table, s.Number, ev.Kind, ev.At, ev.Detail, ev.Record}); err != nil {
				return fmt.Errorf("report: json: %w", err)
			}
		}
		for _, c := range s.Checkpoints {
			if err := enc.Encode(checkpointLine{"checkpoint", r.Table, s.Number, c}); err != nil {
				return fmt.Errorf("report: json: %w", err)
			}
		}
	}
	for _, d := range r.Days {
		if err := enc.Encode(dayLine{Type: "day", Table: r.Table, Day: d.Day, Summary: summaryJSON(d.Summary)}); err != nil {
			return fmt.Errorf("report: json: %w", err)
		}
	}
	return nil
}

type shoeLine struct {
	Type          string        `json:"type"`
	Table         string        `json:"table"`
	Rules         string        `json:"rules"`
	Shoe          uint32        `json:"shoe"`
	Set           string        `json:"set"`
	Decks         int           `json:"decks"`
	Cards         int           `json:"cards,omitempty"`
	OrderRecorded int           `json:"order_recorded"`
	Started       *time.Time    `json:"started,omitempty"`
	Ended         *time.Time    `json:"ended,omitempty"`
	Burned        []string      `json:"burned"`
	FirstRecord   uint64        `json:"first_record"`
	LastRecord    uint64        `json:"last_record"`
	Summary       summaryFields `json:"summary"`
}

func newShoeLine(r *Report, s *Shoe) shoeLine {
	return shoeLine{Type: "shoe", Table: r.Table, Rules: r.Rules, Shoe: s.Number, Set: s.Set, Decks: s.Decks,
		Cards: s.Cards, OrderRecorded: s.OrderRecorded, Started: timePtr(s.Started), Ended: timePtr(s.Ended),
		Burned: cardStrings(s.Burned), FirstRecord: s.FirstRecord, LastRecord: s.LastRecord, Summary: summaryJSON(s.Summary)}
}

type summaryFields struct {
	Rounds         int            `json:"rounds"`
	Banker         int            `json:"banker"`
	Player         int            `json:"player"`
	Tie            int            `json:"tie"`
	Void           int            `json:"void"`
	Irregularities map[string]int `json:"irregularities"`
	HeldSeconds    int64          `json:"held_seconds"`
	Cards          int            `json:"cards"`
	DealingSeconds int64          `json:"dealing_seconds"`
	CardsPerHour   int            `json:"cards_per_hour"`
}

func summaryJSON(s Summary) summaryFields {
	return summaryFields{Rounds: s.Rounds, Banker: s.Banker, Player: s.Player, Tie: s.Tie, Void: s.Void,
		Irregularities: s.Irregularities, HeldSeconds: int64(s.Held / time.Second), Cards: s.Cards,
		DealingSeconds: int64(s.Dealing / time.Second), CardsPerHour: s.CardsPerHour}
}

type roundLine struct {
	Type           string             `json:"type"`
	Table          string             `json:"table"`
	Shoe           uint32             `json:"shoe"`
	Set            string             `json:"set"`
	Round          uint32             `json:"round"`
	Started        *time.Time         `json:"started,omitempty"`
	Ended          *time.Time         `json:"ended,omitempty"`
	Player         []string           `json:"player"`
	Banker         []string           `json:"banker"`
	Outcome        *baccarat.Outcome  `json:"outcome,omitempty"`
	Void           bool               `json:"void"`
	VoidReason     string             `json:"void_reason,omitempty"`
	Settlements    []round.Settlement `json:"settlements"`
	Irregularities []uint32           `json:"irregularities"`
	FirstRecord    uint64             `json:"first_record"`
	LastRecord     uint64             `json:"last_record"`
}

func roundLineOf(r *Report, s *Shoe, rd *Round) roundLine {
	l := roundLine{Type: "round", Table: r.Table, Shoe: s.Number, Set: s.Set, Round: rd.Number,
		Started: timePtr(rd.Started), Ended: timePtr(rd.Ended), Player: cardStrings(rd.Player), Banker: cardStrings(rd.Banker),
		Void: rd.Void, VoidReason: rd.VoidReason, Settlements: rd.Settlements, Irregularities: rd.Irregularities,
		FirstRecord: rd.FirstRecord, LastRecord: rd.LastRecord}
	if l.Settlements == nil {
		l.Settlements = []round.Settlement{}
	}
	if l.Irregularities == nil {
		l.Irregularities = []uint32{}
	}
	if rd.Complete {
		o := rd.Outcome
		l.Outcome = &o
	}
	return l
}

type irregularityLine struct {
	Type     string     `json:"type"`
	Table    string     `json:"table"`
	Shoe     uint32     `json:"shoe"`
	Round    uint32     `json:"round"`
	ID       uint32     `json:"id"`
	Kind     string     `json:"irregularity"`
	Rule     string     `json:"rule"`
	Raised   time.Time  `json:"raised"`
	Reason   string     `json:"reason"`
	Holds    bool       `json:"holds"`
	Choice   string     `json:"choice,omitempty"`
	By       string     `json:"decided_by,omitempty"`
	Actor    string     `json:"actor,omitempty"`
	Decided  *time.Time `json:"decided,omitempty"`
	Decision string     `json:"decision_reason,omitempty"`
}

func irregularityLineOf(r *Report, s *Shoe, irr *Irregularity) irregularityLine {
	l := irregularityLine{Type: "irregularity", Table: r.Table, Shoe: s.Number, Round: irr.Round, ID: irr.ID,
		Kind: irregularities.Lookup(irr.Kind).ID, Rule: irr.Rule, Raised: irr.Raised, Reason: irr.Reason, Holds: irr.Holds}
	if d := irr.Decision; d != nil {
		l.Choice, l.By, l.Actor, l.Decided, l.Decision = d.Choice.String(), decider(d), d.Actor, timePtr(d.At), d.Reason
	}
	return l
}

type eventLine struct {
	Type   string    `json:"type"`
	Table  string    `json:"table"`
	Shoe   uint32    `json:"shoe"`
	Kind   EventKind `json:"event"`
	At     time.Time `json:"at"`
	Detail string    `json:"detail,omitempty"`
	Record uint64    `json:"record"`
}

type checkpointLine struct {
	Type       string             `json:"type"`
	Table      string             `json:"table"`
	Shoe       uint32             `json:"shoe"`
	Checkpoint journal.Checkpoint `json:"checkpoint"`
}

type dayLine struct {
	Type    string        `json:"type"`
	Table   string        `json:"table"`
	Day     string        `json:"day"`
	Summary summaryFields `json:"summary"`
}

// decider names who made a decision: the role (and person), or "rule".
func decider(d *Decision) string {
	if d.Role == 0 {
		return "rule"
	}
	return d.Role.String()
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func cardStrings(cs []baccarat.Card) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return out
}

func cardList(cs []baccarat.Card) string { return strings.Join(cardStrings(cs), " ") }

func points(rd *Round, player bool) string {
	if !rd.Complete {
		return ""
	}
	if player {
		return strconv.Itoa(int(rd.Outcome.PlayerPoints))
	}
	return strconv.Itoa(int(rd.Outcome.BankerPoints))
}

// result is "banker", "player", "tie", "void" or "" for a round still in play.
func result(rd *Round) string {
	switch {
	case rd.Void:
		return "void"
	case !rd.Complete:
		return ""
	}
	t, _ := rd.Outcome.Winner.MarshalText()
	return string(t)
}

func natural(o baccarat.Outcome) bool {
	return (o.PlayerCards == 2 && o.PlayerPoints >= 8) || (o.BankerCards == 2 && o.BankerPoints >= 8)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// money adds up the stakes placed and the amounts returned of a round's settlements.
func money(ss []round.Settlement) (staked, returned int64) {
	for _, s := range ss {
		staked += int64(s.Wager.Stake)
		returned += int64(s.Returned)
	}
	return staked, returned
}

// irregularityList describes the irregularities of a round for the CSV, e.g.
// "#3 simultaneous_draw (RWS Baccarat 5.10): as_read by supervisor S17".
func irregularityList(s *Shoe, rd *Round) string {
	byID := map[uint32]*Irregularity{}
	for _, irr := range s.Irregularities {
		byID[irr.ID] = irr
	}
	var parts []string
	for _, id := range rd.Irregularities {
		irr := byID[id]
		if irr == nil {
			continue
		}
		p := fmt.Sprintf("#%d %s (%s)", id, irregularities.Lookup(irr.Kind).ID, irr.Rule)
		if d := irr.Decision; d != nil {
			p += ": " + d.Choice.String() + " by " + decider(d)
			if d.Actor != "" {
				p += " " + d.Actor
			}
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// sortedKinds returns a summary's irregularity ids in order.
func sortedKinds(m map[string]int) []string { return slices.Sorted(maps.Keys(m)) }
