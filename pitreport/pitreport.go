// Package pitreport writes the pit's figures for people: rounds an hour, the dealers'
// rotation, and the rest of a shift's report, as CSV, JSON or an HTML page that prints on
// A4. It formats what the pit package computed and the archive read; it reads no
// database and no clock. docs/pit.md shows each figure.
package pitreport

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tablectl/tablectl/pit"
)

// Sheet is one figure as a table: a title, a line of what it counts, the columns, and
// the rows, each a cell a column, as text. Num says which columns are numbers (set
// right on the page).
type Sheet struct {
	Title   string
	Note    string
	Columns []string
	Num     []bool
	Rows    [][]string
}

// Formats are the output formats, by name.
var Formats = []string{"csv", "json", "html"}

// CheckFormat refuses a format that is not one of Formats.
func CheckFormat(f string) error {
	for _, g := range Formats {
		if f == g {
			return nil
		}
	}
	return fmt.Errorf("format %q: want %s", f, strings.Join(Formats, ", "))
}

// WriteCSV writes s as CSV: a header line of its columns, then its rows.
func WriteCSV(w io.Writer, s Sheet) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(s.Columns); err != nil {
		return err
	}
	if err := cw.WriteAll(s.Rows); err != nil {
		return err
	}
	return cw.Error()
}

// WriteJSON writes v, one figure's typed lines, as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Page is an HTML page of sheets: its title, what it covers (a line each), and the
// sheets in order.
type Page struct {
	Title  string
	Covers []string
	Sheets []Sheet
}

