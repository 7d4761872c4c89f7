package table

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/round"
)

// FuzzDecodeEntry reads arbitrary bytes as a journal record's data. Whatever the bytes,
// the decoder must not panic; an error names the record; an entry it accepts is one of
// settings, an event, a key or a recovery, never two or none, and is the same entry once
// written again and read back, as a replay after the next restart reads it. The plain
// records the table writes for most events, which decodeEvent reads without
// encoding/json, read as json.Unmarshal reads them.
func FuzzDecodeEntry(f *testing.F) {
	for _, s := range []string{
		`{"settings":{"table":"T1","round":{"rules":{"name":"classic"}}}}`,
		`{"settings":{"table":"T9","round":{"rules":{"name":"royal","royal_tiers":4}},"auto_confirm":true}}`,
		`{"event":{"kind":"card","card":"9H","seq":3}}`,
		`{"event":{"kind":"dance"}}`,
		`{"event":{"kind":"card"},"settings":{"round":{"rules":{"name":"rws"}}}}`,
		`{"key":{"public":"ed25519:O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik="}}`,
		`{"key":{"public":"ed25519:short"}}`,
		`{"recovery":{"at":"2026-11-23T08:00:00Z","by":"S17","reason":"key lost","lost":["the key"],` +
			`"lost_head":{"seq":240,"hash":"` + strings.Repeat("ab", 32) + `","sig":"` + strings.Repeat("A", 86) + `=="}}}`,
		`{`, `{}`, `null`,
		`{"event":{"kind":"card","at":"2026-11-27T03:28:57.727973404Z","card":"QS","seq":1,"shoe_ms":19,"shoe_timed":true}}`,
		`{"event":{"kind":"confirm","at":"2026-11-27T03:28:57.727973404Z","actor":"auto"}}`,
		`{"event":{"kind":"card","card":"9H","seq":3,"card":"TD","at":"2026-11-27T04:28:57+01:00","burned":true}}`,
		`{"event":{"kind":"card","seq":18446744073709551615,"shoe_ms":4294967296}}`,
		`{"event":{"kind":"card","seq":01,"Seq":2,"set":"caf\u00e9"}}`,
		`{"event":{"kind":"shoe-end","empty":true,"signal":7,"round":3,"id":2,"decks":8,"cards":416,"box":"1","detail":"d","resent":true,"renumbered":true}}`,
	} {
		f.Add([]byte(s))
	}
	if b, err := json.Marshal(Entry{Event: &round.Event{Kind: round.ShoeEnd}}); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if ev, ok := decodeEvent(data); ok {
			var want Entry
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatalf("%q read without encoding/json, which refuses it: %v", data, err)
			}
			if want.Settings != nil || !reflect.DeepEqual(ev, want.Event) {
				t.Fatalf("%q read without encoding/json as %+v, by json.Unmarshal as %+v", data, ev, want)
			}
		}
		e, err := DecodeEntry(42, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "journal record 42: ") {
				t.Fatalf("error %q does not name the record", err)
			}
			return
		}
		set := 0
		for _, ok := range []bool{e.Settings != nil, e.Event != nil, e.Key != nil, e.Recovery != nil} {
			if ok {
				set++
			}
		}
		if set != 1 {
			t.Fatalf("accepted %q as %+v: want one of settings, an event, a key or a recovery", data, e)
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("accepted %q, but it cannot be written again: %v", data, err)
		}
		again, err := DecodeEntry(43, b)
		if err != nil {
			t.Fatalf("accepted %q, but not once written again as %s: %v", data, b, err)
		}
		if !reflect.DeepEqual(again, e) {
			t.Fatalf("%q read back as %+v, first read as %+v", b, again, e)
		}
	})
}
