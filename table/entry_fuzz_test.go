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
// written again and read back, as a replay after the next restart reads it.
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
	} {
		f.Add([]byte(s))
	}
	if b, err := json.Marshal(Entry{Event: &round.Event{Kind: round.ShoeEnd}}); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
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
