package messages

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/tablectl/tablectl/api"
)

// cardJSON is the card message m as JSON, byte for byte what json.Marshal gives. It
// writes the common card directly, without reflection; anything unusual (a card that
// is not one, a time JSON cannot carry, text that needs escaping) goes to json.Marshal,
// which gives its result or its error. table is the table's name as json.Marshal
// writes it (quoted and escaped).
func cardJSON(m *api.Card, table []byte) ([]byte, error) {
	if b, ok := appendCardJSON(make([]byte, 0, 192), m, table); ok {
		return b, nil
	}
	return json.Marshal(m)
}

// appendCardJSON appends the card message m as JSON to b. It reports false when m
// needs what it does not write: then b is to be dropped.
func appendCardJSON(b []byte, m *api.Card, table []byte) ([]byte, bool) {
	b, ok := appendEnvelopeJSON(b, &m.Envelope, table)
	if !ok {
		return b, false
	}
	b = append(b, ',')
	if b, ok = appendSlotCardFields(b, &m.SlotCard); !ok {
		return b, false
	}
	b = append(b, `,"player_points":`...)
	b = strconv.AppendInt(b, int64(m.PlayerPoints), 10)
	b = append(b, `,"banker_points":`...)
	b = strconv.AppendInt(b, int64(m.BankerPoints), 10)
	return append(b, '}'), true
}

// appendEnvelopeJSON appends '{' and the envelope env's fields as JSON, table being its
// table's name as json.Marshal writes it. It reports false when env needs what it does
// not write.
func appendEnvelopeJSON(b []byte, env *api.Envelope, table []byte) ([]byte, bool) {
	b = append(b, `{"schema":`...)
	b = strconv.AppendInt(b, int64(env.Schema), 10)
	b = append(b, `,"table":`...)
	b = append(b, table...)
	b = append(b, `,"shoe":`...)
	b = strconv.AppendUint(b, uint64(env.Shoe), 10)
	b = append(b, `,"round":`...)
	b = strconv.AppendUint(b, uint64(env.Round), 10)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, env.Seq, 10)
	b = append(b, `,"at":`...)
	return appendTimeJSON(b, env.At)
}

// appendSlotCardFields appends the fields of sc as JSON, without braces. It reports false
// for a card that is not one, which json.Marshal refuses.
func appendSlotCardFields(b []byte, sc *api.SlotCard) ([]byte, bool) {
	if !sc.Card.Valid() {
		return b, false
	}
	var ok bool
	b = append(b, `"slot":`...)
	if b, ok = appendPlainString(b, sc.Slot.String()); !ok {
		return b, false
	}
	b = append(b, `,"card":`...)
	if b, ok = appendPlainString(b, sc.Card.Rank.String(), sc.Card.Suit.String()); !ok {
		return b, false
	}
	if sc.CardNo != 0 {
		b = append(b, `,"shoe_seq":`...)
		b = strconv.AppendUint(b, sc.CardNo, 10)
	}
	return b, true
}

// appendTimeJSON appends t quoted in RFC 3339 with nanoseconds, as time.Time's
// MarshalJSON writes it. It reports false for the times MarshalJSON refuses: a year
// outside 0 to 9999, or a zone offset of 24 hours or more.
func appendTimeJSON(b []byte, t time.Time) ([]byte, bool) {
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

// appendPlainString appends the strings ss joined and quoted; it reports false when
// they hold a byte that encoding/json would escape (a control byte, a quote, a
// backslash, <, > or &, or any byte outside ASCII).
func appendPlainString(b []byte, ss ...string) ([]byte, bool) {
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
