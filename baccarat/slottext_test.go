package baccarat

import (
	"encoding/json"
	"testing"
)

// TestSlotTextRoundTrip: every slot reads back as it was written, in JSON too; a name
// that is no slot is an error naming it.
func TestSlotTextRoundTrip(t *testing.T) {
	for s := NoSlot; s <= B3; s++ {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var got Slot
		if err := json.Unmarshal(b, &got); err != nil || got != s {
			t.Errorf("%s: read back %v, %v", b, got, err)
		}
	}
	var got Slot
	if err := got.UnmarshalText([]byte("P4")); err == nil {
		t.Error("P4 read as a slot")
	}
}
