package roadmap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/tablectl/tablectl/baccarat"
)

// UnknownPoints is Round.Points when the result came without its point total, as a
// result token does.
const UnknownPoints = -1

// Round is one round's result as the roads show it.
type Round struct {
	// Winner is PlayerWins, BankerWins or Tie.
	Winner baccarat.Winner
	// Points is the winning Point Total, or the tied total on a Tie: 0 to 9, or
	// UnknownPoints.
	Points int
	// BankerPair and PlayerPair report a pair in the first two cards of the Banker Hand
	// and of the Player Hand (RWS Baccarat 1.15).
	BankerPair, PlayerPair bool
	// Natural reports that the round ended on a Natural (RWS Baccarat 1.10).
	Natural bool
}

// FromOutcome reduces a complete round's Outcome to what the roads show.
func FromOutcome(o baccarat.Outcome) Round {
	return Round{
		Winner:     o.Winner,
		Points:     o.WinningPoints(),
		BankerPair: o.BankerPair,
		PlayerPair: o.PlayerPair,
		Natural:    o.Natural(),
	}
}

// check reports what makes r unusable, or nil (roadmap R1.4).
func (r Round) check() error {
	switch r.Winner {
	case baccarat.PlayerWins, baccarat.BankerWins, baccarat.Tie:
	default:
		return fmt.Errorf("winner %d is not Banker, Player or Tie", r.Winner)
	}
	if r.Points < UnknownPoints || r.Points > 9 {
		return fmt.Errorf("point total %d is not 0 to 9", r.Points)
	}
	// A Natural is a two-card total of 8 or 9 (RWS Baccarat 1.10), and no hand draws
	// after one, so the round is won or tied on 8 or 9.
	if r.Natural && r.Points != UnknownPoints && r.Points < 8 {
		return fmt.Errorf("a natural cannot win or tie on %d", r.Points)
	}
	return nil
}

// Token is the round in the notation ParseToken reads: B, P or T, then b for a Banker
// pair, p for a Player pair and n for a natural, in that order. The point total is not
// part of it.
func (r Round) Token() string {
	var b [4]byte
	t := append(b[:0], r.Winner.String()...)
	if r.BankerPair {
		t = append(t, 'b')
	}
	if r.PlayerPair {
		t = append(t, 'p')
	}
	if r.Natural {
		t = append(t, 'n')
	}
	return string(t)
}

// ParseToken reads one round's token (roadmap R1.2, R1.3): B (Banker wins), P (Player wins) or T (Tie),
// optionally followed by b (Banker pair), p (Player pair) and n (natural), each at most
// once and in any order, for example "B", "Tbp", "Pn". The case matters: B is a Banker
// win, b a Banker pair. The round's Points are UnknownPoints.
func ParseToken(s string) (Round, error) {
	r := Round{Points: UnknownPoints}
	if s == "" {
		return r, errors.New("empty token")
	}
	switch s[0] {
	case 'B':
		r.Winner = baccarat.BankerWins
	case 'P':
		r.Winner = baccarat.PlayerWins
	case 'T':
		r.Winner = baccarat.Tie
	default:
		return r, fmt.Errorf("starts with %q: a token starts with B, P or T", firstRune(s))
	}
	for i := 1; i < len(s); {
		var seen *bool
		switch s[i] {
		case 'b':
			seen = &r.BankerPair
		case 'p':
			seen = &r.PlayerPair
		case 'n':
			seen = &r.Natural
		default:
			return r, fmt.Errorf("unknown mark %q at character %d: after B, P or T only b, p and n may follow", firstRune(s[i:]), i+1)
		}
		if *seen {
			return r, fmt.Errorf("mark %q given twice", s[i])
		}
		*seen = true
		i++
	}
	return r, nil
}

// firstRune is s's first character, or its first byte when that is not valid UTF-8.
func firstRune(s string) string {
	_, n := utf8.DecodeRuneInString(s)
	return s[:n]
}

// maxToken is the longest token the scanner keeps for an error message; a valid token
// is at most four bytes.
const maxToken = 32

// TokenError reports a token that could not be read, and where it stands in the input.
type TokenError struct {
	Token  string // the token, cut to its first 32 bytes
	Index  int    // its position among the tokens, from 1
	Line   int    // the line it starts on, from 1
	Column int    // the byte column it starts at, from 1
	Reason string // what was wrong with it
}

// Error names the token, its position and what was wrong, for example
// `token 4 "Bq" (line 2, column 3): unknown mark "q" at character 2: ...`.
func (e *TokenError) Error() string {
	return fmt.Sprintf("token %d %q (line %d, column %d): %s", e.Index, e.Token, e.Line, e.Column, e.Reason)
}

// Scanner reads rounds, one token each, separated by white space (space, tab, new line,
// carriage return, vertical tab, form feed), the way bufio.Scanner reads lines:
//
//	s := roadmap.NewScanner(r)
//	for s.Scan() {
//		use(s.Round())
//	}
//	if err := s.Err(); err != nil { ... }
//
// It stops at the first bad token with a *TokenError naming the token and its position.
type Scanner struct {
	r     *bufio.Reader
	tok   []byte
	round Round
	err   error
	index int // tokens read
	line  int // current line, from 1
	col   int // column of the last byte read, from 1
}

// NewScanner returns a scanner reading from r.
func NewScanner(r io.Reader) *Scanner {
	return &Scanner{r: bufio.NewReader(r), tok: make([]byte, 0, maxToken), line: 1}
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

// Scan reads the next round. It returns false at the end of the input or at the first
// error, which Err then reports.
func (s *Scanner) Scan() bool {
	if s.err != nil {
		return false
	}
	s.tok = s.tok[:0]
	var line, col int
	long := false
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.err = fmt.Errorf("reading token %d: %w", s.index+1, err)
				return false
			}
			if len(s.tok) == 0 && !long {
				s.err = io.EOF
				return false
			}
			break
		}
		s.col++
		if isSpace(b) {
			if b == '\n' {
				s.line++
				s.col = 0
			}
			if len(s.tok) > 0 || long {
				break
			}
			continue
		}
		if len(s.tok) == 0 && !long {
			line, col = s.line, s.col
		}
		if len(s.tok) < maxToken {
			s.tok = append(s.tok, b)
		} else {
			long = true
		}
	}
	s.index++
	if long {
		s.err = &TokenError{Token: string(s.tok), Index: s.index, Line: line, Column: col,
			Reason: fmt.Sprintf("longer than %d bytes: a token is B, P or T and up to three marks", maxToken)}
		return false
	}
	r, err := ParseToken(string(s.tok))
	if err != nil {
		s.err = &TokenError{Token: string(s.tok), Index: s.index, Line: line, Column: col, Reason: err.Error()}
		return false
	}
	s.round = r
	return true
}

// Round is the round the last successful Scan read.
func (s *Scanner) Round() Round { return s.round }

// Err is the error that stopped the scanner, or nil if it stopped at the end of the input.
func (s *Scanner) Err() error {
	if errors.Is(s.err, io.EOF) {
		return nil
	}
	return s.err
}

// ParseRounds reads a whole list of tokens (see Scanner and ParseToken), for example
// "B P Tbp Pn".
func ParseRounds(text string) ([]Round, error) {
	s := NewScanner(strings.NewReader(text))
	var rounds []Round
	for s.Scan() {
		rounds = append(rounds, s.Round())
	}
	return rounds, s.Err()
}
