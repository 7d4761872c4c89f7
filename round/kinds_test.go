package round

import (
	"testing"

	"github.com/tablectl/tablectl/irregularities"
)

// TestEventTable: every kind of event has its row in the event table, with a name of
// its own that reads back as the kind; a kind added without its row fails here.
func TestEventTable(t *testing.T) {
	kinds := EventKinds()
	if len(kinds) != int(eventKindCount)-1 {
		t.Fatalf("%d kinds of event listed, %d declared", len(kinds), eventKindCount-1)
	}
	seen := map[string]EventKind{}
	for _, k := range kinds {
		info := k.Info()
		if info.Name == "" || info.Name != k.String() {
			t.Errorf("event kind %d: no name in the event table (%+v)", k, info)
			continue
		}
		if other, ok := seen[info.Name]; ok {
			t.Errorf("event kinds %d and %d are both %q", other, k, info.Name)
		}
		seen[info.Name] = k
		var back EventKind
		if err := back.UnmarshalText([]byte(info.Name)); err != nil || back != k {
			t.Errorf("event %q reads back as %d, %v", info.Name, back, err)
		}
		if info.By > irregularities.ShiftManager {
			t.Errorf("event %q: lowest role %d is no role", info.Name, info.By)
		}
	}
	for _, k := range []EventKind{0, eventKindCount} {
		if k.String() != "?" || k.Info() != (EventInfo{}) {
			t.Errorf("event kind %d names %q", k, k)
		}
	}
	var k EventKind
	if err := k.UnmarshalText([]byte("no-such-event")); err == nil {
		t.Error("an unknown event kind is read")
	}
}

// TestEffectTable: every kind of effect has its row in the effect table, with a name of
// its own that reads back as the kind; a kind added without its row fails here.
func TestEffectTable(t *testing.T) {
	kinds := EffectKinds()
	if len(kinds) != int(effectKindCount)-1 {
		t.Fatalf("%d kinds of effect listed, %d declared", len(kinds), effectKindCount-1)
	}
	seen := map[string]EffectKind{}
	for _, k := range kinds {
		info := k.Info()
		if info.Name == "" || info.Name != k.String() {
			t.Errorf("effect kind %d: no name in the effect table (%+v)", k, info)
			continue
		}
		if other, ok := seen[info.Name]; ok {
			t.Errorf("effect kinds %d and %d are both %q", other, k, info.Name)
		}
		seen[info.Name] = k
		var back EffectKind
		if err := back.UnmarshalText([]byte(info.Name)); err != nil || back != k {
			t.Errorf("effect %q reads back as %d, %v", info.Name, back, err)
		}
		if info.Note > NoteAttention {
			t.Errorf("effect %q: note %d is none", info.Name, info.Note)
		}
	}
	for _, k := range []EffectKind{0, effectKindCount} {
		if k.String() != "?" || k.Info() != (EffectInfo{}) {
			t.Errorf("effect kind %d names %q", k, k)
		}
	}
}
