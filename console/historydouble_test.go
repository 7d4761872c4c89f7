package console

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/history"
)

// historyDouble is a History held in memory: the rounds it is given, searched as the
// archive searches them (every condition of a Search, its order, its pages), with each
// search it is asked kept. A non-nil fail is the error of every call.
type historyDouble struct {
	mu       sync.Mutex
	rounds   []history.RoundDetail
	searches []history.Search
	fail     error
}

// SearchRounds returns a page of the rounds s finds, as archive.DB's does.
func (h *historyDouble) SearchRounds(_ context.Context, s history.Search) (history.Page, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.searches = append(h.searches, s)
	if h.fail != nil {
		return history.Page{}, h.fail
	}
	limit := s.Limit
	switch {
	case limit < 0:
		return history.Page{}, fmt.Errorf("search: limit %d below 0", limit)
	case limit == 0:
		limit = history.DefaultSearchLimit
	case limit > history.MaxSearchLimit:
		limit = history.MaxSearchLimit
	}
	var found []history.RoundRow
	for _, d := range h.rounds {
		if h.finds(s, d) {
			found = append(found, d.RoundRow)
		}
	}
	slices.SortFunc(found, func(a, b history.RoundRow) int { return compareCursors(a.Cursor(), b.Cursor()) })
	if s.After != nil {
		found = slices.DeleteFunc(found, func(r history.RoundRow) bool { return compareCursors(r.Cursor(), *s.After) <= 0 })
	}
	page := history.Page{Rounds: []history.RoundRow{}}
	if len(found) > limit {
		found = found[:limit]
		c := found[limit-1].Cursor()
		page.Next = &c
	}
	page.Rounds = append(page.Rounds, found...)
	return page, nil
}

// finds tells whether s finds the round d.
func (h *historyDouble) finds(s history.Search, d history.RoundDetail) bool {
	switch {
	case len(s.Tables) > 0 && !slices.Contains(s.Tables, d.Table),
		!s.From.IsZero() && d.Ended.Before(s.From),
		!s.To.IsZero() && !d.Ended.Before(s.To),
		s.Kind != "" && !slices.ContainsFunc(d.Irregularities, func(i history.IrregularityIn) bool { return i.Kind == s.Kind }),
		s.Decision != "" && !slices.ContainsFunc(d.Irregularities, func(i history.IrregularityIn) bool { return i.Decision == s.Decision }):
		return false
	case s.Person != "":
		return slices.ContainsFunc(d.Irregularities, func(i history.IrregularityIn) bool { return i.DecidedBy == s.Person }) ||
			slices.ContainsFunc(d.Commands, func(c history.CommandIn) bool { return c.Actor == s.Person })
	}
	return true
}

// compareCursors orders two places as a search orders its rounds.
func compareCursors(a, b history.Cursor) int {
	return cmp.Or(a.Ended.Compare(b.Ended), strings.Compare(a.Table, b.Table), cmp.Compare(a.Shoe, b.Shoe),
		cmp.Compare(a.Round, b.Round), cmp.Compare(a.Seq, b.Seq))
}

// RoundDetail returns the round of table that ended at record seq, or history.ErrNoRound.
func (h *historyDouble) RoundDetail(_ context.Context, table string, seq uint64) (history.RoundDetail, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fail != nil {
		return history.RoundDetail{}, h.fail
	}
	for _, d := range h.rounds {
		if d.Table == table && d.Seq == seq {
			return d, nil
		}
	}
	return history.RoundDetail{}, fmt.Errorf("%w: table %s, record %d", history.ErrNoRound, table, seq)
}

// asked returns the searches the double was asked, and forgets them.
func (h *historyDouble) asked() []history.Search {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.searches
	h.searches = nil
	return s
}

// doubleRounds are n rounds of each table, one a minute from 08:00 on 27 November 2026,
// each ended at record 10 times its number. Every seventh of t1's has an irregularity
// S17 decided void; D4 confirmed every one of t2's.
func doubleRounds(n int, tables ...string) []history.RoundDetail {
	start := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	var out []history.RoundDetail
	for _, table := range tables {
		for i := 1; i <= n; i++ {
			d := history.RoundDetail{RoundRow: history.RoundRow{Table: table, Shoe: 1, Round: uint32(i), FirstSeq: uint64(10*i - 9),
				Seq: uint64(10 * i), Started: start.Add(time.Duration(i-1) * time.Minute), Ended: start.Add(time.Duration(i)*time.Minute - time.Second),
				Player: "9S KD", Banker: "4H 3C", Winner: "player", PlayerPoints: 9, BankerPoints: 7}}
			if table == "t1" && i%7 == 0 {
				d.Irregularities = []history.IrregularityIn{{Seq: uint64(10*i - 1), ID: uint32(i), Kind: "incorrect_cards", Holds: true,
					Decision: "void", DecidedRole: "supervisor", DecidedBy: "S17"}}
				d.RoundRow.Irregularities = []string{"incorrect_cards"}
			}
			if table == "t2" {
				d.Commands = []history.CommandIn{{Seq: uint64(10*i - 2), Kind: "confirm", Role: "dealer", Actor: "D4"}}
			}
			out = append(out, d)
		}
	}
	return out
}

