package report

import (
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/roadmap"
)

//go:embed report.html.tmpl
var htmlTemplate string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"time":     func(t time.Time) string { return clock(t) },
	"datetime": func(t time.Time) string { return longStamp(t) },
	"cards":    cardList,
	"points":   points,
	"result":   result,
	"natural":  func(rd *Round) bool { return rd.Complete && natural(rd.Outcome) },
	"staked":   func(rd *Round) int64 { s, _ := money(rd.Settlements); return s },
	"returned": func(rd *Round) int64 { _, r := money(rd.Settlements); return r },
	"kindID":   func(k irregularities.Kind) string { return irregularities.Lookup(k).ID },
	"decider":  decider,
	"duration": duration,
	"kinds":    sortedKinds,
	"roads":    roadsSVG,
	"short":    func(s string) string { return s[:16] + "…" + s[len(s)-8:] },
	"b64":      base64.StdEncoding.EncodeToString,
	"irrs":     irregularityList,
}).Parse(htmlTemplate))

// WriteHTML writes the report as one self-contained HTML page (no script, no file or
// address fetched) that prints on A4: each shoe from a new page, with its summary, its
// roads as the board draws them, its rounds, irregularities, events and signed heads;
// then the summary of each day.
func WriteHTML(w io.Writer, r *Report) error {
	if err := page.Execute(w, r); err != nil {
		return fmt.Errorf("report: html: %w", err)
	}
	return nil
}

func clock(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("15:04:05")
}

func longStamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func duration(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	if h > 0 {
		return fmt.Sprintf("%dh %02dm %02ds", h, m, s)
	}
	return fmt.Sprintf("%dm %02ds", m, s)
}

// The roads' colours, as on the board.
const (
	red   = "#c8102e"
	blue  = "#1f4fbf"
	green = "#138a36"
)

// roadsSVG draws a shoe's bead plate, Big Road and derived roads from its settled
// rounds, by the roadmap package that draws the board's.
func roadsSVG(s *Shoe) template.HTML {
	m, err := roadmap.New(roadmap.Settings{})
	if err != nil {
		return ""
	}
	for _, rd := range s.Rounds {
		if rd.Complete && !rd.Void && !rd.Ended.IsZero() {
			if m.Add(roadmap.FromOutcome(rd.Outcome)) != nil {
				return ""
			}
		}
	}
	j := m.JSON()
	var b strings.Builder
	b.WriteString(`<div class="roads">`)
	road := func(title, cls string, cols, rows, cell int, draw func(*strings.Builder, int)) {
		cols = max(cols, 12)
		fmt.Fprintf(&b, `<figure class="road %s"><figcaption>%s</figcaption><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d">`,
			cls, title, cols*cell, rows*cell, cols*cell, rows*cell)
		for c := 0; c <= cols; c++ {
			fmt.Fprintf(&b, `<line x1="%d" y1="0" x2="%d" y2="%d" class="grid"/>`, c*cell, c*cell, rows*cell)
		}
		for r := 0; r <= rows; r++ {
			fmt.Fprintf(&b, `<line x1="0" y1="%d" x2="%d" y2="%d" class="grid"/>`, r*cell, cols*cell, r*cell)
		}
		draw(&b, cell)
		b.WriteString(`</svg></figure>`)
	}
	colour := map[string]string{"B": red, "P": blue, "T": green}
	beadCols := 0
	for _, c := range j.BeadPlate {
		beadCols = max(beadCols, c.Col+1)
	}
	road("Bead plate", "bead", beadCols, roadmap.DefaultRows, 16, func(b *strings.Builder, cell int) {
		for _, c := range j.BeadPlate {
			x, y := c.Col*cell+cell/2, c.Row*cell+cell/2
			fmt.Fprintf(b, `<circle cx="%d" cy="%d" r="%d" fill="%s"/><text x="%d" y="%d">%s</text>`,
				x, y, cell/2-1, colour[c.Outcome], x, y+4, c.Outcome)
		}
	})
	bigCols := 0
	for _, c := range j.BigRoad {
		bigCols = max(bigCols, c.Col+1)
	}
	road("Big Road", "big", bigCols, roadmap.DefaultRows, 16, func(b *strings.Builder, cell int) {
		for _, c := range j.BigRoad {
			x, y := c.Col*cell+cell/2, c.Row*cell+cell/2
			fmt.Fprintf(b, `<circle cx="%d" cy="%d" r="%d" fill="none" stroke="%s" stroke-width="2"/>`, x, y, cell/2-3, colour[c.Outcome])
			if c.Ties > 0 {
				fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>`, x-4, y+4, x+4, y-4, green)
				if c.Ties > 1 {
					fmt.Fprintf(b, `<text x="%d" y="%d" class="ties">%d</text>`, x, y+4, c.Ties)
				}
			}
			// Pair dots sit in the cell's corners, outside the ring.
			if c.BankerPair {
				fmt.Fprintf(b, `<circle cx="%d" cy="%d" r="2" fill="%s"/>`, x-cell/2+2, y-cell/2+2, red)
			}
			if c.PlayerPair {
				fmt.Fprintf(b, `<circle cx="%d" cy="%d" r="2" fill="%s"/>`, x+cell/2-2, y+cell/2-2, blue)
			}
		}
	})
	markColour := map[roadmap.Mark]string{roadmap.Red: red, roadmap.Blue: blue}
	derived := func(title, cls string, d roadmap.JSONDerived, mark func(b *strings.Builder, x, y, cell int, col string)) {
		cols := 0
		for _, c := range d.Cells {
			cols = max(cols, c.Col+1)
		}
		road(title, cls, cols, roadmap.DefaultRows, 10, func(b *strings.Builder, cell int) {
			for _, c := range d.Cells {
				mark(b, c.Col*cell+cell/2, c.Row*cell+cell/2, cell, markColour[c.Mark])
			}
		})
	}
	derived("Big Eye Boy", "derived", j.BigEyeBoy, func(b *strings.Builder, x, y, cell int, col string) {
		fmt.Fprintf(b, `<circle cx="%d" cy="%d" r="%d" fill="none" stroke="%s" stroke-width="1.5"/>`, x, y, cell/2-2, col)
	})
	derived("Small Road", "derived", j.SmallRoad, func(b *strings.Builder, x, y, cell int, col string) {
		fmt.Fprintf(b, `<circle cx="%d" cy="%d" r="%d" fill="%s"/>`, x, y, cell/2-2, col)
	})
	derived("Cockroach Pig", "derived", j.CockroachPig, func(b *strings.Builder, x, y, cell int, col string) {
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.5"/>`, x-3, y+3, x+3, y-3, col)
	})
	b.WriteString(`</div>`)
	return template.HTML(b.String())
}
