package messages

import (
	"encoding/json"
	"strconv"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/jsonw"
)

// stateJSON is the state message s as JSON, byte for byte what json.Marshal gives. It
// writes the message directly, without reflection. Its rarer parts (an outcome,
// Insurance offers, a held irregularity, an options window) go through json.Marshal and
// are set in place. Anything unusual (a card that is not one, a time JSON cannot carry,
// text that needs escaping, a part json.Marshal refuses) sends the whole message to
// json.Marshal, which gives its result or its error. table is the table's name as
// json.Marshal writes it (quoted and escaped).
func stateJSON(s *api.State, table []byte) ([]byte, error) {
	if b, ok := appendStateJSON(make([]byte, 0, 512), s, table); ok {
		return b, nil
	}
	return json.Marshal(s)
}

// appendStateJSON appends the state message s as JSON to b. It reports false when s
// needs what it does not write: then b is to be dropped.
func appendStateJSON(b []byte, s *api.State, table []byte) ([]byte, bool) {
	b, ok := appendEnvelopeJSON(b, &s.Envelope, table)
	if !ok {
		return b, false
	}
	b = append(b, `,"phase":`...)
	if b, ok = jsonw.AppendPlain(b, s.Phase); !ok {
		return b, false
	}
	b = append(b, `,"betting_open":`...)
	b = strconv.AppendBool(b, s.BettingOpen)
	b = append(b, `,"rules":`...)
	if b, ok = jsonw.AppendPlain(b, s.Rules); !ok {
		return b, false
	}
	if s.Decks != 0 {
		b = append(b, `,"decks":`...)
		b = strconv.AppendInt(b, int64(s.Decks), 10)
	}
	if s.Set != "" {
		b = append(b, `,"set":`...)
		if b, ok = jsonw.AppendPlain(b, s.Set); !ok {
			return b, false
		}
	}
	b = append(b, `,"cards":`...)
	if s.Cards == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range s.Cards {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			if b, ok = appendSlotCardFields(b, &s.Cards[i]); !ok {
				return b, false
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"player_points":`...)
	b = strconv.AppendInt(b, int64(s.PlayerPoints), 10)
	b = append(b, `,"banker_points":`...)
	b = strconv.AppendInt(b, int64(s.BankerPoints), 10)
	if s.Next != "" {
		b = append(b, `,"next_slot":`...)
		if b, ok = jsonw.AppendPlain(b, string(s.Next)); !ok {
			return b, false
		}
	}
	if s.Outcome != nil {
		if b, ok = appendMarshalled(b, `,"outcome":`, s.Outcome); !ok {
			return b, false
		}
	}
	switch {
	case s.Offers == nil:
		b = append(b, `,"insurance_offers":null`...)
	case len(s.Offers) == 0:
		b = append(b, `,"insurance_offers":[]`...)
	default:
		if b, ok = appendMarshalled(b, `,"insurance_offers":`, s.Offers); !ok {
			return b, false
		}
	}
	if s.Held != nil {
		if b, ok = appendMarshalled(b, `,"held":`, s.Held); !ok {
			return b, false
		}
	}
	if s.Options != nil {
		if b, ok = appendMarshalled(b, `,"options":`, s.Options); !ok {
			return b, false
		}
	}
	b = append(b, `,"cut_card":`...)
	b = strconv.AppendBool(b, s.CutCard)
	b = append(b, `,"cards_drawn":`...)
	b = strconv.AppendInt(b, int64(s.CardsDrawn), 10)
	b = append(b, `,"cards_remaining":`...)
	b = strconv.AppendInt(b, int64(s.CardsRemaining), 10)
	if s.Burning {
		b = append(b, `,"burning":true`...)
	}
	return append(b, '}'), true
}

// appendMarshalled appends key and v as json.Marshal writes v: as it writes v inside a
// message. It reports false when json.Marshal refuses v.
func appendMarshalled(b []byte, key string, v any) ([]byte, bool) {
	p, err := json.Marshal(v)
	if err != nil {
		return b, false
	}
	b = append(b, key...)
	return append(b, p...), true
}