// doubleConsole is a test console whose History is h; t1 is in pit3 and t2 in pit4.
func doubleConsole(t *testing.T, h *historyDouble) *testConsole {
	t.Helper()
	tc := newTestConsoleWith(t, nil, func(o *Options) { o.History = h })
	addUser(t, tc, User{Name: "S5", Role: "supervisor", Pits: []string{"pit3"}}, "supervisor-pass-5")
	for table, pit := range map[string]string{"t1": "pit3", "t2": "pit4"} {
		tc.srv.Ingest("casino/lv1/"+pit+"/tablectl/v1/"+table+"/status", []byte(`{"schema":1,"table":"`+table+`","state":"online"}`))
	}
	return tc
}

// TestHistoryDoubleSearchesAsTheArchive: the double finds what each condition of a
// search finds, in the search's order, a page at a time, and answers ErrNoRound for a
// round it does not hold; so the tests that use it test the console against the
// archive's answers.
func TestHistoryDoubleSearchesAsTheArchive(t *testing.T) {
	t.Parallel()
	h := &historyDouble{rounds: doubleRounds(30, "t2", "t1")}
	ctx := context.Background()
	count := func(s history.Search) int {
		t.Helper()
		p, err := h.SearchRounds(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		return len(p.Rounds)
	}
	from := time.Date(2026, 11, 27, 8, 10, 0, 0, time.UTC)
	for _, c := range []struct {
		what string
		s    history.Search
		want int
	}{
		{"every round", history.Search{Limit: 1000}, 60},
		{"the default page", history.Search{}, 60},
		{"t1", history.Search{Tables: []string{"t1"}}, 30},
		{"from 08:10", history.Search{From: from}, 2 * 20},
		{"before 08:10", history.Search{To: from}, 2 * 10},
		{"kind incorrect_cards", history.Search{Kind: "incorrect_cards"}, 4},
		{"decision void on t2", history.Search{Decision: "void", Tables: []string{"t2"}}, 0},
		{"person S17", history.Search{Person: "S17"}, 4},
		{"person D4", history.Search{Person: "D4"}, 30},
		{"a page of 7", history.Search{Limit: 7}, 7},
	} {
		if got := count(c.s); got != c.want {
			t.Errorf("%s: %d rounds, want %d", c.what, got, c.want)
		}
	}
	var all []history.RoundRow
	for s := (history.Search{Limit: 7}); ; {
		p, err := h.SearchRounds(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, p.Rounds...)
		if p.Next == nil {
			break
		}
		s.After = p.Next
	}
	if len(all) != 60 || all[0].Table != "t1" || all[1].Table != "t2" || all[59].Round != 30 ||
		!slices.IsSortedFunc(all, func(a, b history.RoundRow) int { return compareCursors(a.Cursor(), b.Cursor()) }) {
		t.Fatalf("pages of 7: %d rounds, first %s, %s", len(all), all[0].Table, all[1].Table)
	}
	if _, err := h.RoundDetail(ctx, "t1", 11); !errors.Is(err, history.ErrNoRound) {
		t.Fatalf("record 11 ends no round: %v", err)
	}
	if d, err := h.RoundDetail(ctx, "t1", 70); err != nil || d.Round != 7 || len(d.Irregularities) != 1 {
		t.Fatalf("t1's round 7: %+v %v", d, err)
	}
}

// TestHistoryAsksTheArchiveThePersonsSearch: what reaches the archive is the search the
// person asked, limited to the tables they work: a supervisor of every table asks every
// table (none named), a supervisor of a pit that pit's tables; the conditions, the
// page's size and its cursor pass as given, and the page's next cursor comes back as
// the next page's after.
func TestHistoryAsksTheArchiveThePersonsSearch(t *testing.T) {
	t.Parallel()
	h := &historyDouble{rounds: doubleRounds(30, "t1", "t2")}
	tc := doubleConsole(t, h)
	s17 := tc.login(t, "S17", "supervisor-pass-17")
	code, body := s17.get(t, "/api/history/rounds?kind=incorrect_cards&decision=void&person=S17&from=2026-11-27T08:00:00Z&to=2026-11-27T09:00:00Z&limit=3")
	p := pageOf(t, body)
	if code != 200 || len(p.Rounds) != 3 || p.Next == "" || p.Rounds[0].Pit != "pit3" {
		t.Fatalf("S17: %d %s", code, body)
	}
	asked := h.asked()
	want := history.Search{Kind: "incorrect_cards", Decision: "void", Person: "S17", Limit: 3,
		From: time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}
	if len(asked) != 1 || fmt.Sprint(asked[0]) != fmt.Sprint(want) {
		t.Fatalf("S17's search reached the archive as %+v, want %+v", asked, want)
	}
	_, body = s17.get(t, "/api/history/rounds?kind=incorrect_cards&limit=3&after="+url.QueryEscape(p.Next))
	if next := pageOf(t, body); len(next.Rounds) != 1 || next.Rounds[0].Round != 28 || next.Next != "" {
		t.Fatalf("the next page: %s", body)
	}
	if asked := h.asked(); len(asked) != 1 || asked[0].After == nil || asked[0].After.String() != p.Next {
		t.Fatalf("the next page's search: %+v, want after %s", asked, p.Next)
	}

	s5 := tc.login(t, "S5", "supervisor-pass-5")
	if code, body := s5.get(t, "/api/history/rounds"); code != 200 || fmt.Sprint(tablesOf(pageOf(t, body))) != "map[t1:30]" {
		t.Fatalf("S5: %d %s", code, body)
	}
	if asked := h.asked(); len(asked) != 1 || fmt.Sprint(asked[0].Tables) != "[t1]" {
		t.Fatalf("S5's search reached the archive as %+v, want tables [t1]", asked)
	}
	// A search the person's tables leave empty does not reach the archive.
	if code, body := s17.get(t, "/api/history/rounds?pit=pit8"); code != 200 || len(pageOf(t, body).Rounds) != 0 {
		t.Fatalf("S17, pit8: %d %s", code, body)
	}
	if asked := h.asked(); len(asked) != 0 {
		t.Fatalf("a search of no table reached the archive: %+v", asked)
	}
}

// TestHistoryCSVTakesEveryPage: the CSV export asks the archive for pages of its
// largest size, each after the one before, until the last, and writes every round.
func TestHistoryCSVTakesEveryPage(t *testing.T) {
	t.Parallel()
	h := &historyDouble{rounds: doubleRounds(1250, "t1", "t2")}
	tc := doubleConsole(t, h)
	a := tc.login(t, "S17", "supervisor-pass-17")
	code, body := a.get(t, "/api/history/rounds.csv")
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if code != 200 || err != nil || len(rows) != 1+2500 {
		t.Fatalf("CSV: %d, %d rows, %v", code, len(rows), err)
	}
	if rows[1][0] != "t1" || rows[2][0] != "t2" || rows[2500][3] != "1250" {
		t.Fatalf("rows: first %v, %v; last %v", rows[1], rows[2], rows[2500])
	}
	asked := h.asked()
	if len(asked) != 3 || asked[0].After != nil || asked[1].After == nil || asked[2].After == nil {
		t.Fatalf("%d searches for 2500 rounds: %+v", len(asked), asked)
	}
	for _, s := range asked {
		if s.Limit != history.MaxSearchLimit {
			t.Errorf("a page of the export asked %d rounds, want %d", s.Limit, history.MaxSearchLimit)
		}
	}
}

// TestHistoryArchiveFaults: an archive that does not answer is a 500 saying so, logged;
// a round the archive does not hold is a 404 naming it.
func TestHistoryArchiveFaults(t *testing.T) {
	t.Parallel()
	h := &historyDouble{rounds: doubleRounds(3, "t1")}
	tc := doubleConsole(t, h)
	a := tc.login(t, "S17", "supervisor-pass-17")
	if code, body := a.get(t, "/api/history/rounds/t1/11"); code != 404 || !strings.Contains(body, "the archive holds no round of table t1 ended at record 11") {
		t.Fatalf("a round not held: %d %s", code, body)
	}
	if code, body := a.get(t, "/api/history/rounds/t1/20"); code != 200 || !strings.Contains(body, `"round":2`) {
		t.Fatalf("t1's round 2: %d %s", code, body)
	}
	h.mu.Lock()
	h.fail = errors.New("connection refused")
	h.mu.Unlock()
	for _, c := range []struct{ path, want string }{
		{"/api/history/rounds", "the archive did not answer the search: connection refused"},
		{"/api/history/rounds.csv", "the archive did not answer the search: connection refused"},
		{"/api/history/rounds/t1/20", "the archive did not answer: connection refused"},
	} {
		if code, body := a.get(t, c.path); code != 500 || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %s, want 500 %q", c.path, code, body, c.want)
		}
	}
	for _, want := range []string{`msg="history search failed"`, `msg="history export failed"`, `msg="history round failed"`, `error="connection refused"`} {
		if !strings.Contains(tc.log.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, tc.log.String())
		}
	}
}
