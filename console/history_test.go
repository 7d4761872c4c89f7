package console

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/csv"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/journal"
)

// The archive of the history tests: the journal of archive/testdata/table, kept as the
// journal of two tables, t1 and t2 (42 rounds each). In round 1, t1's dealer D4 closes
// the bets and its supervisor S17 decides; at t2, D9 and S20.
var (
	historyOnce sync.Once
	historyFile string // a SQLite archive, made once for the package's tests
	historyErr  error
)

// historyArchive returns a copy of the history tests' archive, for the test's own use.
func historyArchive(t testing.TB) string {
	t.Helper()
	historyOnce.Do(func() { historyFile, historyErr = makeHistoryArchive() })
	if historyErr != nil {
		t.Fatal(historyErr)
	}
	b, err := os.ReadFile(historyFile)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "archive.db")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func makeHistoryArchive() (string, error) {
	dir := filepath.Join("..", "archive", "testdata", "table")
	pubText, err := os.ReadFile(filepath.Join(dir, "public.key"))
	if err != nil {
		return "", err
	}
	pub, err := journal.ParsePublicKey(string(pubText))
	if err != nil {
		return "", err
	}
	keyPEM, err := os.ReadFile(filepath.Join(dir, "test-only.key"))
	if err != nil {
		return "", err
	}
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		return "", errors.New("test-only.key: no PEM block")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return "", err
	}
	key := k.(ed25519.PrivateKey)
	j, _, err := journal.Open(filepath.Join(dir, "journal"), journal.Options{ReadOnly: true})
	if err != nil {
		return "", err
	}
	defer j.Close()
	var recs []archive.Record
	for r, err := range j.Records(1) {
		if err != nil {
			return "", err
		}
		recs = append(recs, archive.Record{Seq: r.Seq, Hash: r.Hash, Data: r.Data})
	}
	tmp, err := os.MkdirTemp("", "console-history-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(tmp, "archive.db")
	ctx := context.Background()
	db, err := archive.OpenDB(ctx, path)
	if err != nil {
		return "", err
	}
	defer db.Close()
	a := archive.New(db, archive.Keys{"t1": {pub}, "t2": {pub}}, archive.Options{})
	for id, names := range map[string]map[uint64]string{"t1": {6: "D4", 8: "S17"}, "t2": {6: "D9", 8: "S20"}} {
		recs := named(recs, names)
		last := recs[len(recs)-1]
		signed, err := journal.SignTable(key, id, last.Seq, last.Hash)
		if err != nil {
			return "", err
		}
		res, err := a.Ingest(ctx, id, archive.Batch{Records: recs, Signed: signed, Written: last.Seq})
		if err != nil {
			return "", err
		}
		if res.Stored != len(recs) || len(res.Alarms) != 0 {
			return "", fmt.Errorf("table %s: %+v", id, res)
		}
	}
	return path, db.Close()
}

// named returns the records with the person's name given to the events of records
// names lists (the journal's own have none), chained again as a table writes them.
func named(recs []archive.Record, names map[uint64]string) []archive.Record {
	out := make([]archive.Record, len(recs))
	var prev journal.Hash
	for i, r := range recs {
		data := r.Data
		if n, ok := names[r.Seq]; ok {
			data = []byte(strings.Replace(string(data), `"event":{`, `"event":{"actor":"`+n+`",`, 1))
		}
		out[i] = archive.Record{Seq: r.Seq, Hash: journal.ChainHash(prev, r.Seq, data), Data: data}
		prev = out[i].Hash
	}
	return out
}

