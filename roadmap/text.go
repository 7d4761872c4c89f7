package roadmap

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tablectl/tablectl/baccarat"
)

// ANSI colours for the terminal drawing.
const (
	ansiRed   = "\x1b[1;31m"
	ansiBlue  = "\x1b[1;94m"
	ansiGreen = "\x1b[1;32m"
	ansiReset = "\x1b[0m"
)

// BeadText is how a bead plate cell is written: the winner B, P or T, the point total
// when known, then b for a Banker pair, p for a Player pair and n for a natural, for
// example "B7", "T4bp", "Pn".
func BeadText(r Round) string {
	return cellString(r.Winner, r.Points, r.BankerPair, r.PlayerPair, r.Natural)
}

// BigRoadText is how a Big Road cell is written: the winner B or P, the number of ties
// counted on it when there are any, then b for a Banker pair and p for a Player pair,
// for example "B", "P2", "B1bp".
func BigRoadText(c BigRoadCell) string {
	ties := c.Ties
	if ties == 0 {
		ties = -1
	}
	return cellString(c.Winner, ties, c.BankerPair, c.PlayerPair, false)
}

// cellString writes a winner's letter, then number n unless it is negative, then b, p
// and n for the marks that are set.
func cellString(w baccarat.Winner, n int, bankerPair, playerPair, natural bool) string {
	s := w.String()
	if n >= 0 {
		s += strconv.Itoa(n)
	}
	for _, m := range [...]struct {
		set    bool
		letter string
	}{{bankerPair, "b"}, {playerPair, "p"}, {natural, "n"}} {
		if m.set {
			s += m.letter
		}
	}
	return s
}

// MarkText is how a derived road cell is written: R for red, B for blue.
func MarkText(k Mark) string {
	switch k {
	case Red:
		return "R"
	case Blue:
		return "B"
	}
	return "-"
}

// cellText is a cell's position, text and colour, for drawing.
type cellText struct {
	Pos
	text, color string
}

// drawGrid writes a road as a grid of rows lines: cells one space apart, each padded to
// the widest cell, "." for an empty cell.
func drawGrid(b *strings.Builder, rows int, cells []cellText, color bool) {
	if len(cells) == 0 {
		b.WriteString("  (empty)\n")
		return
	}
	cols, width := 0, 1
	for _, c := range cells {
		cols = max(cols, c.Col+1)
		width = max(width, len(c.text))
	}
	board := make([]*cellText, rows*cols)
	for i := range cells {
		board[cells[i].Row*cols+cells[i].Col] = &cells[i]
	}
	var line strings.Builder
	for row := range rows {
		line.Reset()
		line.WriteString(" ")
		for col := range cols {
			line.WriteByte(' ')
			c := board[row*cols+col]
			switch {
			case c == nil:
				line.WriteString(pad(".", width))
			case color && c.color != "":
				line.WriteString(c.color + pad(c.text, width) + ansiReset)
			default:
				line.WriteString(pad(c.text, width))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
}

func pad(s string, width int) string {
	return s + strings.Repeat(" ", width-len(s))
}

func winnerColor(w baccarat.Winner) string {
	switch w {
	case baccarat.BankerWins:
		return ansiRed
	case baccarat.PlayerWins:
		return ansiBlue
	}
	return ansiGreen
}

func markColor(k Mark) string {
	if k == Red {
		return ansiRed
	}
	return ansiBlue
}

// Title is the road's name as a person reads it: "Big Eye Boy", "Small Road" or
// "Cockroach Pig".
func (r Road) Title() string {
	switch r {
	case BigEyeBoy:
		return "Big Eye Boy"
	case SmallRoad:
		return "Small Road"
	}
	return "Cockroach Pig"
}

// WriteText draws the roadmap for a terminal: the bead plate, the Big Road, the three
// derived roads, the predictions and the statistics. Cells are written as BeadText,
// BigRoadText and MarkText give; with color set, Banker results and red marks are red,
// Player results and blue marks blue, ties green (ANSI escapes).
func WriteText(w io.Writer, m *Map, color bool) error {
	var b strings.Builder
	s := m.Settings()

	b.WriteString("Bead plate\n")
	cells := make([]cellText, len(m.rounds))
	for i, r := range m.rounds {
		cells[i] = cellText{Pos: m.BeadPos(i), text: BeadText(r), color: winnerColor(r.Winner)}
	}
	drawGrid(&b, s.BeadRows, cells, color)

	b.WriteString("\nBig Road\n")
	cells = cells[:0]
	for _, c := range m.big {
		cells = append(cells, cellText{Pos: c.Pos, text: BigRoadText(c), color: winnerColor(c.Winner)})
	}
	drawGrid(&b, s.Rows, cells, color)

	for i := range m.derived {
		fmt.Fprintf(&b, "\n%s\n", Road(i).Title())
		cells = cells[:0]
		for _, c := range m.derived[i].cells {
			cells = append(cells, cellText{Pos: c.Pos, text: MarkText(c.Mark), color: markColor(c.Mark)})
		}
		drawGrid(&b, s.DerivedRows, cells, color)
	}

	b.WriteString("\nNext result   Big Eye Boy  Small Road  Cockroach Pig\n")
	for _, next := range []struct {
		name  string
		marks [3]Mark
	}{{"Banker", m.pred.Banker}, {"Player", m.pred.Player}} {
		line := fmt.Sprintf("  %-12s", next.name)
		for i, k := range next.marks {
			t := MarkText(k)
			if color && k != NoMark {
				t = markColor(k) + t + ansiReset
			}
			line += t + strings.Repeat(" ", len(Road(i).Title())+2-1)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}

	st := m.stats
	cards := "unknown"
	if st.CardsRemaining != UnknownCards {
		cards = strconv.Itoa(st.CardsRemaining)
	}
	fmt.Fprintf(&b, "\nRounds %d: Banker %d, Player %d, Tie %d\n", st.Rounds, st.Banker, st.Player, st.Tie)
	fmt.Fprintf(&b, "Pairs: Banker %d, Player %d. Naturals %d.\n", st.BankerPairs, st.PlayerPairs, st.Naturals)
	fmt.Fprintf(&b, "Longest run: Banker %d, Player %d. Cards remaining: %s.\n", st.LongestBanker, st.LongestPlayer, cards)

	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("roadmap: writing the roads: %w", err)
	}
	return nil
}
