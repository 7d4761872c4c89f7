package pitreport

import (
	"strconv"
	"strings"
	"time"

	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/pit"
)

// IrregularitiesSheet is the irregularities raised, with their decisions and who took
// them, and the dealer of each one's round.
func IrregularitiesSheet(irs []pit.Irregularity, loc *time.Location) Sheet {
	s := Sheet{Title: "Irregularities and decisions", Note: "Each irregularity raised, its rule, and the decision on it with who took it.",
		Columns: []string{"table", "shoe", "round", "#", "kind", "rule", "raised", "dealer", "decision", "by", "decided"},
		Num:     []bool{false, true, true, true, false, false, false, false, false, false, false}}
	for _, ir := range irs {
		s.Rows = append(s.Rows, []string{ir.Table, itoa(ir.Shoe), itoa(ir.Round), itoa(ir.ID), strings.ReplaceAll(ir.Kind, "_", " "), ir.Rule,
			Clock(ir.Raised, loc), ir.Dealer, ir.Decision, by(ir.DecidedRole, ir.Decider), Clock(ir.Decided, loc)})
	}
	return s
}

// AlertsSheet is the alerts raised, with who acknowledged each, when, and their note.
func AlertsSheet(as []history.Alert, loc *time.Location) Sheet {
	s := Sheet{Title: "Alerts", Note: "Each alert the console raised, and its acknowledgement: who, when, the note.",
		Columns: []string{"table", "kind", "alert", "since", "raised", "acknowledged by", "at", "note"},
		Num:     make([]bool, 8)}
	for _, a := range as {
		s.Rows = append(s.Rows, []string{a.Table, a.Kind, a.Text, Clock(a.Since, loc), Clock(a.Raised, loc), by(a.AckRole, a.AckBy),
			Clock(a.AckAt, loc), a.AckNote})
	}
	return s
}

// Shift is what a shift report is made of: the range and pit it covers, and what the
// archive holds of them.
type Shift struct {
	Pit            string
	From, To       time.Time
	Loc            *time.Location
	Rounds         []pit.Round
	Pace           pit.Pacer // when set, the pace figures in place of Rounds' (pit.ReadPace)
	Stills         []pit.Still
	Stints         []pit.Stint
	Irregularities []pit.Irregularity
	Alerts         []history.Alert
	Devices        []pit.DeviceFigure
}

// Sheets are the shift report's sheets, in order: pace per table and per dealer over
// the whole range, the rotation, the irregularities and decisions, the alerts and their
// acknowledgements, the devices.
func (s Shift) Sheets() []Sheet {
	pace := s.Pace
	if pace == nil {
		span := pit.Span{From: s.From, To: s.To}
		pace = func(still []pit.Still, by pit.By) []pit.Figure { return pit.Pace(s.Rounds, still, by, span) }
	}
	tables := PaceSheet(pace(s.Stills, pit.ByTable), "table", s.Loc)
	dealers := PaceSheet(pace(nil, pit.ByDealer), "dealer", s.Loc)
	return []Sheet{tables, dealers, RotationSheet(s.Stints, s.Loc), IrregularitiesSheet(s.Irregularities, s.Loc),
		AlertsSheet(s.Alerts, s.Loc), DevicesSheet(s.Devices, s.Loc)}
}

// Page is the shift report as a page for A4.
func (s Shift) Page() Page {
	title := "Shift report"
	if s.Pit != "" {
		title += ": " + s.Pit
	}
	return Page{Title: title, Covers: []string{"From " + Stamp(s.From, s.Loc) + " to " + Stamp(s.To, s.Loc) + " (" + s.Loc.String() + ").",
		"From the floor's archive: the rounds' own times, the dealers' stints, the decisions and the alerts as the archive holds them."},
		Sheets: s.Sheets()}
}

// itoa prints a shoe's, round's or irregularity's number; "" for none.
func itoa(n uint32) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatUint(uint64(n), 10)
}
