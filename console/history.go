package console

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/irregularities"
)

// History is what the History page searches: the rounds the floor's archive holds.
// SearchRounds returns a page of the rounds a search finds, in the search's order;
// RoundDetail returns the round of table that ended at record seq, or an error that is
// history.ErrNoRound when there is none. The archive's reader (archive.OpenReader)
// implements it; the console's tests give it a double of their own.
type History interface {
	SearchRounds(ctx context.Context, s history.Search) (history.Page, error)
	RoundDetail(ctx context.Context, table string, seq uint64) (history.RoundDetail, error)
}

// historyRole is the lowest role that reads the history: a Pit Supervisor. A dealer
// works the game in front of them and has no need of the floor's past.
const historyRole = irregularities.Supervisor

// maxCSVRounds bounds the rounds one CSV export writes.
const maxCSVRounds = 100_000

// maxHistoryTables bounds the tables one search names (table=). A floor has up to 500
// tables, so any floor's fit. Every table named costs the request a check and the
// database a parameter: 46,000 ids once took one request 17 s. A search over the cap is
// refused before anything is checked or searched.
const maxHistoryTables = 512

// maxHistoryPits bounds the pits one search names (pit=). A floor has a few dozen pits
// at most, and each pit named is looked up among every table of the floor.
const maxHistoryPits = 64

// mayReadHistory tells whether u's role reads the history.
func mayReadHistory(u User) bool { return u.rank() >= historyRole || u.surveillance() }

// historyParams are the query parameters a history search takes.
var historyParams = []string{"table", "pit", "from", "to", "kind", "decision", "person", "limit", "after"}

// historyQuery is a history search read from a request's parameters, before the
// person's tables are applied.
type historyQuery struct {
	tables, pits []string
	search       history.Search
}

// paramError is a bad query parameter: 400 naming it.
type paramError struct{ param, msg string }

func (e paramError) Error() string { return fmt.Sprintf("parameter %s: %s", e.param, e.msg) }

