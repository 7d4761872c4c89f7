package console

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLastHourPace: a tile counts the rounds whose results came in the last hour, by
// the results' own times; a result sent again is not counted twice; once the console
// has run an hour it no longer says since when it counts.
func TestLastHourPace(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	online(tc, "t1", "rws")
	start := tc.clock.now()
	result := func(seq int, at time.Time) {
		tc.srv.Ingest("tablectl/v1/t1/result", []byte(fmt.Sprintf(`{"schema":2,"table":"t1","shoe":1,"round":%d,"seq":%d,"at":%q,"winner":"banker","player_points":3,"banker_points":7}`,
			seq, seq, at.Format(time.RFC3339))))
	}
	result(1, start.Add(-70*time.Minute)) // before the hour
	result(2, start.Add(-30*time.Minute))
	result(3, start.Add(-10*time.Minute))
	result(3, start.Add(-10*time.Minute)) // sent again after a reconnect
	result(4, start)
	sum := func() Summary {
		for _, s := range tc.srv.floor.summaries() {
			if s.Table == "t1" {
				return s
			}
		}
		t.Fatal("no t1")
		return Summary{}
	}
	if s := sum(); s.LastHour != 3 || s.LastHourSince == "" {
		t.Fatalf("the last hour: %d rounds, since %q; want 3, since the console's start", s.LastHour, s.LastHourSince)
	}
	tc.clock.add(61 * time.Minute)
	result(5, tc.clock.now())
	s := sum()
	if s.LastHour != 1 || s.LastHourSince != "" {
		t.Fatalf("an hour on: %d rounds, since %q; want 1 and no since", s.LastHour, s.LastHourSince)
	}
	b, _ := json.Marshal(s)
	var m map[string]any
	json.Unmarshal(b, &m)
	if m["last_hour"] != float64(1) {
		t.Fatalf("the summary's JSON: %s", b)
	}
}

// TestPitFiguresForSupervisors: a pit's figures are a Pit Supervisor's and above: a
// dealer is answered 403; a console with no archive says so.
func TestPitFiguresForSupervisors(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	if code, body := tc.login(t, "D4", "dealer-password-4").get(t, "/api/pit?pit=pit1"); code != 403 || !strings.Contains(body, "supervisor or above") {
		t.Fatalf("a dealer: %d %s", code, body)
	}
	code, body := tc.login(t, "S17", "supervisor-pass-17").get(t, "/api/pit?pit=pit1")
	var got struct{ Archive bool }
	if json.Unmarshal([]byte(body), &got); code != 200 || got.Archive {
		t.Fatalf("no archive: %d %s", code, body)
	}
}
