package roadmap

// Pos is a cell of a drawn road: its column from the left and its row from the top, both
// from 0.
type Pos struct {
	Col, Row int
}

// grid lays the entries of a road out on a board of a fixed number of rows, the way the
// Big Road is drawn (roadmap R3.3); the derived roads are drawn the same way (R4.6):
//
//   - the first entry takes the top left cell;
//   - an entry that starts a new run (a change of winner, or of colour) takes the top cell
//     of the first column right of the previous run's first cell whose top cell is free;
//   - an entry that continues the run goes down while the cell below is on the board and
//     free; otherwise the run turns right and from then on runs along that row (the
//     dragon tail), so a tail that meets an earlier tail turns above it.
//
// A tail never runs into an occupied cell: every earlier cell right of the run's column
// lies on an earlier tail, which is on a lower row, or it would have stopped the run
// higher up.
//
// Occupancy is kept in a column-major bitmap that grows by doubling, so placing an entry
// costs constant amortised time, and nothing once the bitmap is large enough.
type grid struct {
	rows   int
	occ    []bool // occ[col*rows+row]; len is a whole number of columns
	used   int    // columns touched since the last reset
	placed int    // entries placed since the last reset
	start  int    // column of the current run's first cell
	last   Pos    // the last cell placed
	tail   bool   // the current run has turned right
}

// reset empties the board and keeps its storage.
func (g *grid) reset() {
	clear(g.occ[:g.used*g.rows])
	*g = grid{rows: g.rows, occ: g.occ}
}

// taken reports whether cell (col, row) holds an entry.
func (g *grid) taken(col, row int) bool {
	i := col*g.rows + row
	return i < len(g.occ) && g.occ[i]
}

// place lays out one more entry, which starts a new run when newRun is set, and returns
// its cell.
func (g *grid) place(newRun bool) Pos {
	var p Pos
	switch {
	case g.placed == 0:
		g.start, g.tail = 0, false
	case newRun:
		c := g.start + 1
		for g.taken(c, 0) {
			c++
		}
		p = Pos{Col: c}
		g.start, g.tail = c, false
	case !g.tail && g.last.Row+1 < g.rows && !g.taken(g.last.Col, g.last.Row+1):
		p = Pos{Col: g.last.Col, Row: g.last.Row + 1}
	default:
		g.tail = true
		p = Pos{Col: g.last.Col + 1, Row: g.last.Row}
	}
	if p.Col >= len(g.occ)/g.rows {
		g.grow(p.Col + 1)
	}
	g.occ[p.Col*g.rows+p.Row] = true
	g.used = max(g.used, p.Col+1)
	g.placed++
	g.last = p
	return p
}

// grow makes room for at least cols columns, at least doubling the board.
func (g *grid) grow(cols int) {
	n := max(cols, 2*len(g.occ)/g.rows, 16)
	occ := make([]bool, n*g.rows)
	copy(occ, g.occ)
	g.occ = occ
}