// list reads a parameter given once or more, each a comma-separated list, without
// repeats. More than most values in all is a paramError naming the cap, found before the
// rest is read.
func list(q url.Values, name, what string, most int) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, v := range q[name] {
		for len(v) > 0 {
			var p string
			p, v, _ = strings.Cut(v, ",")
			if p = strings.TrimSpace(p); p == "" || seen[p] {
				continue
			}
			if len(out) == most {
				return nil, paramError{name, fmt.Sprintf("more than %d %s: a search takes at most %d", most, what, most)}
			}
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// parseHistoryQuery reads a search's parameters; paging says whether limit and after
// are taken (a CSV export takes every round).
func parseHistoryQuery(q url.Values, paging bool) (historyQuery, error) {
	var h historyQuery
	for name := range q {
		if !slices.Contains(historyParams, name) || !paging && (name == "limit" || name == "after") {
			return h, paramError{name, "unknown parameter (a search takes " + strings.Join(historyParams[:7], ", ") + ")"}
		}
	}
	one := func(name string) (string, error) {
		if len(q[name]) > 1 {
			return "", paramError{name, "given more than once"}
		}
		return strings.TrimSpace(q.Get(name)), nil
	}
	var err error
	if h.tables, err = list(q, "table", "tables", maxHistoryTables); err != nil {
		return h, err
	}
	for _, t := range h.tables {
		if _, err := api.NewTopics(t); err != nil {
			return h, paramError{"table", fmt.Sprintf("%q is not a table id", t)}
		}
	}
	if h.pits, err = list(q, "pit", "pits", maxHistoryPits); err != nil {
		return h, err
	}
	for _, p := range h.pits {
		if strings.ContainsAny(p, "/+#\x00") || len(p) > 64 {
			return h, paramError{"pit", fmt.Sprintf("%q is not a pit name", p)}
		}
	}
	for _, tp := range []struct {
		name string
		to   *time.Time
	}{{"from", &h.search.From}, {"to", &h.search.To}} {
		v, err := one(tp.name)
		if err != nil {
			return h, err
		}
		if v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return h, paramError{tp.name, fmt.Sprintf("%q is not a time such as 2026-11-27T03:00:00Z (RFC 3339, with its zone)", v)}
		}
		*tp.to = t
	}
	if !h.search.From.IsZero() && !h.search.To.IsZero() && !h.search.To.After(h.search.From) {
		return h, paramError{"to", "not after from"}
	}
	if h.search.Kind, err = one("kind"); err != nil {
		return h, err
	}
	if h.search.Kind != "" {
		if _, err := irregularities.ParseKind(h.search.Kind); err != nil {
			return h, paramError{"kind", fmt.Sprintf("%q is not an irregularity's kind", h.search.Kind)}
		}
	}
	if h.search.Decision, err = one("decision"); err != nil {
		return h, err
	}
	if h.search.Decision != "" {
		if _, err := irregularities.ParseChoice(h.search.Decision); err != nil {
			return h, paramError{"decision", fmt.Sprintf("%q is not a decision (as-read, swapped, reconstructed, continue, void)", h.search.Decision)}
		}
	}
	if h.search.Person, err = one("person"); err != nil {
		return h, err
	}
	if h.search.Person != "" && checkName(h.search.Person) != nil {
		return h, paramError{"person", fmt.Sprintf("%q is not a person's name (letters, digits, '.', '_', '-')", h.search.Person)}
	}
	if !paging {
		return h, nil
	}
	limit, err := one("limit")
	if err != nil {
		return h, err
	}
	if limit != "" {
		n, err := strconv.Atoi(limit)
		if err != nil || n < 1 || n > history.MaxSearchLimit {
			return h, paramError{"limit", fmt.Sprintf("%q: want a number of rounds from 1 to %d", limit, history.MaxSearchLimit)}
		}
		h.search.Limit = n
	}
	after, err := one("after")
	if err != nil {
		return h, err
	}
	if after != "" {
		c, err := history.ParseCursor(after)
		if err != nil {
			return h, paramError{"after", "not the cursor of a page (the next of the page before)"}
		}
		h.search.After = &c
	}
	return h, nil
}

// historyTables returns the tables the search covers for the person: the tables asked
// (and those of the pits asked, as the floor knows them), within those the person works.
// all says every table (the person works every table and asked none). A table or pit
// asked that the person does not work is a 403.
func (s *Server) historyTables(u User, h historyQuery) (tables []string, all bool, err error) {
	for _, t := range h.tables {
		if !u.Works(t, s.floor.pitOf(t)) {
			return nil, false, errForbidden(fmt.Sprintf("%s does not work table %s", u.Name, t))
		}
	}
	for _, p := range h.pits {
		if len(u.Pits) > 0 || len(u.Tables) > 0 {
			if !slices.Contains(u.Pits, p) && !slices.ContainsFunc(s.floor.tablesOfPits([]string{p}), func(t string) bool { return u.Works(t, p) }) {
				return nil, false, errForbidden(fmt.Sprintf("%s does not work pit %s", u.Name, p))
			}
		}
	}
	var want []string
	switch {
	case len(h.pits) > 0:
		inPits := s.floor.tablesOfPits(h.pits)
		if len(h.tables) > 0 {
			inPits = slices.DeleteFunc(inPits, func(t string) bool { return !slices.Contains(h.tables, t) })
		}
		want = inPits
	case len(h.tables) > 0:
		want = h.tables
	case len(u.Tables) == 0 && len(u.Pits) == 0:
		return nil, true, nil
	default:
		want = slices.Clone(u.Tables)
		for _, t := range s.floor.tablesOfPits(u.Pits) {
			if !slices.Contains(want, t) {
				want = append(want, t)
			}
		}
	}
	return slices.DeleteFunc(want, func(t string) bool { return !u.Works(t, s.floor.pitOf(t)) }), false, nil
}

// errForbidden is a refusal of the person: 403.
type errForbidden string

func (e errForbidden) Error() string { return string(e) }

// historyAccess checks that the console has an archive and the person may read it, and
// answers the refusal when not.
func (s *Server) historyAccess(w http.ResponseWriter, r *http.Request, ss session) bool {
	if s.opts.History == nil {
		writeError(w, http.StatusNotFound, "the console has no archive (console.archive): there is no history to search")
		return false
	}
	if !mayReadHistory(ss.user) {
		s.audit("refused", "user", ss.user.Name, "role", ss.user.Role, "remote", remote(r), "request", r.Method+" "+r.URL.Path,
			"reason", "the history takes a supervisor or above")
		writeError(w, http.StatusForbidden, fmt.Sprintf("a %s may not read the history: it takes a supervisor or above", roleWords(ss.user.Role)))
		return false
	}
	return true
}

func roleWords(role string) string { return strings.ReplaceAll(role, "_", " ") }

// historySearch reads the search of a request and the tables it covers, answering the
// error when it cannot. none says the person works no table the search asks.
func (s *Server) historySearch(w http.ResponseWriter, r *http.Request, ss session, paging bool) (search history.Search, none, ok bool) {
	h, err := parseHistoryQuery(r.URL.Query(), paging)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return search, false, false
	}
	tables, all, err := s.historyTables(ss.user, h)
	if err != nil {
		s.audit("refused", "user", ss.user.Name, "role", ss.user.Role, "remote", remote(r), "request", r.Method+" "+r.URL.Path,
			"reason", err.Error())
		writeError(w, http.StatusForbidden, err.Error())
		return search, false, false
	}
	s.audit("history", "user", ss.user.Name, "role", ss.user.Role, "remote", remote(r), "request", r.URL.Path, "query", r.URL.RawQuery)
	search = h.search
	search.Tables = tables
	return search, !all && len(tables) == 0, true
}

// historyRound is a round of a search's answer: the archive's row and the table's pit.
type historyRound struct {
	history.RoundRow
	Pit string `json:"pit,omitempty"`
}

// historyPage is GET /api/history/rounds's answer.
type historyPage struct {
	Rounds []historyRound `json:"rounds"`
	// Next is the after parameter of the next page; absent on the last.
	Next string `json:"next,omitempty"`
}

