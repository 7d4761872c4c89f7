package roadmap

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tablectl/tablectl/baccarat"
)

// TestParseToken: the token grammar of roadmap R1.2; bad tokens say what is wrong (R1.4).
func TestParseToken(t *testing.T) {
	B, P, T := baccarat.BankerWins, baccarat.PlayerWins, baccarat.Tie
	good := map[string]Round{
		"B":    {Winner: B, Points: UnknownPoints},
		"P":    {Winner: P, Points: UnknownPoints},
		"T":    {Winner: T, Points: UnknownPoints},
		"Bb":   {Winner: B, Points: UnknownPoints, BankerPair: true},
		"Pp":   {Winner: P, Points: UnknownPoints, PlayerPair: true},
		"Pn":   {Winner: P, Points: UnknownPoints, Natural: true},
		"Tbp":  {Winner: T, Points: UnknownPoints, BankerPair: true, PlayerPair: true},
		"Tpb":  {Winner: T, Points: UnknownPoints, BankerPair: true, PlayerPair: true},
		"Bnpb": {Winner: B, Points: UnknownPoints, BankerPair: true, PlayerPair: true, Natural: true},
	}
	for tok, want := range good {
		got, err := ParseToken(tok)
		if err != nil || got != want {
			t.Errorf("ParseToken(%q) = %+v, %v; want %+v", tok, got, err, want)
		}
	}
	bad := map[string]string{
		"":      "empty token",
		"b":     `starts with "b"`,
		"X":     `starts with "X"`,
		"é":     `starts with "é"`,
		"\xffB": `starts with "\xff"`,
		"BB":    `unknown mark "B" at character 2`,
		"Bx":    `unknown mark "x" at character 2`,
		"Pb1":   `unknown mark "1" at character 3`,
		"Bbb":   `mark 'b' given twice`,
		"Tnpn":  `mark 'n' given twice`,
	}
	for tok, want := range bad {
		_, err := ParseToken(tok)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseToken(%q) error = %v; want one containing %q", tok, err, want)
		}
	}
}

// TestTokenRoundTrip writes every combination of winner and marks and reads it back.
func TestTokenRoundTrip(t *testing.T) {
	for _, w := range []baccarat.Winner{baccarat.BankerWins, baccarat.PlayerWins, baccarat.Tie} {
		for bits := range 8 {
			r := Round{Winner: w, Points: UnknownPoints, BankerPair: bits&1 != 0, PlayerPair: bits&2 != 0, Natural: bits&4 != 0}
			got, err := ParseToken(r.Token())
			if err != nil || got != r {
				t.Errorf("ParseToken(%q) = %+v, %v; want %+v", r.Token(), got, err, r)
			}
		}
	}
}

// TestScannerPositions: a bad token is named with its position (roadmap R1.4).
func TestScannerPositions(t *testing.T) {
	tests := []struct {
		in                  string
		token               string
		index, line, column int
		reason              string
	}{
		{"B P\n  Tbp Bx P", "Bx", 4, 2, 7, "unknown mark"},
		{"B\tP\r\nb", "b", 3, 2, 1, "starts with"},
		{"\n\n   B P Bbpnb", "Bbpnb", 3, 3, 8, "given twice"},
		{"B " + strings.Repeat("B", 40) + " P", strings.Repeat("B", 32), 2, 1, 3, "longer than 32 bytes"},
		{"P \x00\xff", "\x00\xff", 2, 1, 3, "starts with"},
	}
	for _, tt := range tests {
		_, err := ParseRounds(tt.in)
		var te *TokenError
		if !errors.As(err, &te) {
			t.Errorf("%q: error %v is not a *TokenError", tt.in, err)
			continue
		}
		if te.Token != tt.token || te.Index != tt.index || te.Line != tt.line || te.Column != tt.column || !strings.Contains(te.Reason, tt.reason) {
			t.Errorf("%q: got %+v; want token %q, index %d, line %d, column %d, reason with %q",
				tt.in, *te, tt.token, tt.index, tt.line, tt.column, tt.reason)
		}
		if !strings.Contains(err.Error(), "token ") || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%q: message %q does not say where", tt.in, err)
		}
	}
}

func TestParseRounds(t *testing.T) {
	got, err := ParseRounds("  B P\tTbp\n\nPn  ")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0].Winner != baccarat.BankerWins || got[1].Winner != baccarat.PlayerWins ||
		got[2] != (Round{Winner: baccarat.Tie, Points: UnknownPoints, BankerPair: true, PlayerPair: true}) ||
		got[3] != (Round{Winner: baccarat.PlayerWins, Points: UnknownPoints, Natural: true}) {
		t.Fatalf("got %+v", got)
	}
	if got, err := ParseRounds(" \n\t "); err != nil || len(got) != 0 {
		t.Fatalf("blank input: got %v, %v; want no rounds", got, err)
	}
}

