package api

import "fmt"

// Limits of a command (docs/mqtt.md, "Commands"). Whatever arrives on a command topic
// is bounded by them before it reaches the journal, so no command, however large or
// odd, can make a record the journal refuses and stop the table.
const (
	// MaxCommandBytes is the largest command payload taken. The broker's packet limit
	// bounds what reaches a table at all.
	MaxCommandBytes = 16 << 10
	// MaxIDLen bounds id and actor, in bytes.
	MaxIDLen = 64
	// MaxNameLen bounds cmd, set, kind and choice, and a wager's box, in bytes.
	MaxNameLen = 64
	// MaxDetailLen bounds detail, the free text of a report, in bytes.
	MaxDetailLen = 1024
	// MaxWagers bounds the wagers of one bets_closed.
	MaxWagers = 256
)

// LimitError is a command refused for its size: the field, its size and the limit.
type LimitError struct {
	Field string
	Size  int
	Limit int
	Unit  string // "bytes" or "wagers"
}

// Error names the field, its size and the limit.
func (e *LimitError) Error() string {
	return fmt.Sprintf("command refused: %s is %d %s, over the limit of %d", e.Field, e.Size, e.Unit, e.Limit)
}

// CheckCommandSize refuses a payload over MaxCommandBytes, before it is decoded.
func CheckCommandSize(payload []byte) error {
	if len(payload) > MaxCommandBytes {
		return &LimitError{Field: "the command", Size: len(payload), Limit: MaxCommandBytes, Unit: "bytes"}
	}
	return nil
}

// CheckFields refuses a decoded command whose fields exceed the limits.
func (c Command) CheckFields() error {
	texts := []struct {
		field, v string
		limit    int
	}{
		{"id", c.ID, MaxIDLen}, {"actor", c.Actor, MaxIDLen}, {"cmd", c.Cmd, MaxNameLen},
		{"set", c.Set, MaxNameLen}, {"kind", c.Kind, MaxNameLen}, {"choice", c.Choice, MaxNameLen},
		{"detail", c.Detail, MaxDetailLen}, {"card", c.Card, MaxNameLen}, {"box", c.Box, MaxNameLen},
		{"option", c.Option, MaxNameLen}, {"bet", c.Bet, MaxNameLen},
	}
	if len(c.Wagers) > MaxWagers {
		return &LimitError{Field: "wagers", Size: len(c.Wagers), Limit: MaxWagers, Unit: "wagers"}
	}
	ws := c.Wagers
	if c.Wager != nil {
		ws = append(ws[:len(ws):len(ws)], *c.Wager)
	}
	for _, t := range texts {
		if len(t.v) > t.limit {
			return &LimitError{Field: t.field, Size: len(t.v), Limit: t.limit, Unit: "bytes"}
		}
	}
	for i, w := range ws {
		if len(w.Box) > MaxNameLen {
			return &LimitError{Field: fmt.Sprintf("wager %d's box", i+1), Size: len(w.Box), Limit: MaxNameLen, Unit: "bytes"}
		}
	}
	if c.Decks < 0 || c.Decks > 16 {
		return fmt.Errorf("command refused: decks %d: want 1 to 16", c.Decks)
	}
	return nil
}
