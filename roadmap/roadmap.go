// Package roadmap holds the roads of a shoe that a baccarat display board shows: the bead
// plate, the Big Road, the three derived roads (Big Eye Boy, Small Road, Cockroach Pig),
// the predictions of the derived roads for the next result, and the shoe's statistics.
// A Map takes one round's result at a time and updates everything in constant amortised
// time, without allocating once its storage has grown to the size of a shoe. It is pure:
// no I/O beyond the readers and writers it is handed, no clock, no randomness.
//
// The rules as implemented are written out and numbered in docs/roadmap.md, and cited
// here as "roadmap R3.3". The roads are information only: the result at the table
// prevails over any display (RWS Baccarat 5.14).
package roadmap

import (
	"fmt"

	"github.com/tablectl/tablectl/baccarat"
)

// Mark is a mark of a derived road.
type Mark uint8

// The marks. NoMark stands for "no mark", where a road has nothing to compare yet.
const (
	NoMark Mark = iota
	Red
	Blue
)

// String names the mark: "red", "blue", or "none".
func (k Mark) String() string {
	switch k {
	case Red:
		return "red"
	case Blue:
		return "blue"
	}
	return "none"
}

// MarshalJSON writes "red", "blue", or null for NoMark.
func (k Mark) MarshalJSON() ([]byte, error) {
	switch k {
	case Red:
		return []byte(`"red"`), nil
	case Blue:
		return []byte(`"blue"`), nil
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (k *Mark) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"red"`:
		*k = Red
	case `"blue"`:
		*k = Blue
	case "null":
		*k = NoMark
	default:
		return fmt.Errorf("roadmap: mark %s is not \"red\", \"blue\" or null", b)
	}
	return nil
}

// Road names one of the three derived roads.
type Road uint8

// The derived roads, each comparing Big Road columns k apart (see Offset).
const (
	BigEyeBoy    Road = iota // k = 1
	SmallRoad                // k = 2
	CockroachPig             // k = 3
)

// Offset is k, how many Big Road columns back the road compares: 1, 2 or 3.
func (r Road) Offset() int { return int(r) + 1 }

// String names the road: "big_eye_boy", "small_road" or "cockroach_pig", as in JSON.
func (r Road) String() string {
	switch r {
	case BigEyeBoy:
		return "big_eye_boy"
	case SmallRoad:
		return "small_road"
	case CockroachPig:
		return "cockroach_pig"
	}
	return fmt.Sprintf("road(%d)", uint8(r))
}

// DefaultRows is the number of rows of every road unless Settings say otherwise.
const DefaultRows = 6

// MaxRows is the most rows a road may have.
const MaxRows = 64

// Settings are the sizes of the roads and the house's way of drawing the derived roads.
// The zero Settings are the usual board: six rows everywhere, the straight drop red.
type Settings struct {
	// BeadRows is the number of rows of the bead plate (0 means DefaultRows).
	BeadRows int
	// Rows is the number of rows of the Big Road (0 means DefaultRows).
	Rows int
	// DerivedRows is the number of rows of each derived road (0 means DefaultRows).
	DerivedRows int
	// StraightDropBlue draws the straight drop blue: a new entry two or more rows below
	// the end of the compared column. By default it is red (roadmap R4.5).
	StraightDropBlue bool
}

// withDefaults fills in the zero settings and checks the rest.
func (s Settings) withDefaults() (Settings, error) {
	for _, f := range []struct {
		name string
		v    *int
	}{{"bead plate rows", &s.BeadRows}, {"big road rows", &s.Rows}, {"derived road rows", &s.DerivedRows}} {
		if *f.v == 0 {
			*f.v = DefaultRows
		}
		if *f.v < 1 || *f.v > MaxRows {
			return s, fmt.Errorf("roadmap: %s %d: must be 1 to %d", f.name, *f.v, MaxRows)
		}
	}
	return s, nil
}

// BeadCell is a cell of the bead plate: one round, ties included (roadmap R2).
type BeadCell struct {
	Pos
	Round
}

// BigRoadCell is a cell of the Big Road: one Banker or Player result, with the ties that
// followed it (roadmap R3).
type BigRoadCell struct {
	Pos
	// Winner is PlayerWins or BankerWins.
	Winner baccarat.Winner
	// Ties counts the ties after this result and before the next Banker or Player result;
	// on the first cell it also counts the ties before it.
	Ties int
	// BankerPair and PlayerPair are the pairs of this cell's own round (roadmap R3.5).
	BankerPair, PlayerPair bool
}

// MarkCell is a cell of a derived road.
type MarkCell struct {
	Pos
	Mark Mark
}

// Predictions are the marks that each derived road would add on the next result being a
// Banker win or a Player win (the "ask road"), indexed by Road. NoMark means the road
// would add nothing. A tie adds nothing anywhere (roadmap R5).
type Predictions struct {
	Banker, Player [3]Mark
}

// UnknownCards is Stats.CardsRemaining until the caller says how many cards are left.
const UnknownCards = -1

// Stats are the shoe's statistics (roadmap R6).
type Stats struct {
	Rounds      int // rounds dealt
	Banker      int // Banker wins
	Player      int // Player wins
	Tie         int // ties
	BankerPairs int // rounds with a Banker pair
	PlayerPairs int // rounds with a Player pair
	Naturals    int // rounds that ended on a Natural
	// LongestBanker and LongestPlayer are the longest runs of Banker and of Player
	// results: the longest Big Road columns. Ties do not break a run.
	LongestBanker, LongestPlayer int
	// CardsRemaining is what the caller last gave SetCardsRemaining, or UnknownCards.
	CardsRemaining int
}

// derived is one derived road as it is built.
type derived struct {
	cells []MarkCell
	grid  grid
}

// Map is the roads of one shoe, updated one round at a time. The zero Map is not ready:
// use New.
type Map struct {
	set         Settings
	rounds      []Round
	leadingTies int // ties before the first Banker or Player result
	big         []BigRoadCell
	bigGrid     grid
	// cols are the Big Road's logical columns, the lengths of its runs; the derived roads
	// compare these, never the drawn grid.
	cols    []int
	last    baccarat.Winner // winner of the last Banker or Player result
	derived [3]derived
	pred    Predictions
	stats   Stats
}

// New returns an empty map with settings s.
func New(s Settings) (*Map, error) {
	s, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	m := &Map{set: s}
	m.bigGrid.rows = s.Rows
	for i := range m.derived {
		m.derived[i].grid.rows = s.DerivedRows
	}
	m.Reset()
	return m, nil
}

// Settings returns the map's settings, defaults filled in.
func (m *Map) Settings() Settings { return m.set }

// Reset empties the map for a new shoe. It keeps its storage, so a shoe no longer than
// those before it is recorded without allocating.
func (m *Map) Reset() {
	m.rounds = m.rounds[:0]
	m.leadingTies = 0
	m.big = m.big[:0]
	m.bigGrid.reset()
	m.cols = m.cols[:0]
	m.last = baccarat.NoWinner
	for i := range m.derived {
		m.derived[i].cells = m.derived[i].cells[:0]
		m.derived[i].grid.reset()
	}
	m.pred = Predictions{}
	m.stats = Stats{CardsRemaining: UnknownCards}
}

// SetCardsRemaining records how many cards are left in the shoe, for Stats; the roads do
// not know the shoe. A negative n makes it unknown again.
func (m *Map) SetCardsRemaining(n int) {
	m.stats.CardsRemaining = max(n, UnknownCards)
}

// Add records one more round and updates all the roads, the predictions and the
// statistics. A round that is not a valid result is refused with an error and nothing
// changes.
func (m *Map) Add(r Round) error {
	if err := r.check(); err != nil {
		return fmt.Errorf("roadmap: round %d: %w", len(m.rounds)+1, err)
	}
	m.rounds = append(m.rounds, r)
	st := &m.stats
	st.Rounds++
	if r.BankerPair {
		st.BankerPairs++
	}
	if r.PlayerPair {
		st.PlayerPairs++
	}
	if r.Natural {
		st.Naturals++
	}
	switch r.Winner {
	case baccarat.Tie:
		st.Tie++
		// A tie takes no Big Road cell: it is counted on the last one, or kept for the
		// first one (roadmap R3.4). It changes no derived road and no prediction (R4.7).
		if len(m.big) == 0 {
			m.leadingTies++
		} else {
			m.big[len(m.big)-1].Ties++
		}
		return nil
	case baccarat.BankerWins:
		st.Banker++
	case baccarat.PlayerWins:
		st.Player++
	}

	// A change of winner starts a new logical column (roadmap R3.2).
	newCol := len(m.cols) == 0 || r.Winner != m.last
	if newCol {
		m.cols = append(m.cols, 1)
	} else {
		m.cols[len(m.cols)-1]++
	}
	m.last = r.Winner
	n := len(m.cols)
	row := m.cols[n-1]
	cell := BigRoadCell{
		Pos:        m.bigGrid.place(newCol),
		Winner:     r.Winner,
		BankerPair: r.BankerPair,
		PlayerPair: r.PlayerPair,
	}
	if len(m.big) == 0 {
		cell.Ties = m.leadingTies
	}
	m.big = append(m.big, cell)
	if r.Winner == baccarat.BankerWins {
		st.LongestBanker = max(st.LongestBanker, row)
	} else {
		st.LongestPlayer = max(st.LongestPlayer, row)
	}

	for i := range m.derived {
		k := Road(i).Offset()
		mk := markAt(m.cols, n, row, k, m.set.StraightDropBlue)
		if mk == NoMark {
			continue
		}
		d := &m.derived[i]
		newRun := len(d.cells) == 0 || d.cells[len(d.cells)-1].Mark != mk
		d.cells = append(d.cells, MarkCell{Pos: d.grid.place(newRun), Mark: mk})
	}
	for i := range m.derived {
		k := Road(i).Offset()
		m.pred.Banker[i] = m.next(baccarat.BankerWins, k)
		m.pred.Player[i] = m.next(baccarat.PlayerWins, k)
	}
	return nil
}

// markAt is the mark a derived road comparing columns k apart gives a Big Road entry on
// row m (from 1) of logical column n (from 1), given the lengths of the columns before
// it in cols[0:n-1] (roadmap R4.2 to R4.5):
//
//   - m ≥ 2: compare with column n−k of p entries: red if m ≤ p, blue if m = p+1, and for
//     m > p+1 (the straight drop) red, or blue when dropBlue;
//   - m = 1: red if columns n−1 and n−1−k have the same length, blue otherwise;
//   - no mark while the compared column does not exist.
//
// So a road's first mark comes at column k+1 row 2, or at column k+2 row 1 when column
// k+1 has one entry.
func markAt(cols []int, n, m, k int, dropBlue bool) Mark {
	if m >= 2 {
		if n-k < 1 {
			return NoMark
		}
		p := cols[n-k-1]
		switch {
		case m <= p:
			return Red
		case m == p+1:
			return Blue
		case dropBlue:
			return Blue
		}
		return Red
	}
	if n-1-k < 1 {
		return NoMark
	}
	if cols[n-2] == cols[n-2-k] {
		return Red
	}
	return Blue
}

// next is the mark the road comparing columns k apart would add if the next result were
// w (roadmap R5): the entry it would make is row m+1 of the last column for the same
// winner, or row 1 of a new column.
func (m *Map) next(w baccarat.Winner, k int) Mark {
	n := len(m.cols)
	if n == 0 {
		return NoMark
	}
	if w == m.last {
		return markAt(m.cols, n, m.cols[n-1]+1, k, m.set.StraightDropBlue)
	}
	return markAt(m.cols, n+1, 1, k, m.set.StraightDropBlue)
}

// Len is the number of rounds recorded.
func (m *Map) Len() int { return len(m.rounds) }

// Rounds returns a copy of the rounds recorded, in order.
func (m *Map) Rounds() []Round { return append([]Round(nil), m.rounds...) }

// BeadPos is the bead plate cell of round i (from 0): columns of BeadRows filled top to
// bottom, left to right (roadmap R2.1).
func (m *Map) BeadPos(i int) Pos {
	return Pos{Col: i / m.set.BeadRows, Row: i % m.set.BeadRows}
}

// BeadPlate returns the bead plate: one cell per round, ties included, in order.
func (m *Map) BeadPlate() []BeadCell {
	cells := make([]BeadCell, len(m.rounds))
	for i, r := range m.rounds {
		cells[i] = BeadCell{Pos: m.BeadPos(i), Round: r}
	}
	return cells
}

// BigRoad returns a copy of the Big Road's cells in the order they were added.
func (m *Map) BigRoad() []BigRoadCell { return append([]BigRoadCell(nil), m.big...) }

// LeadingTies is the number of ties before the first Banker or Player result; they are
// also counted on the first Big Road cell.
func (m *Map) LeadingTies() int { return m.leadingTies }

// Columns returns the lengths of the Big Road's logical columns (its runs of one winner),
// which the derived roads compare.
func (m *Map) Columns() []int { return append([]int(nil), m.cols...) }

// Derived returns a copy of the cells of derived road r (BigEyeBoy, SmallRoad or
// CockroachPig) in the order its marks were added; nil for any other r.
func (m *Map) Derived(r Road) []MarkCell {
	if int(r) >= len(m.derived) {
		return nil
	}
	return append([]MarkCell(nil), m.derived[r].cells...)
}

// Predictions returns the marks the next Banker and the next Player result would add.
func (m *Map) Predictions() Predictions { return m.pred }

// Stats returns the shoe's statistics.
func (m *Map) Stats() Stats { return m.stats }
