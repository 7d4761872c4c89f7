package pitreport

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/pit"
)

// TestPaceSheet: a figure's row holds its counts, its rates to a tenth, the stand-still
// in minutes and seconds with each reason's part, and each phase's mean in seconds.
func TestPaceSheet(t *testing.T) {
	from := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	f := pit.Figure{Key: "t1", From: from, To: from.Add(time.Hour), Rounds: 61, Void: 1, PerHour: 61, PerDealingHour: 73.2,
		Still: 10*time.Minute + 5*time.Second, StillBy: map[string]time.Duration{pit.StillNoDealer: 10*time.Minute + 5*time.Second},
		Mean: pit.Phases{Betting: 20500 * time.Millisecond, Dealing: 25 * time.Second}}
	s := PaceSheet([]pit.Figure{f}, "table", time.UTC)
	got := strings.Join(s.Rows[0], ",")
	want := "t1,2026-03-02 14:00,2026-03-02 15:00,61,1,61.0,73.2,10:05,10:05,0:00,0:00,0:00,20.5,25.0,0.0,0.0,0.0"
	if got != want {
		t.Fatalf("the row:\n%s\nwant\n%s", got, want)
	}
	if len(s.Columns) != len(s.Rows[0]) || len(s.Num) != len(s.Columns) {
		t.Fatalf("%d columns, %d cells, %d number flags", len(s.Columns), len(s.Rows[0]), len(s.Num))
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, s); err != nil || !strings.HasPrefix(b.String(), "table,from,to,rounds,void,per hour,") {
		t.Fatalf("CSV: %v\n%s", err, b.String())
	}
}

// TestPageEscapes: what a page shows of the archive is text: a note with markup is
// written escaped, and a sheet with no rows says None.
func TestPageEscapes(t *testing.T) {
	var b bytes.Buffer
	p := Page{Title: "Shift report", Sheets: []Sheet{
		{Title: "Alerts", Columns: []string{"note"}, Num: []bool{false}, Rows: [][]string{{`<script>alert(1)</script>`}}},
		{Title: "Rotation", Columns: []string{"dealer"}, Num: []bool{false}},
	}}
	if err := WriteHTML(&b, p); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "<script>") || !strings.Contains(out, "&lt;script&gt;") || !strings.Contains(out, `<p class="none">None.</p>`) {
		t.Fatalf("the page:\n%s", out)
	}
	if err := CheckFormat("xml"); err == nil || CheckFormat("html") != nil {
		t.Fatal("CheckFormat")
	}
}
