package console

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/daemon"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// liveTable is a real table (daemon.Daemon) behind the console: what it publishes is
// ingested by the console, and what the console publishes on a command topic reaches it
// as that role's command, as through a broker.
type liveTable struct {
	d        *daemon.Daemon
	rec      *display.Recorder
	shoe     chan device.Event
	shuffler chan device.Event
	seq      uint16
	dir      string
	stop     func()
}

// journal reads the table's journal, once it has stopped.
func (l *liveTable) journal(t *testing.T) iter.Seq2[journal.Record, error] {
	t.Helper()
	j, _, err := journal.Open(l.dir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j.Records(1)
}

// Publish implements Publisher: the command reaches the table on its role's topic.
func (l *liveTable) Publish(_ context.Context, topic string, payload []byte) error {
	role, err := l.rec.Topics().RoleOf(topic)
	if err != nil {
		return err
	}
	return l.rec.Inject(role, payload)
}

// startLiveTable opens table t1 (NC Insurance, no burn, the dealer confirming and
// closing Insurance, no serial shuffler) on a new journal, and forwards everything it publishes, replies
// included, to the console tc until the test ends.
func startLiveTable(t *testing.T) (*liveTable, *testConsole) {
	t.Helper()
	rc := round.DefaultConfig(baccarat.MustLookup("nc-insurance", baccarat.Options{}))
	rc.Burn = round.BurnNone
	rc.SimultaneousWindow = 0
	dir := t.TempDir()
	d, err := daemon.Open(daemon.Config{Table: "t1", Round: rc, JournalDir: dir,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := display.NewRecorder("t1", 0, d.OnConnect)
	if err != nil {
		t.Fatal(err)
	}
	l := &liveTable{d: d, rec: rec, dir: dir, shoe: make(chan device.Event, 64), shuffler: make(chan device.Event, 8)}
	tc := newTestConsoleWith(t, l, nil)
	rec.Reconnect()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	served := make(chan error, 1)
	go func() { defer wg.Done(); served <- d.Serve(ctx, rec, l.shoe, l.shuffler) }()
	go func() {
		defer wg.Done()
		var pubs, replies int
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, m := range rec.Published()[pubs:] {
				tc.srv.Ingest(m.Topic, m.Payload)
				pubs++
			}
			for _, m := range rec.Replies()[replies:] {
				tc.srv.Ingest(m.Topic, m.Payload)
				replies++
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	l.stop = func() {
		once.Do(func() {
			cancel()
			wg.Wait()
			if err := <-served; err != nil {
				t.Error(err)
			}
			rec.Close()
			if err := d.Close(); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(l.stop)
	return l, tc
}

// cards draws the cards from the shoe and waits until the table has taken them.
func (l *liveTable) cards(t *testing.T, s string) {
	t.Helper()
	cs, err := baccarat.ParseCards(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		l.seq++
		l.shoe <- device.Event{Kind: device.CardDrawn, Card: c, Seq: l.seq, HasSeq: true,
			Time: time.Date(2026, 11, 23, 8, 0, int(l.seq), 0, time.UTC)}
	}
	l.idle(t)
}

func (l *liveTable) idle(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := l.d.Idle(ctx); err != nil {
		t.Fatal(err)
	}
}

// floorShows reads the floor's event stream, as a sees it, until table t1's summary is
// as ok wants: in the first event, of every table, or in a later one of t1 changed.
// The half minute bounds a failure only.
func floorShows(t *testing.T, a *agent, what string, ok func(Summary) bool) {
	t.Helper()
	s := openStream(t, a, "/api/events")
	defer func() {
		s.cancel()
		for range s.events { // until the stream's reader has stopped
		}
	}()
	giveUp := time.After(30 * time.Second)
	var last []string
	for {
		select {
		case ev, open := <-s.events:
			if !open {
				t.Fatalf("the floor's stream ended before it showed %s", what)
			}
			var sums []Summary
			switch ev[0] {
			case "tables":
				if err := json.Unmarshal([]byte(ev[1]), &sums); err != nil {
					t.Fatalf("tables event %s: %v", ev[1], err)
				}
			case "table":
				var one Summary
				if err := json.Unmarshal([]byte(ev[1]), &one); err != nil {
					t.Fatalf("table event %s: %v", ev[1], err)
				}
				sums = []Summary{one}
			}
			for _, sum := range sums {
				if sum.Table == "t1" {
					if ok(sum) {
						return
					}
					last = append(last, ev[1])
				}
			}
		case <-giveUp:
			t.Fatalf("the floor never showed %s; it showed t1 as %v", what, last)
		}
	}
}

// TestEveryCommandThroughTheConsole: every command of the table (api.Commands), with
// the fields it takes, goes from the console's API to a real table, and the table acts
// on it: box_option with its box, option and bet (RWS Baccarat 5.12 through NC
// Insurance 5.12, and the pit manager's NC Insurance 5.13 record), and a foreign card's
// report with the card found. Each reply is the table's, and says what it did.
func TestEveryCommandThroughTheConsole(t *testing.T) {
	t.Parallel()
	l, tc := startLiveTable(t)
	l.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	l.idle(t)
	people := map[string]*agent{
		"dealer":      tc.login(t, "D4", "dealer-password-4"),
		"supervisor":  tc.login(t, "S17", "supervisor-pass-17"),
		"pit_manager": tc.login(t, "M1", "pit-manager-pass-1"),
	}
	floorShows(t, people["supervisor"], "table t1", func(Summary) bool { return true })
	sent := map[string]bool{}
	give := func(role, body string, want ...string) {
		t.Helper()
		code, resp := people[role].post(t, "/api/tables/t1/commands", body)
		var r api.Reply
		if err := json.Unmarshal([]byte(resp), &r); err != nil || code != 200 {
			t.Fatalf("%s %s: %d %s", role, body, code, resp)
		}
		effects := strings.Join(r.Effects, "\n")
		if !r.OK || r.Role != role {
			t.Fatalf("%s %s: the table answered %+v", role, body, r)
		}
		for _, w := range want {
			if !strings.Contains(effects, w) {
				t.Errorf("%s %s: the table did %q, want %q in it", role, body, effects, w)
			}
		}
		var c api.Command
		json.Unmarshal([]byte(body), &c)
		sent[c.Cmd] = true
		l.idle(t)
	}

	// Round 1: a card exposed gives the players their options (NC Insurance 5.12, as RWS
	// Baccarat 5.12); box 1 has its bets returned; the supervisor closes the window.
	give("dealer", `{"cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":100},{"box":"2","bet":"player","stake":100}]}`, "betting-closed")
	give("dealer", `{"cmd":"report","kind":"exposed_card","detail":"P1 face up"}`, "options-opened")
	give("dealer", `{"cmd":"box_option","box":"1","option":"bet-returned"}`, "option-recorded box=1 bet-returned by dealer D4")
	give("supervisor", `{"cmd":"options_closed"}`, "options-closed", "box 2 continue (chose nothing)")
	l.cards(t, "9H 5C KS KD")
	give("dealer", `{"cmd":"confirm"}`, "round-settled round=1", "1:banker:100 push returned=100 bet-returned")

	// Round 2: Banker Insurance offered after four cards; box 1 takes it; the next card
	// is drawn over the open offer, and the pit manager records box 2's intended Banker
	// Insurance (NC Insurance 5.13).
	give("dealer", `{"cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":100},{"box":"2","bet":"banker","stake":100}]}`, "betting-closed")
	l.cards(t, "2H 5D KD KS")
	give("dealer", `{"cmd":"insurance_bet","wager":{"box":"1","bet":"banker_insurance","stake":50}}`, "insurance-taken 1:banker_insurance:50")
	l.cards(t, "4C")
	give("dealer", `{"cmd":"insurance_closed"}`, "insurance-closed player_insurance")
	l.cards(t, "KH")
	give("pit_manager", `{"cmd":"box_option","box":"2","option":"insurance-intended","bet":"banker_insurance"}`,
		"option-recorded box=2 insurance-intended banker_insurance by pit_manager M1")
	give("dealer", `{"cmd":"confirm"}`, "round-settled round=2", "2:banker:100 push returned=100 insurance-intended",
		"1:banker_insurance:50 win 2:1 returned=150")

	// Round 3: the Banker's third card squeezed; a wrong hand reported, and the
	// supervisor finds the cards put back in their places.
	give("dealer", `{"cmd":"bets_closed"}`, "betting-closed")
	l.cards(t, "2C 5H QD QS")
	give("dealer", `{"cmd":"squeeze"}`, "squeeze")
	l.cards(t, "4D")
	give("dealer", `{"cmd":"report","kind":"wrong_hand"}`, "irregularity-raised")
	held := l.d.State().Held.ID
	give("supervisor", `{"cmd":"decide","irregularity":`+jsonNumber(held)+`,"choice":"reconstructed"}`, "irregularity-resolved", "reconstructed by supervisor S17")
	l.cards(t, "KC")
	give("dealer", `{"cmd":"confirm"}`, "round-settled round=3")

	// Round 4: a foreign card found, named; the cut card; the shoe's end and the next.
	give("dealer", `{"cmd":"bets_closed"}`, "betting-closed")
	l.cards(t, "3S")
	give("dealer", `{"cmd":"report","kind":"foreign_card","card":"QH"}`, "irregularity-raised", "foreign_card")
	if h := l.d.State().Held.ID; h != 0 {
		give("supervisor", `{"cmd":"decide","irregularity":`+jsonNumber(h)+`,"choice":"continue"}`)
	}
	give("dealer", `{"cmd":"cut_card"}`, "cut")

	// The dealer calls a Pit Supervisor from the console, as the panel's button does; the
	// floor shows the call until the dealer ends it.
	calling := func(want string) {
		t.Helper()
		floorShows(t, people["supervisor"], "the call "+strconv.Quote(want), func(s Summary) bool { return s.Call == want })
	}
	give("dealer", `{"cmd":"call_supervisor"}`, "supervisor-call on")
	calling("supervisor")
	give("dealer", `{"cmd":"cancel_call"}`, "supervisor-call off")
	calling("")
	give("dealer", `{"cmd":"end_shoe"}`, "shoe-ended")
	give("dealer", `{"cmd":"new_shoe","set":"S7","decks":8}`, "shoe-started shoe=2")

	// The dealer takes the table in their own name; a supervisor records a dealer
	// without a login, who relieves them, and takes that dealer off; the floor shows who
	// is on.
	dealing := func(want string) {
		t.Helper()
		floorShows(t, people["supervisor"], "the dealer "+strconv.Quote(want), func(s Summary) bool { return s.Dealer == want })
	}
	give("dealer", `{"cmd":"dealer_on"}`, `dealer-started "D4" by dealer D4`)
	dealing("D4")
	give("supervisor", `{"cmd":"dealer_on","dealer":"Mei Ling Tan"}`, `dealer-left "D4" by supervisor S17: relieved by "Mei Ling Tan"`,
		`dealer-started "Mei Ling Tan" by supervisor S17`)
	dealing("Mei Ling Tan")
	give("supervisor", `{"cmd":"dealer_off"}`, `dealer-left "Mei Ling Tan" by supervisor S17`)
	dealing("")
	give("dealer", `{"cmd":"dealer_on","dealer":"D4"}`, `dealer-started "D4"`) // their own name, given
	give("dealer", `{"cmd":"dealer_off"}`, `dealer-left "D4" by dealer D4`)

	// The table journalled each command as given, the foreign card's card among them.
	l.stop()
	var found bool
	for rec, err := range l.journal(t) {
		if err != nil {
			t.Fatal(err)
		}
		e, err := table.DecodeEntry(rec.Seq, rec.Data)
		if err != nil {
			t.Fatal(err)
		}
		if ev := e.Event; ev != nil && ev.Kind == round.Report && ev.Irregularity == irregularities.ForeignCard {
			found = ev.Card.String() == "QH" && ev.Actor == "D4"
		}
	}
	if !found {
		t.Error("the foreign card's report was not journalled with its card QH and its actor")
	}

	for _, c := range api.Commands {
		if !sent[c.Name] {
			t.Errorf("command %s was not given through the console", c.Name)
		}
	}
}

func jsonNumber(n uint32) string {
	b, _ := json.Marshal(n)
	return string(b)
}