func TestScannerReadError(t *testing.T) {
	broken := errors.New("device gone")
	s := NewScanner(io.MultiReader(strings.NewReader("B P "), iotest.ErrReader(broken)))
	n := 0
	for s.Scan() {
		n++
	}
	if n != 2 || !errors.Is(s.Err(), broken) || !strings.Contains(s.Err().Error(), "token 3") {
		t.Fatalf("read %d rounds, error %v; want 2 and the read error at token 3", n, s.Err())
	}
	if s.Scan() {
		t.Fatal("Scan after an error returned true")
	}
}

func TestFromOutcome(t *testing.T) {
	// Player 2S 3D = 5, Banker 9H KC = 9: a Banker natural; neither hand draws (RWS
	// Baccarat 1.10).
	c, _ := baccarat.CoupOf(baccarat.MustParseCard("2S"), baccarat.MustParseCard("9H"),
		baccarat.MustParseCard("3D"), baccarat.MustParseCard("KC"))
	got := FromOutcome(baccarat.OutcomeOf(c))
	if want := (Round{Winner: baccarat.BankerWins, Points: 9, Natural: true}); got != want {
		t.Errorf("banker natural: got %+v, want %+v", got, want)
	}
	// A tie on 6 with a Player pair after a third card: the tied total, no natural.
	got = FromOutcome(baccarat.Outcome{Winner: baccarat.Tie, PlayerPoints: 6, BankerPoints: 6,
		PlayerCards: 2, BankerCards: 3, PlayerPair: true})
	if want := (Round{Winner: baccarat.Tie, Points: 6, PlayerPair: true}); got != want {
		t.Errorf("tie: got %+v, want %+v", got, want)
	}
	// A Player win 7 to 3 with a Banker pair: the Player's total.
	got = FromOutcome(baccarat.Outcome{Winner: baccarat.PlayerWins, PlayerPoints: 7, BankerPoints: 3,
		PlayerCards: 3, BankerCards: 3, BankerPair: true})
	if want := (Round{Winner: baccarat.PlayerWins, Points: 7, BankerPair: true}); got != want {
		t.Errorf("player: got %+v, want %+v", got, want)
	}
}

// tokenAt returns the text of the input that starts at line and column (both from 1)
// and runs to the next white space.
func tokenAt(in string, line, column int) (string, bool) {
	lines := strings.Split(in, "\n")
	if line < 1 || line > len(lines) || column < 1 || column > len(lines[line-1]) {
		return "", false
	}
	rest := lines[line-1][column-1:]
	if i := strings.IndexAny(rest, " \t\r\v\f"); i >= 0 {
		rest = rest[:i]
	}
	return rest, true
}

// FuzzParseRounds feeds the token reader arbitrary bytes. It must never panic; what it
// accepts must write back as the same tokens; what it refuses must be a *TokenError whose
// position points at the token it names.
func FuzzParseRounds(f *testing.F) {
	for _, s := range []string{"B P Tbp Pn", "", "Bbpn\nT\tP", "BX", "b", "B\xff", "P Pp Ppp"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := string(data)
		rounds, err := ParseRounds(in)
		if err != nil {
			var te *TokenError
			if !errors.As(err, &te) {
				t.Fatalf("error %v is not a *TokenError", err)
			}
			if te.Index < 1 || te.Reason == "" {
				t.Fatalf("error without a position or reason: %+v", *te)
			}
			at, ok := tokenAt(in, te.Line, te.Column)
			if !ok || !strings.HasPrefix(at, te.Token) || te.Token == "" {
				t.Fatalf("error %q names %q at line %d column %d, where the input has %q", err, te.Token, te.Line, te.Column, at)
			}
			return
		}
		var toks []string
		for _, r := range rounds {
			if r.check() != nil || r.Points != UnknownPoints {
				t.Fatalf("accepted an invalid round %+v", r)
			}
			toks = append(toks, r.Token())
		}
		fields := strings.FieldsFunc(in, func(r rune) bool { return r < 128 && isSpace(byte(r)) })
		if len(fields) != len(rounds) {
			t.Fatalf("read %d rounds from %d tokens", len(rounds), len(fields))
		}
		again, err := ParseRounds(strings.Join(toks, " "))
		if err != nil || len(again) != len(rounds) {
			t.Fatalf("rewritten tokens %q: %v", toks, err)
		}
		for i := range again {
			if again[i] != rounds[i] {
				t.Fatalf("round %d: %+v rewritten as %q reads back as %+v", i+1, rounds[i], toks[i], again[i])
			}
		}
	})
}