func (s *Server) historyRounds(w http.ResponseWriter, r *http.Request, ss session) {
	if !s.historyAccess(w, r, ss) {
		return
	}
	search, none, ok := s.historySearch(w, r, ss, true)
	if !ok {
		return
	}
	out := historyPage{Rounds: []historyRound{}}
	if !none {
		p, err := s.opts.History.SearchRounds(r.Context(), search)
		if err != nil {
			s.log.Error("history search failed", "error", err)
			writeError(w, http.StatusInternalServerError, "the archive did not answer the search: "+err.Error())
			return
		}
		for _, rr := range p.Rounds {
			out.Rounds = append(out.Rounds, historyRound{RoundRow: rr, Pit: s.floor.pitOf(rr.Table)})
		}
		if p.Next != nil {
			out.Next = p.Next.String()
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// csvHeader is the header line of a CSV export.
var csvHeader = []string{"table", "pit", "shoe", "round", "started", "ended", "player_cards", "banker_cards",
	"player_points", "banker_points", "winner", "void", "void_reason", "irregularities", "first_record", "last_record"}

// historyCSV writes every round of the search as CSV (RFC 4180), at most maxCSVRounds.
func (s *Server) historyCSV(w http.ResponseWriter, r *http.Request, ss session) {
	if !s.historyAccess(w, r, ss) {
		return
	}
	search, none, ok := s.historySearch(w, r, ss, false)
	if !ok {
		return
	}
	search.Limit = history.MaxSearchLimit
	var first history.Page
	if !none {
		var err error
		if first, err = s.opts.History.SearchRounds(r.Context(), search); err != nil {
			s.log.Error("history export failed", "error", err)
			writeError(w, http.StatusInternalServerError, "the archive did not answer the search: "+err.Error())
			return
		}
	}
	name := "tablectl-history-" + s.opts.Now().UTC().Format("20060102T150405Z") + ".csv"
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.WriteHeader(http.StatusOK)
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	page, n := first, 0
	for {
		for _, rr := range page.Rounds {
			if n == maxCSVRounds {
				cw.Flush()
				s.log.Warn("history export cut at its limit", "user", ss.user.Name, "rounds", maxCSVRounds)
				return
			}
			n++
			cw.Write([]string{cell(rr.Table), cell(s.floor.pitOf(rr.Table)), strconv.FormatUint(uint64(rr.Shoe), 10),
				strconv.FormatUint(uint64(rr.Round), 10), csvTime(rr.Started), csvTime(rr.Ended), rr.Player, rr.Banker,
				strconv.Itoa(rr.PlayerPoints), strconv.Itoa(rr.BankerPoints), rr.Winner, strconv.FormatBool(rr.Void),
				cell(rr.VoidReason), strings.Join(rr.Irregularities, " "), strconv.FormatUint(rr.FirstSeq, 10),
				strconv.FormatUint(rr.Seq, 10)})
		}
		if page.Next == nil {
			break
		}
		search.After = page.Next
		var err error
		if page, err = s.opts.History.SearchRounds(r.Context(), search); err != nil {
			// The status is sent: the export ends short, and the log says why.
			s.log.Error("history export failed midway", "error", err, "rounds", n)
			break
		}
	}
	cw.Flush()
}

func csvTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// cell keeps a text a spreadsheet would take for a formula (=, +, -, @ first) a text,
// with a leading apostrophe.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// historyDetail is GET /api/history/rounds/{table}/{seq}'s answer.
type historyDetail struct {
	history.RoundDetail
	Pit string `json:"pit,omitempty"`
}

func (s *Server) historyRound(w http.ResponseWriter, r *http.Request, ss session) {
	if !s.historyAccess(w, r, ss) {
		return
	}
	table := r.PathValue("table")
	if _, err := api.NewTopics(table); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("table %q is not a table id", table))
		return
	}
	seq, err := strconv.ParseUint(r.PathValue("seq"), 10, 63)
	if err != nil || seq == 0 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("record %q: want the number of the record that ended the round", r.PathValue("seq")))
		return
	}
	pit := s.floor.pitOf(table)
	if !ss.user.Works(table, pit) {
		s.audit("refused", "user", ss.user.Name, "role", ss.user.Role, "remote", remote(r), "request", r.Method+" "+r.URL.Path,
			"reason", "does not work the table")
		writeError(w, http.StatusForbidden, fmt.Sprintf("%s does not work table %s", ss.user.Name, table))
		return
	}
	d, err := s.opts.History.RoundDetail(r.Context(), table, seq)
	if errors.Is(err, history.ErrNoRound) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("the archive holds no round of table %s ended at record %d", table, seq))
		return
	}
	if err != nil {
		s.log.Error("history round failed", "error", err)
		writeError(w, http.StatusInternalServerError, "the archive did not answer: "+err.Error())
		return
	}
	s.audit("history_round", "user", ss.user.Name, "role", ss.user.Role, "remote", remote(r), "table", table, "seq", seq)
	writeJSON(w, http.StatusOK, historyDetail{RoundDetail: d, Pit: pit})
}