// WriteHTML writes p as one self-contained HTML page (no script, no address fetched)
// that prints on A4, landscape: the figures' tables are wide.
func WriteHTML(w io.Writer, p Page) error { return pageTemplate.Execute(w, p) }

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
@page { size: A4 landscape; margin: 10mm 10mm 12mm; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { font: 9pt/1.35 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #111; margin: 0 auto; max-width: 277mm; }
h1 { font-size: 15pt; margin: 0 0 2mm; }
h2 { font-size: 11pt; margin: 5mm 0 1mm; border-bottom: 0.3mm solid #999; padding-bottom: 0.8mm; break-after: avoid; }
p { margin: 0.5mm 0 1.5mm; color: #444; }
table { border-collapse: collapse; width: 100%; font-size: 7.5pt; }
th, td { border: 0.2mm solid #bbb; padding: 0.5mm 1.2mm; text-align: left; vertical-align: top; }
th { background: #eee; font-weight: 600; }
thead { display: table-header-group; }
tr { break-inside: avoid; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
p.none { color: #666; font-style: italic; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Covers}}<p>{{.}}</p>
{{end}}{{range .Sheets}}{{$num := .Num}}<section>
<h2>{{.Title}}</h2>
{{if .Note}}<p>{{.Note}}</p>
{{end}}{{if .Rows}}<table>
<thead><tr>{{range $i, $c := .Columns}}<th{{if index $num $i}} class="n"{{end}}>{{$c}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if index $num $i}} class="n"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{else}}<p class="none">None.</p>
{{end}}</section>
{{end}}</body>
</html>
`))

// Stamp prints a time in loc as the sheets do, to the minute: "2026-03-02 14:00".
func Stamp(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format("2006-01-02 15:04")
}

// Clock prints a time in loc to the second: "2026-03-02 14:00:07".
func Clock(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format("2006-01-02 15:04:05")
}

// Minutes prints a duration in whole minutes and seconds: "12:07".
func Minutes(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d:%02d", int(d/time.Minute), int(d%time.Minute/time.Second))
}

// Seconds prints a duration in seconds to a tenth: "41.5".
func Seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) }

// Rate prints rounds an hour to a tenth.
func Rate(r float64) string { return strconv.FormatFloat(r, 'f', 1, 64) }

// PaceSheet is the pace figures as a sheet: per is what they are grouped by (table,
// dealer or pit), in the periods they were cut into.
func PaceSheet(figs []pit.Figure, per string, loc *time.Location) Sheet {
	cols := []string{per, "from", "to", "rounds", "void", "per hour", "per dealing hour", "stand-still"}
	num := []bool{false, false, false, true, true, true, true, true}
	for _, r := range pit.StillReasons {
		cols, num = append(cols, r), append(num, true)
	}
	for _, p := range phaseNames {
		cols, num = append(cols, p+" (s)"), append(num, true)
	}
	s := Sheet{Title: "Pace by " + per, Columns: cols, Num: num,
		Note: "Rounds credited to their first card. Stand-still in minutes:seconds; each phase's mean in seconds (docs/pit.md)."}
	for _, f := range figs {
		row := []string{f.Key, Stamp(f.From, loc), Stamp(f.To, loc), strconv.Itoa(f.Rounds), strconv.Itoa(f.Void),
			Rate(f.PerHour), Rate(f.PerDealingHour), Minutes(f.Still)}
		for _, r := range pit.StillReasons {
			row = append(row, Minutes(f.StillBy[r]))
		}
		m := f.Mean
		for _, d := range []time.Duration{m.Betting, m.Dealing, m.Windows, m.Holds, m.Confirm} {
			row = append(row, Seconds(d))
		}
		s.Rows = append(s.Rows, row)
	}
	return s
}

// phaseNames are the phases, in the order of pit.Phases.
var phaseNames = []string{"betting", "dealing", "windows", "holds", "confirming"}

// PaceLine is one figure as JSON: durations in milliseconds.
type PaceLine struct {
	Key            string           `json:"key"`
	From           time.Time        `json:"from"`
	To             time.Time        `json:"to"`
	Rounds         int              `json:"rounds"`
	Void           int              `json:"void"`
	PerHour        float64          `json:"per_hour"`
	PerDealingHour float64          `json:"per_dealing_hour"`
	StillMS        int64            `json:"still_ms"`
	StillByMS      map[string]int64 `json:"still_by_ms"`
	MeanMS         map[string]int64 `json:"mean_ms"`
}

// PaceLines are the figures as JSON lines.
func PaceLines(figs []pit.Figure) []PaceLine {
	out := make([]PaceLine, 0, len(figs))
	for _, f := range figs {
		l := PaceLine{Key: f.Key, From: f.From, To: f.To, Rounds: f.Rounds, Void: f.Void, PerHour: f.PerHour,
			PerDealingHour: f.PerDealingHour, StillMS: f.Still.Milliseconds(), StillByMS: map[string]int64{}, MeanMS: map[string]int64{}}
		for _, r := range pit.StillReasons {
			l.StillByMS[r] = f.StillBy[r].Milliseconds()
		}
		m := f.Mean
		for i, d := range []time.Duration{m.Betting, m.Dealing, m.Windows, m.Holds, m.Confirm} {
			l.MeanMS[phaseNames[i]] = d.Milliseconds()
		}
		out = append(out, l)
	}
	return out
}

// RotationSheet is the dealers' stints as a sheet: who dealt where, from when to when,
// and who recorded each end. A stint still open has no end.
func RotationSheet(stints []pit.Stint, loc *time.Location) Sheet {
	s := Sheet{Title: "Rotation", Note: "Each dealer's time at a table, from dealer-on to dealer-off.",
		Columns: []string{"dealer", "table", "pit", "from", "to", "time", "on by", "off by", "note"},
		Num:     []bool{false, false, false, false, false, true, false, false, false}}
	for _, st := range stints {
		length := ""
		if !st.To.IsZero() {
			length = Minutes(st.To.Sub(st.From))
		}
		s.Rows = append(s.Rows, []string{st.Dealer, st.Table, st.Pit, Clock(st.From, loc), Clock(st.To, loc), length,
			by(st.OnRole, st.OnBy), by(st.OffRole, st.OffBy), st.Note})
	}
	return s
}

// by names who recorded a change: "supervisor S-1"; a dealer in their own name is
// "dealer".
func by(role, who string) string { return strings.TrimSpace(role + " " + who) }
