package roadmap

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
)

func mustMap(t testing.TB, set Settings, tokens string) *Map {
	t.Helper()
	m, err := New(set)
	if err != nil {
		t.Fatal(err)
	}
	rounds, err := ParseRounds(tokens)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rounds {
		if err := m.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func TestNewSettings(t *testing.T) {
	m, err := New(Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Settings(); got != (Settings{BeadRows: 6, Rows: 6, DerivedRows: 6}) {
		t.Errorf("default settings %+v", got)
	}
	for _, bad := range []Settings{{Rows: -1}, {BeadRows: MaxRows + 1}, {DerivedRows: -6}} {
		if _, err := New(bad); err == nil || !strings.Contains(err.Error(), "rows") {
			t.Errorf("New(%+v) error = %v; want one naming the rows", bad, err)
		}
	}
}

// TestAddRefusesBadRounds: a round that is not a result is refused, named by its number,
// and changes nothing (roadmap R1.4).
func TestAddRefusesBadRounds(t *testing.T) {
	m := mustMap(t, Settings{}, "B P")
	before := m.JSON()
	for _, tt := range []struct {
		r    Round
		want string
	}{
		{Round{Winner: baccarat.NoWinner}, "not Banker, Player or Tie"},
		{Round{Winner: baccarat.Winner(9)}, "not Banker, Player or Tie"},
		{Round{Winner: baccarat.BankerWins, Points: 10}, "point total 10"},
		{Round{Winner: baccarat.BankerWins, Points: -2}, "point total -2"},
		// A natural is a two-card 8 or 9 (RWS Baccarat 1.10): no round is won on 5 by one.
		{Round{Winner: baccarat.PlayerWins, Points: 5, Natural: true}, "natural"},
	} {
		err := m.Add(tt.r)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "round 3") {
			t.Errorf("Add(%+v) error = %v; want one naming round 3 and %q", tt.r, err, tt.want)
		}
	}
	after := m.JSON()
	a, _ := json.Marshal(before)
	b, _ := json.Marshal(after)
	if !bytes.Equal(a, b) || m.Len() != 2 {
		t.Errorf("a refused round changed the map:\n%s\n%s", a, b)
	}
}

func TestResetAndCards(t *testing.T) {
	m := mustMap(t, Settings{}, "B B P T Bb P P P")
	m.SetCardsRemaining(371)
	if got := m.Stats().CardsRemaining; got != 371 {
		t.Errorf("cards remaining %d, want 371", got)
	}
	m.SetCardsRemaining(-5)
	if got := m.Stats().CardsRemaining; got != UnknownCards {
		t.Errorf("cards remaining %d after a negative count, want unknown", got)
	}
	m.SetCardsRemaining(12)
	m.Reset()
	if m.Len() != 0 || len(m.BigRoad()) != 0 || len(m.Columns()) != 0 || m.LeadingTies() != 0 ||
		m.Stats() != (Stats{CardsRemaining: UnknownCards}) || m.Predictions() != (Predictions{}) {
		t.Fatalf("Reset left something: %+v", m.JSON())
	}
	for r := range 3 {
		if len(m.Derived(Road(r))) != 0 {
			t.Fatalf("Reset left %s", Road(r))
		}
	}
	// After a reset the board is empty: the same shoe lays out the same way again.
	fresh := mustMap(t, Settings{}, "P P P P P P P P B")
	rounds, _ := ParseRounds("P P P P P P P P B")
	for _, r := range rounds {
		if err := m.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := json.Marshal(fresh.JSON())
	b, _ := json.Marshal(m.JSON())
	if !bytes.Equal(a, b) {
		t.Errorf("after Reset:\n%s\nfresh:\n%s", b, a)
	}
}

// TestColumnsAndLeadingTies checks the Big Road's logical columns, which the derived
// roads compare: a dragon tail is one column however it is drawn, and ties add nothing
// (roadmap R3.2, R3.4, R4.1).
func TestColumnsAndLeadingTies(t *testing.T) {
	m := mustMap(t, Settings{Rows: 3}, "T T B B T B B B P T B")
	if got, want := m.Columns(), []int{5, 1, 1}; !equalInts(got, want) {
		t.Errorf("columns %v, want %v", got, want)
	}
	if m.LeadingTies() != 2 {
		t.Errorf("leading ties %d, want 2", m.LeadingTies())
	}
	big := m.BigRoad()
	// Ties: 2 before and 1 after the first result on the first cell; round 10's tie on
	// the Player cell.
	if big[0].Ties != 2 || big[1].Ties != 1 || big[5].Ties != 1 || big[6].Ties != 0 {
		t.Errorf("ties %+v", big)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestUpdateDoesNotAllocate: once a map has held a shoe, recording another shoe of the
// same size allocates nothing.
func TestUpdateDoesNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	_, rounds := randomShoe(rng)
	for len(rounds) < 80 {
		_, more := randomShoe(rng)
		rounds = append(rounds, more...)
	}
	rounds = rounds[:80]
	m, err := New(Settings{})
	if err != nil {
		t.Fatal(err)
	}
	shoe := func() {
		m.Reset()
		for _, r := range rounds {
			if err := m.Add(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	shoe()
	if allocs := testing.AllocsPerRun(20, shoe); allocs != 0 {
		t.Fatalf("a shoe of 80 rounds allocated %v times in steady state, want 0", allocs)
	}
}

func TestMarkJSON(t *testing.T) {
	var p struct{ A, B, C Mark }
	if err := json.Unmarshal([]byte(`{"A":"red","B":"blue","C":null}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.A != Red || p.B != Blue || p.C != NoMark {
		t.Fatalf("decoded %+v", p)
	}
	out, _ := json.Marshal(p)
	if string(out) != `{"A":"red","B":"blue","C":null}` {
		t.Fatalf("encoded %s", out)
	}
	var k Mark
	if err := json.Unmarshal([]byte(`"green"`), &k); err == nil || !strings.Contains(err.Error(), "green") {
		t.Fatalf("green: error %v", err)
	}
}

// TestJSON: the JSON document of the command line section of docs/roadmap.md, points
// left out when unknown (roadmap R1.3), cards remaining null until given (R6).
func TestJSON(t *testing.T) {
	m := mustMap(t, Settings{}, "T B P P")
	if err := m.Add(Round{Winner: baccarat.BankerWins, Points: 9, BankerPair: true, Natural: true}); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(m.JSON())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// Points left out while unknown, given when known.
		`"bead_plate":[{"col":0,"row":0,"outcome":"T","banker_pair":false,"player_pair":false,"natural":false},`,
		`{"col":0,"row":4,"outcome":"B","points":9,"banker_pair":true,"player_pair":false,"natural":true}]`,
		// The leading tie is on the first Big Road cell.
		`"big_road":[{"col":0,"row":0,"outcome":"B","ties":1,"banker_pair":false,"player_pair":false},`,
		`{"col":2,"row":0,"outcome":"B","ties":0,"banker_pair":true,"player_pair":false}]`,
		// Columns 1, 2, 1: column 2 row 2 against column 1 (1 long): blue; column 3 row 1,
		// columns 2 and 1 (2 and 1): blue.
		`"big_eye_boy":{"marks":["blue","blue"],"cells":[{"col":0,"row":0,"mark":"blue"},{"col":0,"row":1,"mark":"blue"}]}`,
		`"small_road":{"marks":[],"cells":[]}`,
		`"predictions":{"banker":{"big_eye_boy":"red","small_road":"blue","cockroach_pig":null},"player":{"big_eye_boy":"blue","small_road":"red","cockroach_pig":null}}`,
		`"stats":{"rounds":5,"banker":2,"player":2,"tie":1,"banker_pairs":1,"player_pairs":0,"naturals":1,"longest_banker_streak":1,"longest_player_streak":2,"cards_remaining":null}`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("JSON lacks %s\nin %s", want, out)
		}
	}
	m.SetCardsRemaining(300)
	out, _ = json.Marshal(m.JSON())
	if !strings.Contains(string(out), `"cards_remaining":300`) {
		t.Errorf("cards remaining missing: %s", out)
	}

	empty, _ := New(Settings{})
	out, _ = json.Marshal(empty.JSON())
	if strings.Contains(string(out), `"marks":null`) || strings.Contains(string(out), `"cells":null`) ||
		!strings.Contains(string(out), `"bead_plate":[],"big_road":[],"big_eye_boy":{"marks":[],"cells":[]}`) {
		t.Errorf("an empty map must give empty lists: %s", out)
	}
}

func TestWriteText(t *testing.T) {
	m := mustMap(t, Settings{}, "B P P T Bb")
	m.SetCardsRemaining(400)
	var b strings.Builder
	if err := WriteText(&b, m, false); err != nil {
		t.Fatal(err)
	}
	// Drawn by hand. Big Road columns 1, 2, 1. Big Eye Boy: column 2 row 2 against column
	// 1 (1 long): blue; column 3 row 1, columns 2 and 1 differ: blue. A next Banker lands
	// on column 3 row 2: Big Eye Boy against column 2 (2 long) red, Small Road against
	// column 1 (1 long, 2 = 1+1) blue. A next Player opens column 4: column 3 against
	// column 2 (1, 2) blue, against column 1 (1, 1) red.
	want := `Bead plate
  B
  P
  P
  T
  Bb
  .

Big Road
  B  P  Bb
  .  P1 .
  .  .  .
  .  .  .
  .  .  .
  .  .  .

Big Eye Boy
  B
  B
  .
  .
  .
  .

Small Road
  (empty)

Cockroach Pig
  (empty)

Next result   Big Eye Boy  Small Road  Cockroach Pig
  Banker      R            B           -
  Player      B            R           -

Rounds 5: Banker 2, Player 2, Tie 1
Pairs: Banker 1, Player 0. Naturals 0.
Longest run: Banker 1, Player 2. Cards remaining: 400.
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}

	b.Reset()
	if err := WriteText(&b, m, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ansiRed+"B "+ansiReset) || !strings.Contains(b.String(), ansiBlue+"P1"+ansiReset) ||
		!strings.Contains(b.String(), ansiGreen+"T "+ansiReset) {
		t.Errorf("colours missing:\n%q", b.String())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteTextError(t *testing.T) {
	m := mustMap(t, Settings{}, "B")
	if err := WriteText(failingWriter{}, m, false); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error %v; want the writer's", err)
	}
}