// historyConsole is a test console reading the history archive, with S5, a supervisor
// of pit3, besides D4 and S17; t1 is in pit3 and t2 in pit4 (the central layout), and
// t9, of which the archive holds nothing, in a pit whose name has a comma and quotes.
func historyConsole(t *testing.T) *testConsole {
	t.Helper()
	r, err := archive.OpenReader(context.Background(), historyArchive(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	tc := newTestConsoleWith(t, nil, func(o *Options) { o.History = r })
	addUser(t, tc, User{Name: "S5", Role: "supervisor", Pits: []string{"pit3"}}, "supervisor-pass-5")
	for table, pit := range map[string]string{"t1": "pit3", "t2": "pit4", "t9": `pit "9", east`} {
		tc.srv.Ingest("casino/lv1/"+pit+"/tablectl/v1/"+table+"/status", []byte(`{"schema":1,"table":"`+table+`","state":"online"}`))
	}
	return tc
}

// addUser adds u to the console's users.
func addUser(t *testing.T, tc *testConsole, u User, password string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "users.json")
	var us usersFile
	us.Users = tc.srv.users.List()
	b, err := json.Marshal(us)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	addTestUser(t, path, u, password)
	nu, err := LoadUsers(path)
	if err != nil {
		t.Fatal(err)
	}
	tc.srv.SetUsers(nu)
}

// pageOf reads a history answer.
func pageOf(t *testing.T, body string) historyPage {
	t.Helper()
	var p historyPage
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return p
}

func tablesOf(p historyPage) map[string]int {
	out := map[string]int{}
	for _, r := range p.Rounds {
		out[r.Table]++
	}
	return out
}

// TestHistoryRolesAndTables: a supervisor reads every table's rounds; a supervisor of a
// pit reads only its tables, whatever is asked; a dealer reads none; a table or pit the
// person does not work is refused, server side.
func TestHistoryRolesAndTables(t *testing.T) {
	t.Parallel()
	tc := historyConsole(t)
	s17 := tc.login(t, "S17", "supervisor-pass-17")
	code, body := s17.get(t, "/api/history/rounds?limit=1000")
	if p := pageOf(t, body); code != 200 || fmt.Sprint(tablesOf(p)) != "map[t1:42 t2:42]" || p.Next != "" {
		t.Fatalf("S17: %d %v %q", code, tablesOf(p), p.Next)
	}
	if p := pageOf(t, body); p.Rounds[0].Pit != "pit3" || p.Rounds[1].Pit != "pit3" || p.Rounds[2].Table != "t2" || p.Rounds[2].Pit != "pit4" {
		t.Fatalf("S17's first rounds: %+v", p.Rounds[:3])
	}
	code, body = s17.get(t, "/api/history/rounds?person=S20")
	if p := pageOf(t, body); code != 200 || len(p.Rounds) != 1 || p.Rounds[0].Table != "t2" || p.Rounds[0].Round != 1 {
		t.Fatalf("S17, S20's rounds: %d %s", code, body)
	}
	code, body = s17.get(t, "/api/history/rounds?pit=pit4&kind=incorrect_cards")
	if p := pageOf(t, body); code != 200 || len(p.Rounds) != 1 || p.Rounds[0].Table != "t2" || p.Rounds[0].Round != 1 {
		t.Fatalf("S17, pit4's incorrect cards: %d %s", code, body)
	}

	s5 := tc.login(t, "S5", "supervisor-pass-5")
	for _, q := range []string{"", "?pit=pit3", "?table=t1", "?table=t1&pit=pit3"} {
		code, body := s5.get(t, "/api/history/rounds?limit=1000"+strings.Replace(q, "?", "&", 1))
		if p := pageOf(t, body); code != 200 || fmt.Sprint(tablesOf(p)) != "map[t1:42]" {
			t.Fatalf("S5 %q: %d %v", q, code, tablesOf(p))
		}
	}
	for _, q := range []string{"table=t2", "table=t1,t2", "pit=pit4", "table=t7"} {
		code, body := s5.get(t, "/api/history/rounds?"+q)
		if code != 403 || !strings.Contains(body, "S5 does not work") {
			t.Fatalf("S5 %s: %d %s", q, code, body)
		}
	}
	if code, body := s5.get(t, "/api/history/rounds/t2/12"); code != 403 || !strings.Contains(body, "S5 does not work table t2") {
		t.Fatalf("S5, t2's round: %d %s", code, body)
	}
	if code, body := s5.get(t, "/api/history/rounds.csv?table=t2"); code != 403 {
		t.Fatalf("S5, t2's CSV: %d %s", code, body)
	}
	if code, _ := s5.get(t, "/api/history/rounds/t1/12"); code != 200 {
		t.Fatalf("S5, t1's round: %d", code)
	}

	d4 := tc.login(t, "D4", "dealer-password-4")
	for _, path := range []string{"/api/history/rounds", "/api/history/rounds?table=t1", "/api/history/rounds.csv", "/api/history/rounds/t1/12"} {
		if code, body := d4.get(t, path); code != 403 || !strings.Contains(body, "a dealer may not read the history") {
			t.Fatalf("D4 %s: %d %s", path, code, body)
		}
	}
	if _, body := d4.get(t, "/api/session"); !strings.Contains(body, `"history":"role"`) {
		t.Fatalf("D4's session: %s", body)
	}
	if _, body := s17.get(t, "/api/session"); !strings.Contains(body, `"history":"open"`) {
		t.Fatalf("S17's session: %s", body)
	}
	if code, _, _ := tc.do(t, "GET", "/api/history/rounds", "", nil, nil); code != 401 {
		t.Fatalf("without a session: %d", code)
	}
	if !strings.Contains(tc.log.String(), "audit=history user=S17") {
		t.Fatalf("the searches are not audited:\n%s", tc.log.String())
	}
}

// TestHistoryBadParameters: each bad parameter is a 400 naming it.
func TestHistoryBadParameters(t *testing.T) {
	t.Parallel()
	tc := historyConsole(t)
	a := tc.login(t, "S17", "supervisor-pass-17")
	for _, c := range []struct{ query, want string }{
		{"from=yesterday", `parameter from: "yesterday" is not a time`},
		{"to=2026-11-27", `parameter to: "2026-11-27" is not a time`},
		{"from=2026-11-27T04:00:00Z&to=2026-11-27T03:00:00Z", "parameter to: not after from"},
		{"kind=bogus", `parameter kind: "bogus" is not an irregularity's kind`},
		{"decision=maybe", `parameter decision: "maybe" is not a decision`},
		{"person=" + url.QueryEscape("S 17"), `parameter person: "S 17" is not a person's name`},
		{"limit=0", `parameter limit: "0": want a number of rounds from 1 to 1000`},
		{"limit=1001", `parameter limit: "1001"`},
		{"limit=ten", `parameter limit: "ten"`},
		{"after=zz", "parameter after: not the cursor of a page"},
		{"table=" + url.QueryEscape("t/1"), `parameter table: "t/1" is not a table id`},
		{"pit=" + url.QueryEscape("p#"), `parameter pit: "p#" is not a pit name`},
		{"shoe=3", "parameter shoe: unknown parameter"},
		{"kind=wrong_hand&kind=foreign_card", "parameter kind: given more than once"},
	} {
		code, body := a.get(t, "/api/history/rounds?"+c.query)
		var e struct{ Error string }
		json.Unmarshal([]byte(body), &e)
		if code != 400 || !strings.Contains(e.Error, c.want) {
			t.Errorf("%s: %d %s, want 400 %q", c.query, code, body, c.want)
		}
	}
	if code, body := a.get(t, "/api/history/rounds.csv?limit=5"); code != 400 || !strings.Contains(body, "parameter limit: unknown parameter") {
		t.Errorf("CSV with a limit: %d %s", code, body)
	}
	for _, path := range []string{"/api/history/rounds/t1/x", "/api/history/rounds/t1/0"} {
		if code, body := a.get(t, path); code != 400 || !strings.Contains(body, "want the number of the record that ended the round") {
			t.Errorf("%s: %d %s", path, code, body)
		}
	}
	if code, body := a.get(t, "/api/history/rounds/t1/13"); code != 404 || !strings.Contains(body, "no round of table t1 ended at record 13") {
		t.Errorf("record 13: %d %s", code, body)
	}
}

// TestHistoryPagesAndRound: a page at a time, the next page's cursor going on where the
// page ended; a round opens with its cards, settlements, irregularity and commands.
func TestHistoryPagesAndRound(t *testing.T) {
	t.Parallel()
	tc := historyConsole(t)
	a := tc.login(t, "S17", "supervisor-pass-17")
	_, body := a.get(t, "/api/history/rounds?limit=1000&table=t1,t2")
	all := pageOf(t, body).Rounds
	var got []historyRound
	q := "/api/history/rounds?limit=7&table=t1,t2"
	for path := q; ; {
		code, body := a.get(t, path)
		if code != 200 {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		p := pageOf(t, body)
		got = append(got, p.Rounds...)
		if p.Next == "" {
			break
		}
		path = q + "&after=" + url.QueryEscape(p.Next)
	}
	if len(all) != 84 || fmt.Sprint(got) != fmt.Sprint(all) {
		t.Fatalf("pages of 7: %d rounds, want the %d of one page", len(got), len(all))
	}
	code, body := a.get(t, "/api/history/rounds/t2/12")
	var d historyDetail
	if err := json.Unmarshal([]byte(body), &d); code != 200 || err != nil {
		t.Fatalf("t2's round 1: %d %s", code, body)
	}
	if d.Table != "t2" || d.Pit != "pit4" || d.Player != "4S 5S" || d.Banker != "3S 6S" || d.Winner != "tie" || len(d.Settlements) != 1 ||
		d.Settlements[0].Returned != 100 || len(d.Irregularities) != 1 || d.Irregularities[0].Decision != "continue" ||
		d.Irregularities[0].DecidedRole != "supervisor" || d.Irregularities[0].DecidedBy != "S20" || len(d.Commands) != 3 ||
		d.Commands[0].Actor != "D9" || d.Commands[1].Kind != "decide" || d.Commands[1].Actor != "S20" {
		t.Fatalf("t2's round 1: %s", body)
	}
}

// TestHistoryCSV: the CSV export is the search's every round, as RFC 4180 CSV with a
// header, a field with a comma or quote quoted, sent as an attachment.
func TestHistoryCSV(t *testing.T) {
	t.Parallel()
	tc := historyConsole(t)
	a := tc.login(t, "S17", "supervisor-pass-17")
	code, body, resp := tc.do(t, "GET", "/api/history/rounds.csv?table=t1&from="+url.QueryEscape("2026-11-27T03:40:54.4921Z"), "", nil, a.cookie)
	if code != 200 {
		t.Fatalf("CSV: %d %s", code, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename="tablectl-history-20261123T080000Z.csv"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("%v:\n%s", err, body)
	}
	if strings.Join(rows[0], ",") != strings.Join(csvHeader, ",") || rows[0][0] != "table" {
		t.Fatalf("header %v", rows[0])
	}
	// Rounds 1 and 2 ended before the time given; the CSV holds the other 40, in order.
	if len(rows) != 1+40 || rows[1][0] != "t1" || rows[1][1] != "pit3" || rows[1][3] != "3" || rows[40][3] != "42" {
		t.Fatalf("%d rows; first %v; last %v", len(rows), rows[1], rows[len(rows)-1])
	}
	if rows[1][6] != "JS 8H" || rows[1][10] != "banker" || rows[1][13] != "bad_shuffle" {
		t.Fatalf("round 3: %v", rows[1])
	}
	// A pit whose name holds a comma and quotes: t1 moved to it.
	tc.srv.Ingest(`casino/lv1/pit "9", east/tablectl/v1/t1/status`, []byte(`{"schema":1,"table":"t1","state":"online"}`))
	_, body = a.get(t, "/api/history/rounds.csv?table=t1&kind=incorrect_cards")
	if want := "t1,\"pit \"\"9\"\", east\",1,1,"; !strings.Contains(body, "\n"+want) {
		t.Fatalf("CSV of a pit with a comma and quotes:\n%s\nwant a line starting %s", body, want)
	}
	rows, err = csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) != 2 || rows[1][1] != `pit "9", east` {
		t.Fatalf("%v %v", rows, err)
	}
	// A search the person's tables leave empty is a CSV of the header alone.
	_, body = a.get(t, "/api/history/rounds.csv?pit=pit8")
	if strings.TrimSpace(body) != strings.Join(csvHeader, ",") {
		t.Fatalf("pit8, no table: %q", body)
	}
}

// TestNoArchive: without an archive, the session says so, and every history request is
// a 404 saying the console has none.
func TestNoArchive(t *testing.T) {
	t.Parallel()
	tc := newTestConsole(t)
	a := tc.login(t, "S17", "supervisor-pass-17")
	if _, body := a.get(t, "/api/session"); !strings.Contains(body, `"history":"none"`) {
		t.Fatalf("session: %s", body)
	}
	for _, path := range []string{"/api/history/rounds", "/api/history/rounds.csv", "/api/history/rounds/t1/12"} {
		if code, body := a.get(t, path); code != 404 || !strings.Contains(body, "the console has no archive (console.archive)") {
			t.Fatalf("%s: %d %s", path, code, body)
		}
	}
}

// countingHistory is a History that counts the searches that reach it.
type countingHistory struct {
	History
	searches atomic.Int32
}

func (h *countingHistory) SearchRounds(ctx context.Context, s history.Search) (history.Page, error) {
	h.searches.Add(1)
	return h.History.SearchRounds(ctx, s)
}

// TestHistoryListsAreCapped: a search names at most maxHistoryTables tables and
// maxHistoryPits pits, by comma or given again, a repeat not counted; one more is a 400
// naming the cap, for the page and the CSV alike, and reaches neither the floor's checks
// nor the archive. At the caps the search runs.
func TestHistoryListsAreCapped(t *testing.T) {
	t.Parallel()
	tc := historyConsole(t)
	counted := &countingHistory{History: tc.srv.opts.History}
	tc.srv.opts.History = counted
	a := tc.login(t, "S17", "supervisor-pass-17")
	ids := func(n int) []string {
		out := []string{"t1", "t2"}
		for i := len(out); i < n; i++ {
			out = append(out, fmt.Sprintf("x%04d", i))
		}
		return out
	}
	if maxHistoryTables != 512 || maxHistoryPits != 64 {
		t.Fatalf("caps %d tables, %d pits", maxHistoryTables, maxHistoryPits)
	}
	// At the cap: every round of t1 and t2 is found among the 512 tables asked.
	atCap := ids(maxHistoryTables)
	code, body := a.get(t, "/api/history/rounds?limit=1000&table="+url.QueryEscape(strings.Join(atCap[:300], ","))+
		"&table="+url.QueryEscape(strings.Join(atCap[300:], ","))+"&table=t1,t2")
	var page historyPage
	if err := json.Unmarshal([]byte(body), &page); code != 200 || err != nil || len(page.Rounds) != 84 {
		t.Fatalf("at the cap: %d, %d rounds, %v: %.300s", code, len(page.Rounds), err, body)
	}
	if n := counted.searches.Load(); n != 1 {
		t.Fatalf("%d searches at the cap", n)
	}
	if code, body := a.get(t, "/api/history/rounds?pit="+url.QueryEscape(strings.Join(ids(maxHistoryPits), ","))); code != 200 {
		t.Fatalf("pits at the cap: %d %s", code, body)
	}
	counted.searches.Store(0)
	for _, c := range []struct{ query, want string }{
		{"table=" + url.QueryEscape(strings.Join(ids(maxHistoryTables+1), ",")), "parameter table: more than 512 tables: a search takes at most 512"},
		{"table=" + url.QueryEscape(strings.Join(atCap, ",")) + "&table=y0001", "parameter table: more than 512 tables"},
		{"table=" + url.QueryEscape(strings.Join(ids(46_000), ",")), "parameter table: more than 512 tables"},
		{"pit=" + url.QueryEscape(strings.Join(ids(maxHistoryPits+1), ",")), "parameter pit: more than 64 pits: a search takes at most 64"},
	} {
		for _, path := range []string{"/api/history/rounds?", "/api/history/rounds.csv?"} {
			code, body := a.get(t, path+c.query)
			var e struct{ Error string }
			json.Unmarshal([]byte(body), &e)
			if code != 400 || !strings.Contains(e.Error, c.want) {
				t.Errorf("%s%.80s...: %d %.200s, want 400 %q", path, c.query, code, body, c.want)
			}
		}
	}
	if n := counted.searches.Load(); n != 0 {
		t.Errorf("%d searches over the cap reached the archive", n)
	}
}
