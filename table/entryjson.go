package table

import (
	"encoding/json"
	"strconv"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/internal/jsonw"
)

// entryJSON is the journal record of e, byte for byte what json.Marshal gives: the
// chain's hashes and the transcripts are of these bytes. It writes an event directly,
// without reflection, as long as the event's wagers, order and named values (an
// irregularity, a choice, a role, an option, a bet) are unset, as on every card. Any
// other entry, or a value it does not write as encoding/json would, goes to
// json.Marshal, which gives its result or its error.
func entryJSON(e *Entry) ([]byte, error) {
	if b, ok := appendEntryJSON(make([]byte, 0, 192), e); ok {
		return b, nil
	}
	return json.Marshal(e)
}

// appendEntryJSON appends the record of e to b. It reports false when e needs what it
// does not write: then b is to be dropped.
func appendEntryJSON(b []byte, e *Entry) ([]byte, bool) {
	ev := e.Event
	if ev == nil || e.Settings != nil || e.Command != nil || e.Key != nil || e.Recovery != nil ||
		len(ev.Order) != 0 || len(ev.Wagers) != 0 || ev.Irregularity != 0 || ev.Choice != 0 ||
		ev.Role != 0 || ev.Option != 0 || ev.Bet != 0 {
		return b, false
	}
	var ok bool
	b = append(b, `{"event":{"kind":`...)
	if b, ok = jsonw.AppendPlain(b, ev.Kind.String()); !ok {
		return b, false
	}
	if !ev.At.IsZero() {
		b = append(b, `,"at":`...)
		if b, ok = jsonw.AppendTime(b, ev.At); !ok {
			return b, false
		}
	}
	if b, ok = appendText(b, `,"set":`, ev.Set); !ok {
		return b, false
	}
	b = appendInt(b, `,"decks":`, int64(ev.Decks))
	b = appendInt(b, `,"cards":`, int64(ev.Cards))
	b = appendTrue(b, `,"empty":true`, ev.Empty)
	if ev.Card != (baccarat.Card{}) {
		if !ev.Card.Valid() {
			return b, false
		}
		b = append(b, `,"card":`...)
		if b, ok = jsonw.AppendPlain(b, ev.Card.Rank.String(), ev.Card.Suit.String()); !ok {
			return b, false
		}
	}
	b = appendUint(b, `,"seq":`, ev.Seq)
	b = appendTrue(b, `,"renumbered":true`, ev.Renumbered)
	b = appendTrue(b, `,"burned":true`, ev.Burned)
	b = appendUint(b, `,"shoe_ms":`, uint64(ev.ShoeTime))
	b = appendTrue(b, `,"shoe_timed":true`, ev.ShoeTimed)
	b = appendTrue(b, `,"resent":true`, ev.Resent)
	b = appendUint(b, `,"signal":`, ev.Signal)
	b = appendUint(b, `,"id":`, uint64(ev.ID))
	b = appendUint(b, `,"round":`, uint64(ev.Round))
	for _, f := range [...]struct{ key, s string }{{`,"actor":`, ev.Actor}, {`,"detail":`, ev.Detail}, {`,"box":`, ev.Box}, {`,"dealer":`, ev.Dealer}} {
		if b, ok = appendText(b, f.key, f.s); !ok {
			return b, false
		}
	}
	return append(b, "}}"...), true
}

// appendInt appends key and n, unless n is 0 (omitempty).
func appendInt(b []byte, key string, n int64) []byte {
	if n == 0 {
		return b
	}
	return strconv.AppendInt(append(b, key...), n, 10)
}

// appendUint appends key and n, unless n is 0 (omitempty).
func appendUint(b []byte, key string, n uint64) []byte {
	if n == 0 {
		return b
	}
	return strconv.AppendUint(append(b, key...), n, 10)
}

// appendTrue appends field (a key and true) when set (omitempty).
func appendTrue(b []byte, field string, set bool) []byte {
	if !set {
		return b
	}
	return append(b, field...)
}

// appendText appends key and s quoted, unless s is empty (omitempty). It reports false
// when s needs escaping.
func appendText(b []byte, key, s string) ([]byte, bool) {
	if s == "" {
		return b, true
	}
	return jsonw.AppendPlain(append(b, key...), s)
}
