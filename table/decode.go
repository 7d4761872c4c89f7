package table

import (
	"bytes"
	"math"

	"github.com/tablectl/tablectl/round"
)

// decodeEvent reads a record of the form the table writes for most events, an object
// {"event":{...}} with no space, whose keys are exactly those of the flat fields below
// and whose values are plain: strings with no escape and only printable ASCII, unsigned
// integers, true or false. It reports false for anything else, which json.Unmarshal
// reads instead. What it accepts it reads as json.Unmarshal would: the text fields
// through the same UnmarshalText and UnmarshalJSON methods, a key given twice as its
// last value (FuzzDecodeEntry holds the two to each other).
func decodeEvent(data []byte) (*round.Event, bool) {
	const head, tail = `{"event":{`, `}}`
	if !bytes.HasPrefix(data, []byte(head)) || !bytes.HasSuffix(data, []byte(tail)) || len(data) < len(head)+len(tail) {
		return nil, false
	}
	d := fastDecoder{b: data[len(head) : len(data)-len(tail)]}
	ev := new(round.Event)
	for first := true; len(d.b) > 0 || first; first = false {
		if !first && !d.byte(',') {
			return nil, false
		}
		key, ok := d.str()
		if !ok || !d.byte(':') || !d.field(ev, key) {
			return nil, false
		}
	}
	return ev, true
}

// fastDecoder reads the plain values of decodeEvent from b, consuming them.
type fastDecoder struct{ b []byte }

// byte consumes c.
func (d *fastDecoder) byte(c byte) bool {
	if len(d.b) == 0 || d.b[0] != c {
		return false
	}
	d.b = d.b[1:]
	return true
}

// str consumes a string of printable ASCII with no escape and returns what is between
// its quotes.
func (d *fastDecoder) str() ([]byte, bool) {
	if len(d.b) == 0 || d.b[0] != '"' {
		return nil, false
	}
	for i := 1; i < len(d.b); i++ {
		switch c := d.b[i]; {
		case c == '"':
			s := d.b[1:i]
			d.b = d.b[i+1:]
			return s, true
		case c == '\\' || c < 0x20 || c > 0x7e:
			return nil, false
		}
	}
	return nil, false
}

// uint consumes an unsigned JSON integer no greater than max.
func (d *fastDecoder) uint(max uint64) (uint64, bool) {
	n := 0
	var v uint64
	for n < len(d.b) && d.b[n] >= '0' && d.b[n] <= '9' {
		if n == 19 {
			return 0, false // may not fit: json.Unmarshal judges it
		}
		v = v*10 + uint64(d.b[n]-'0')
		n++
	}
	if n == 0 || n > 1 && d.b[0] == '0' || v > max {
		return 0, false
	}
	if n < len(d.b) && (d.b[n] == '.' || d.b[n] == 'e' || d.b[n] == 'E') {
		return 0, false // not an integer
	}
	d.b = d.b[n:]
	return v, true
}

// bool consumes true or false.
func (d *fastDecoder) bool() (bool, bool) {
	switch {
	case bytes.HasPrefix(d.b, []byte("true")):
		d.b = d.b[4:]
		return true, true
	case bytes.HasPrefix(d.b, []byte("false")):
		d.b = d.b[5:]
		return false, true
	}
	return false, false
}

// field consumes the value of key into ev's field of that JSON name.
func (d *fastDecoder) field(ev *round.Event, key []byte) bool {
	var ok bool
	switch string(key) {
	case "kind":
		var s []byte
		if s, ok = d.str(); ok {
			ok = ev.Kind.UnmarshalText(s) == nil
		}
	case "at":
		rest := d.b
		var s []byte
		if s, ok = d.str(); ok {
			ok = ev.At.UnmarshalJSON(rest[:len(s)+2]) == nil
		}
	case "card":
		var s []byte
		if s, ok = d.str(); ok {
			ok = ev.Card.UnmarshalText(s) == nil
		}
	case "set":
		ok = d.text(&ev.Set)
	case "actor":
		ok = d.text(&ev.Actor)
	case "detail":
		ok = d.text(&ev.Detail)
	case "box":
		ok = d.text(&ev.Box)
	case "dealer":
		ok = d.text(&ev.Dealer)
	case "seq":
		ev.Seq, ok = d.uint(math.MaxUint64)
	case "signal":
		ev.Signal, ok = d.uint(math.MaxUint64)
	case "decks":
		var v uint64
		v, ok = d.uint(math.MaxInt)
		ev.Decks = int(v)
	case "cards":
		var v uint64
		v, ok = d.uint(math.MaxInt)
		ev.Cards = int(v)
	case "shoe_ms":
		var v uint64
		v, ok = d.uint(math.MaxUint32)
		ev.ShoeTime = uint32(v)
	case "round":
		var v uint64
		v, ok = d.uint(math.MaxUint32)
		ev.Round = uint32(v)
	case "id":
		var v uint64
		v, ok = d.uint(math.MaxUint32)
		ev.ID = uint32(v)
	case "shoe_timed":
		ev.ShoeTimed, ok = d.bool()
	case "resent":
		ev.Resent, ok = d.bool()
	case "burned":
		ev.Burned, ok = d.bool()
	case "renumbered":
		ev.Renumbered, ok = d.bool()
	case "empty":
		ev.Empty, ok = d.bool()
	}
	return ok
}

// text consumes a plain string into s.
func (d *fastDecoder) text(s *string) bool {
	b, ok := d.str()
	if ok {
		*s = string(b)
	}
	return ok
}
