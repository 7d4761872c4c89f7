package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// textControls are the control characters a text field takes, by JSON name: a report's
// detail, a line of free text from a form, takes tab and line feed. Every other field
// takes none. Carriage return is refused everywhere: a line break is one line feed.
var textControls = map[string]string{"detail": "\t\n"}

// isControl reports whether r is a control character a command's text refuses unless
// its field takes it (textControls): C0 (U+0000 to U+001F), DEL (U+007F) or C1 (U+0080
// to U+009F).
func isControl(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }

// TextError is a command refused for a character of its text: the field, the byte
// offset in the field's text (as JSON decodes it; in the payload for "the command"),
// and the control character, or the byte that is not UTF-8.
type TextError struct {
	Field  string
	Offset int
	// Rune is the control character; when Invalid, Byte is the byte that begins no
	// UTF-8 character instead.
	Rune    rune
	Invalid bool
	Byte    byte
}

// Error names the field, the character as U+XXXX (or the byte) and its offset, and
// what the field takes.
func (e *TextError) Error() string {
	if e.Invalid {
		return fmt.Sprintf("command refused: %s holds byte 0x%02X at byte %d, which is not UTF-8", e.Field, e.Byte, e.Offset)
	}
	takes := "it takes none"
	if textControls[e.Field] != "" {
		takes = "it takes tab and line feed, no other"
	}
	return fmt.Sprintf("command refused: %s holds control character U+%04X at byte %d; %s", e.Field, e.Rune, e.Offset, takes)
}

// checkText refuses s, the text of field, at its first control character the field
// does not take or its first byte that is not UTF-8.
func checkText(field, s string) error {
	allowed := textControls[field]
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return &TextError{Field: field, Offset: i, Invalid: true, Byte: s[i]}
		case isControl(r) && !strings.ContainsRune(allowed, r):
			return &TextError{Field: field, Offset: i, Rune: r}
		}
	}
	return nil
}

// CheckCommandText refuses a command payload that holds, in any string of it, a
// control character its field does not take (isControl, textControls), or anywhere a
// byte that is not UTF-8. It runs before the payload is decoded: JSON decoding would
// replace such a byte with U+FFFD, and an enumerated field (a wager's bet, say) would
// be refused as unknown without naming the character. The refusal is a *TextError
// naming the field ("detail", "wager 2's box", "the wager's bet"), the character and
// its byte offset in the field's decoded text, whether the character came escaped
// ("\u0000") or as a raw byte. A payload that is not JSON for another reason is not
// refused here: its decoding says why.
func CheckCommandText(payload []byte) error {
	_, err := checkCommandText(payload)
	return err
}

// checkCommandText is CheckCommandText, and the command's id when a refusal comes after
// it was read whole (so that the reply names the command whose payload is not JSON, a
// raw control byte's).
func checkCommandText(payload []byte) (id string, err error) {
	bad := firstBadByte(payload)
	dec := json.NewDecoder(bytes.NewReader(payload))
	var stack []textFrame
	// done marks the value at the top of the stack read.
	done := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].keyNext = true
			} else {
				stack[n-1].index++
			}
		}
	}
	// next names the string read next: a key, or a value by its path.
	next := func() (field string, isKey bool) {
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].keyNext {
			return "a field's name", true
		}
		return textPath(stack), false
	}
	for {
		start := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			if bad >= start {
				// A raw control byte makes the token fail: name the string it is in.
				field, _ := next()
				return id, badByteIn(field, payload, start, bad)
			}
			break // the end, or not JSON: decoding says why
		}
		end := int(dec.InputOffset())
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				stack = append(stack, textFrame{object: v == '{', keyNext: true})
			default:
				stack = stack[:len(stack)-1]
				done()
			}
		case string:
			field, isKey := next()
			if isKey {
				stack[len(stack)-1].key, stack[len(stack)-1].keyNext = v, false
			} else {
				done()
			}
			if bad >= start && bad < end {
				return id, badByteIn(field, payload, start, bad)
			}
			if !isKey {
				if err := checkText(field, v); err != nil {
					return id, err
				}
				if field == "id" && len(stack) == 1 && len(v) <= MaxIDLen {
					id = v
				}
			}
		default:
			done()
		}
	}
	if bad >= 0 {
		return id, badByte("the command", payload[bad], bad)
	}
	return "", nil
}

// firstBadByte is the offset of payload's first byte that is not UTF-8 or is a raw C0
// control character JSON takes nowhere (all but tab, line feed and carriage return,
// which are white space between values); -1 for none.
func firstBadByte(payload []byte) int {
	for i := 0; i < len(payload); {
		b := payload[i]
		if b < utf8.RuneSelf {
			if b < 0x20 && b != '\t' && b != '\n' && b != '\r' {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(payload[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// badByte is the refusal of field for byte b at offset: a raw C0 control character, or
// a byte that is not UTF-8.
func badByte(field string, b byte, offset int) *TextError {
	if b < 0x20 {
		return &TextError{Field: field, Offset: offset, Rune: rune(b)}
	}
	return &TextError{Field: field, Offset: offset, Invalid: true, Byte: b}
}

// badByteIn is the refusal of field, the string that begins after payload[start:]'s
// white space and separators, for its byte at bad: the offset is given in the field's
// decoded text, and a control character before it is refused first. When the byte is
// not in that string's text (the payload is not JSON before it), the refusal names the
// command and the offset in the payload.
func badByteIn(field string, payload []byte, start, bad int) error {
	q := start
	for q < bad && bytes.IndexByte([]byte(" \t\n\r:,"), payload[q]) >= 0 {
		q++
	}
	var prefix string
	if q == bad || payload[q] != '"' || json.Unmarshal(append(append([]byte{'"'}, payload[q+1:bad]...), '"'), &prefix) != nil {
		return badByte("the command", payload[bad], bad)
	}
	if field != "a field's name" {
		if err := checkText(field, prefix); err != nil {
			return err
		}
	}
	return badByte(field, payload[bad], len(prefix))
}

// textFrame is an object or an array CheckCommandText is in.
type textFrame struct {
	object  bool
	keyNext bool   // object: the next string is a key
	key     string // object: the key of the value read
	index   int    // array: the index of the value read
}

// textPath names the value at the top of stack as a command's refusals name it: a
// field of the command by its JSON name, a wager's field as "wager 2's box" (bets_closed)
// or "the wager's box" (insurance_bet), anything else by its path (a.b[0]).
func textPath(stack []textFrame) string {
	if len(stack) == 0 {
		return "the command"
	}
	top := canonicalField(stack[0].key)
	switch {
	case len(stack) == 1 && stack[0].object:
		return top
	case len(stack) == 2 && top == "wager" && stack[1].object:
		return "the wager's " + stack[1].key
	case len(stack) == 3 && top == "wagers" && !stack[1].object && stack[2].object:
		return fmt.Sprintf("wager %d's %s", stack[1].index+1, stack[2].key)
	}
	var b strings.Builder
	for i, f := range stack {
		switch {
		case !f.object:
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		case i == 0:
			b.WriteString(top)
		default:
			b.WriteString("." + f.key)
		}
	}
	return b.String()
}

// canonicalField is the JSON name of Command's field that key names, as JSON decoding
// matches it (without regard to case); key itself when it names none.
func canonicalField(key string) string {
	for _, f := range commandFieldNames {
		if strings.EqualFold(f, key) {
			return f
		}
	}
	return key
}
