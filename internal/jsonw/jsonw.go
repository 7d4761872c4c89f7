// Package jsonw writes JSON values byte for byte as encoding/json does, without
// reflection, for the messages and records a table writes on every card. Each writer
// reports false for a value it does not write as encoding/json would; the caller then
// hands the whole value to encoding/json.
package jsonw

import "time"

// AppendTime appends t quoted in RFC 3339 with nanoseconds, as time.Time's
// MarshalJSON writes it. It reports false for the times MarshalJSON refuses: a year
// outside 0 to 9999, or a zone offset of 24 hours or more.
func AppendTime(b []byte, t time.Time) ([]byte, bool) {
	if y := t.Year(); y < 0 || y > 9999 {
		return b, false
	}
	if _, off := t.Zone(); off <= -24*3600 || off >= 24*3600 {
		return b, false
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), true
}

// AppendPlain appends the strings ss joined and quoted; it reports false when
// they hold a byte that encoding/json would escape (a control byte, a quote, a
// backslash, <, > or &, or any byte outside ASCII).
func AppendPlain(b []byte, ss ...string) ([]byte, bool) {
	for _, s := range ss {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return b, false
			}
		}
	}
	b = append(b, '"')
	for _, s := range ss {
		b = append(b, s...)
	}
	return append(b, '"'), true
}
