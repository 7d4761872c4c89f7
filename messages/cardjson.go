package messages

import (
	"encoding/json"
	"strconv"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/jsonw"
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
	return jsonw.AppendTime(b, env.At)
}

// appendSlotCardFields appends the fields of sc as JSON, without braces. It reports false
// for a card that is not one, which json.Marshal refuses.
func appendSlotCardFields(b []byte, sc *api.SlotCard) ([]byte, bool) {
	if !sc.Card.Valid() {
		return b, false
	}
	var ok bool
	b = append(b, `"slot":`...)
	if b, ok = jsonw.AppendPlain(b, string(sc.Slot)); !ok {
		return b, false
	}
	b = append(b, `,"card":`...)
	if b, ok = jsonw.AppendPlain(b, string(sc.Card)); !ok {
		return b, false
	}
	if sc.CardNo != 0 {
		b = append(b, `,"shoe_seq":`...)
		b = strconv.AppendUint(b, sc.CardNo, 10)
	}
	return b, true
}
