package floorcmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/pit"
	"github.com/tablectl/tablectl/pitreport"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// e2eDealers are the simulated dealers' flags of the end-to-end run: three dealers, a
// rotation every 10 rounds, a break with no dealer on at each, a shuffler that reports
// late, and a shoe that fails to read a card every 37 (the table held 100 ms for each).
var e2eDealers = []string{"--dealers", "D-ANA,D-BEN,D-CY", "--rotate", "10", "--dealer-break", "300ms", "--shuffle-delay", "250ms",
	"--misread-every", "37", "--misread-hold", "100ms"}

// fromJournal are the pit's figures of one table as its own journal and its own report
// give them, computed here without the archive: each dealt round's first card and its
// dealer (the last dealer-on before it), the stints from the dealer-on and dealer-off
// events, and the time with no dealer on between a dealer-off and the next dealer-on.
type fromJournal struct {
	firsts   []time.Time
	dealers  []string
	stints   []pit.Stint
	noDealer time.Duration
	// delays are the shuffler's: from a shoe's end to the next set's report.
	delays []time.Duration
	// unreadable counts the cards the shoe could not name.
	unreadable int
}

// figuresFromJournal reads records (table id's journal) and its shoe report as JSON
// lines (report, 'tablectl report DIR --format json').
func figuresFromJournal(t *testing.T, id string, records []journal.Record, report string) fromJournal {
	t.Helper()
	events := map[uint64]*round.Event{}
	var f fromJournal
	dealerAt := map[uint64]string{} // the dealer on after each record
	on, offAt := "", time.Time{}
	for _, r := range records {
		e, err := table.DecodeEntry(r.Seq, r.Data)
		if err != nil {
			t.Fatal(err)
		}
		if ev := e.Event; ev != nil {
			events[r.Seq] = ev
			switch ev.Kind {
			case round.CardDrawn:
				if !ev.Card.Valid() {
					f.unreadable++
				}
			case round.DealerOn:
				name := ev.Dealer
				if name == "" {
					name = ev.Actor
				}
				if name != on {
					if on != "" {
						f.stints[len(f.stints)-1].To = ev.At
					} else if !offAt.IsZero() {
						f.noDealer += ev.At.Sub(offAt)
					}
					on = name
					f.stints = append(f.stints, pit.Stint{Table: id, Dealer: name, From: ev.At})
				}
			case round.DealerOff:
				if on != "" {
					f.stints[len(f.stints)-1].To = ev.At
					on, offAt = "", ev.At
				}
			}
		}
		dealerAt[r.Seq] = on
	}
	sc := bufio.NewScanner(strings.NewReader(report))
	sc.Buffer(nil, 1<<20)
	var lastEnded *time.Time
	for sc.Scan() {
		var l struct {
			Type           string   `json:"type"`
			Player         []string `json:"player"`
			FirstRecord    uint64   `json:"first_record"`
			LastRecord     uint64   `json:"last_record"`
			Started, Ended *time.Time
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.Type == "shoe" {
			// The shuffler's delay: from a shoe's end to the next one's start, as the
			// report gives them.
			if lastEnded != nil && l.Started != nil {
				f.delays = append(f.delays, max(l.Started.Sub(*lastEnded), 0))
			}
			lastEnded = l.Ended
			continue
		}
		if l.Type != "round" || len(l.Player) == 0 {
			continue // not a round, or one void before its first card
		}
		for seq := l.FirstRecord; seq <= l.LastRecord; seq++ {
			if ev := events[seq]; ev != nil && ev.Kind == round.CardDrawn {
				f.firsts, f.dealers = append(f.firsts, ev.At), append(f.dealers, dealerAt[seq])
				break
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return f
}

// checkPitFigures holds the archive's pace and rotation (tablectl-floor pace and
// rotation, as JSON) to the figures each table's own journal gives.
func checkPitFigures(t *testing.T, dsn string, tables []string, records map[string][]journal.Record, reports map[string]string) {
	t.Helper()
	from, to := time.Now().Add(-2*time.Hour), time.Now().Add(time.Hour)
	span := []string{"--db", dsn, "--from", from.UTC().Format(time.RFC3339), "--to", to.UTC().Format(time.RFC3339), "--tz", "UTC"}
	byDealer := map[string]int{}
	var stints []pit.Stint
	for _, id := range tables {
		want := figuresFromJournal(t, id, records[id], reports[id])
		if len(want.stints) < 3 || want.noDealer < 600*time.Millisecond {
			t.Fatalf("table %s: %d stints, %v with no dealer on: the run rotated too little to prove much", id, len(want.stints), want.noDealer)
		}
		hours := map[time.Time]int{}
		for i, at := range want.firsts {
			hours[at.UTC().Truncate(time.Hour)]++
			byDealer[want.dealers[i]]++
		}
		out, errs, err := runCmd(t, "", append([]string{"pace", "--table", id, "--by", "hour", "--format", "json"}, span...)...)
		if err != nil {
			t.Fatalf("pace --table %s: %v\n%s", id, err, errs)
		}
		var lines []pitreport.PaceLine
		if err := json.Unmarshal([]byte(out), &lines); err != nil {
			t.Fatalf("pace --table %s: %v\n%s", id, err, out)
		}
		got, still := map[time.Time]int{}, time.Duration(0)
		for _, l := range lines {
			if l.Key != id {
				t.Fatalf("pace --table %s gives %q", id, l.Key)
			}
			if l.Rounds > 0 {
				got[l.From.UTC()] = l.Rounds
			}
			still += time.Duration(l.StillByMS[pit.StillNoDealer]) * time.Millisecond
		}
		if fmt.Sprint(got) != fmt.Sprint(hours) {
			t.Errorf("table %s: rounds by hour from the archive %v, from the journal %v", id, got, hours)
		}
		// The archive stores times to the microsecond on SQLite, the figures in ms.
		if d := still - want.noDealer; d < -time.Millisecond*time.Duration(len(want.stints)) || d > time.Millisecond*time.Duration(len(want.stints)) {
			t.Errorf("table %s: %v with no dealer on from the archive, %v from the journal", id, still, want.noDealer)
		}
		stints = append(stints, want.stints...)

		// The shuffler's delays: as many as the journal's, the longest the same (the
		// archive keeps milliseconds), each at least the simulated shuffler's 250 ms.
		out, errs, err = runCmd(t, "", append([]string{"devices", "--table", id, "--by", "day", "--format", "json"}, span...)...)
		if err != nil {
			t.Fatalf("devices --table %s: %v\n%s", id, err, errs)
		}
		var devs []pitreport.DeviceLine
		if err := json.Unmarshal([]byte(out), &devs); err != nil {
			t.Fatal(err)
		}
		n, longest, unreadable := 0, time.Duration(0), 0
		for _, d := range devs {
			switch d.Device {
			case "shuffler":
				n += d.Delays
				longest = max(longest, time.Duration(d.DelayMaxMS)*time.Millisecond)
			case "shoe":
				unreadable += d.Counts[pit.DeviceUnreadable]
			}
		}
		if unreadable != want.unreadable || unreadable == 0 {
			t.Errorf("table %s: %d unreadable cards from the archive, %d from the journal", id, unreadable, want.unreadable)
		}
		wantLongest := time.Duration(0)
		for _, d := range want.delays {
			wantLongest = max(wantLongest, d)
		}
		if n != len(want.delays) || n == 0 || (longest-wantLongest).Abs() > time.Millisecond || longest < 250*time.Millisecond {
			t.Errorf("table %s: %d shuffler delays, longest %v, from the archive; %d, longest %v, from the journal", id, n, longest, len(want.delays), wantLongest)
		}
	}
	out, errs, err := runCmd(t, "", append([]string{"pace", "--per", "dealer", "--by", "day", "--format", "json"}, span...)...)
	if err != nil {
		t.Fatalf("pace --per dealer: %v\n%s", err, errs)
	}
	var lines []pitreport.PaceLine
	if err := json.Unmarshal([]byte(out), &lines); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, l := range lines {
		got[l.Key] += l.Rounds
	}
	if fmt.Sprint(got) != fmt.Sprint(byDealer) {
		t.Errorf("rounds by dealer from the archive %v, from the journals %v", got, byDealer)
	}
	if len(slices.Collect(maps.Keys(byDealer))) != 3 {
		t.Errorf("the rounds went to %v: want the three dealers", byDealer)
	}

	out, errs, err = runCmd(t, "", append([]string{"rotation", "--format", "json"}, span...)...)
	if err != nil {
		t.Fatalf("rotation: %v\n%s", err, errs)
	}
	var rot []pit.Stint
	if err := json.Unmarshal([]byte(out), &rot); err != nil {
		t.Fatal(err)
	}
	key := func(s pit.Stint) string {
		return fmt.Sprintf("%s %s %s %s", s.Table, s.Dealer, s.From.UTC().Format(time.StampMicro), s.To.UTC().Format(time.StampMicro))
	}
	var a, b []string
	for _, s := range rot {
		a = append(a, key(s))
	}
	for _, s := range stints {
		b = append(b, key(s))
	}
	slices.Sort(a)
	slices.Sort(b)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("rotation from the archive:\n%s\nfrom the journals:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	// The page for A4 and the CSV say the same, in their forms.
	page, _, err := runCmd(t, "", append([]string{"rotation", "--format", "html"}, span...)...)
	if err != nil || !strings.Contains(page, "<h2>Rotation</h2>") || !strings.Contains(page, "D-BEN") {
		t.Errorf("rotation --format html: %v\n%s", err, page)
	}
	csv, _, err := runCmd(t, "", append([]string{"pace", "--by", "shift"}, span...)...)
	if err != nil || !strings.HasPrefix(csv, "table,from,to,rounds,void,per hour,per dealing hour,stand-still,no dealer,") {
		t.Errorf("pace as CSV: %v\n%s", err, csv)
	}
}
