package history

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestParseCursor refuses a cursor that is not one, naming it.
func TestParseCursor(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "1.2.3", "x.1.1.1.t", "1.1.1.1.", "1.99999999999.1.1.t", "-1.1.1.1.t"} {
		if _, err := ParseCursor(s); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", s)) {
			t.Errorf("ParseCursor(%q): %v", s, err)
		}
	}
	c := Cursor{Ended: time.Date(2026, 11, 27, 3, 40, 54, 406365000, time.UTC), Table: "pit.3.bac", Shoe: 2, Round: 7, Seq: 99}
	if got, err := ParseCursor(c.String()); err != nil || got != c {
		t.Fatalf("%v read back as %v, %v", c, got, err)
	}
}
