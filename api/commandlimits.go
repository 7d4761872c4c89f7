package api

import (
	"fmt"
	"reflect"
	"strings"
)

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

// textLimits are the text fields bounded otherwise than by MaxNameLen, by JSON name.
var textLimits = map[string]int{"id": MaxIDLen, "actor": MaxIDLen, "detail": MaxDetailLen}

// textFields are Command's text fields, in order: each is bounded by its entry in
// textLimits, else by MaxNameLen, and takes no control character but those of its
// entry in textControls, so a text field added to Command is checked at once.
var textFields = func() (fs []struct {
	index int
	name  string
}) {
	t := reflect.TypeFor[Command]()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() != reflect.String {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		fs = append(fs, struct {
			index int
			name  string
		}{i, name})
	}
	return fs
}()

// commandFieldNames are the JSON names of every field of Command.
var commandFieldNames = func() (names []string) {
	t := reflect.TypeFor[Command]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}()

// CheckFields refuses a decoded command whose fields exceed the limits (a
// *LimitError), or whose text holds a control character its field does not take or is
// not UTF-8 (a *TextError, as CheckCommandText).
func (c Command) CheckFields() error {
	v := reflect.ValueOf(c)
	for _, f := range textFields {
		limit, ok := textLimits[f.name]
		if !ok {
			limit = MaxNameLen
		}
		s := v.Field(f.index).String()
		if len(s) > limit {
			return &LimitError{Field: f.name, Size: len(s), Limit: limit, Unit: "bytes"}
		}
		if err := checkText(f.name, s); err != nil {
			return err
		}
	}
	if len(c.Wagers) > MaxWagers {
		return &LimitError{Field: "wagers", Size: len(c.Wagers), Limit: MaxWagers, Unit: "wagers"}
	}
	for i, w := range c.Wagers {
		if err := checkWagerBox(fmt.Sprintf("wager %d's box", i+1), w.Box); err != nil {
			return err
		}
	}
	if c.Wager != nil {
		if err := checkWagerBox("the wager's box", c.Wager.Box); err != nil {
			return err
		}
	}
	if c.Decks < 0 || c.Decks > 16 {
		return fmt.Errorf("command refused: decks %d: want 1 to 16", c.Decks)
	}
	return nil
}

// checkWagerBox refuses a wager's box, named field, over MaxNameLen bytes or holding a
// control character.
func checkWagerBox(field, box string) error {
	if len(box) > MaxNameLen {
		return &LimitError{Field: field, Size: len(box), Limit: MaxNameLen, Unit: "bytes"}
	}
	return checkText(field, box)
}
