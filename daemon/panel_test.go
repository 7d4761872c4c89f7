package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// TestPanel drives a table from its buttons and sensors and reads its tower light: green
// while betting is open, amber while cards are drawn and the round awaits confirmation,
// red (and three beeps) while it is held for a decision; the confirm button confirms the
// round; the double-card sensor is a simultaneous draw (RWS Baccarat 5.10); the
// call_supervisor button stands in the status message until a decision is taken.
func TestPanel(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.TempDir())
	cfg.AutoConfirm = false
	p := NewFakePanel()
	r := startWith(t, cfg, func(d *Daemon) { d.SetPanel(p) })
	lamps := func(want string) {
		t.Helper()
		r.idle(t)
		lit := p.Lit()
		var on []string
		for _, role := range []gpio.Role{gpio.LightRed, gpio.LightAmber, gpio.LightGreen} {
			if lit[role] {
				on = append(on, role.String())
			}
		}
		if got := strings.Join(on, ","); got != want {
			t.Fatalf("lamps lit: %q, want %q", got, want)
		}
	}
	press := func(role gpio.Role, kind gpio.Kind) {
		p.In <- gpio.Event{Role: role, Kind: kind, At: time.Now()}
		r.settle(t)
	}
	lamps("") // no shoe: all dark
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.settle(t)
	lamps("light_green")
	r.f.cards(t, "9H 5C KS KD") // Player natural 9: complete, awaiting confirmation
	r.settle(t)
	lamps("light_amber")
	press(gpio.Confirm, gpio.Released) // a release confirms nothing
	lamps("light_amber")
	press(gpio.Confirm, gpio.Pressed)
	lamps("light_green")
	results := 0
	for _, m := range eventMessages(t, r.rec) {
		if m.Winner != "" {
			results++
		}
	}
	if results != 1 {
		t.Fatalf("%d results after the confirm button, want 1", results)
	}

	r.f.cards(t, "2H")
	r.settle(t)
	press(gpio.DoubleCard, gpio.On)
	lamps("light_red")
	beeped := false
	for _, c := range p.Commands() {
		beeped = beeped || c == beeps
	}
	if !beeped {
		t.Errorf("no beeps on the irregularity: %v", p.Commands())
	}
	if got := irregularityEvents(t, r.rec); got != "raised simultaneous_draw" {
		t.Errorf("irregularities: %v", got)
	}

	call := func() string {
		t.Helper()
		var st api.Status
		for _, m := range r.rec.Published() {
			if strings.HasSuffix(m.Topic, "/status") {
				st = api.Status{}
				if err := json.Unmarshal(m.Payload, &st); err != nil {
					t.Fatal(err)
				}
			}
		}
		return st.Call
	}
	press(gpio.CallSupervisor, gpio.Pressed)
	if got := call(); got != "supervisor" {
		t.Errorf("status call %q after the button, want supervisor", got)
	}
	if err := r.rec.Inject("supervisor", []byte(`{"cmd":"decide","irregularity":1,"choice":"as-read","actor":"S17"}`)); err != nil {
		t.Fatal(err)
	}
	r.settle(t)
	if got := call(); got != "" {
		t.Errorf("status call %q after the decision, want none", got)
	}
	lamps("light_amber")
	r.close(t)
}

// TestMessageNumbersGoOnAfterSnapshot: a shoe ended writes a snapshot, and a table
// started again from it numbers its messages on from where they were, as a subscriber
// dropping duplicates by number needs.
func TestMessageNumbersGoOnAfterSnapshot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := start(t, dir)
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.settle(t)
	r.f.cards(t, "9H 5C KS KD")
	r.settle(t)
	if err := r.rec.Inject("dealer", []byte(`{"cmd":"end_shoe"}`)); err != nil {
		t.Fatal(err)
	}
	r.settle(t)
	if len(r.rec.Replies()) != 1 {
		t.Fatalf("%d replies to end_shoe, want 1", len(r.rec.Replies()))
	}
	seq := r.d.node.MessageSeq()
	r.close(t)
	if _, err := os.Stat(filepath.Join(dir, "snapshot")); err != nil {
		t.Fatalf("no snapshot after the shoe's end: %v", err)
	}
	d, err := Open(testConfig(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got := d.node.MessageSeq(); got != seq || seq == 0 {
		t.Errorf("message number %d after the restart, want %d", got, seq)
	}
}

// TestRestartRepublishesRetainedPicture: a table started again publishes, before any new
// event, the retained state and the roads of the shoe in play as the journal left them,
// for a broker that lost them (the embedded one starts with the process). (The shoe's
// event messages go out again too, with their numbers: TestBrokerAwayAndRestart.)
func TestRestartRepublishesRetainedPicture(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := start(t, dir)
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.settle(t)
	r.f.cards(t, "9H 5C KS KD") // Player natural 9: settled, round 2 opens
	r.settle(t)
	r.close(t)

	r = start(t, dir)
	r.settle(t)
	var state api.State
	var road struct {
		BigRoad []json.RawMessage `json:"big_road"`
	}
	got := map[string]bool{}
	for _, m := range r.rec.Published() {
		topic := m.Topic[strings.LastIndex(m.Topic, "/")+1:]
		got[topic] = true
		switch topic {
		case "state":
			json.Unmarshal(m.Payload, &state)
		case "roadmap":
			json.Unmarshal(m.Payload, &road)
		}
	}
	if !got["state"] || !got["roadmap"] || !got["status"] {
		t.Fatalf("published after the restart: %v, want state, roadmap and status", got)
	}
	if state.Round != 2 || !state.BettingOpen || state.Shoe != 1 {
		t.Errorf("retained state after the restart: %+v", state)
	}
	if len(road.BigRoad) != 1 {
		t.Errorf("big road after the restart has %d cells, want 1", len(road.BigRoad))
	}
	r.close(t)
}

// TestCallCommands: the call_supervisor command calls a Pit Supervisor as the button
// does, the status message shows it, and the reply comes after that status; calling
// twice leaves it on (the command is no toggle); cancel_call ends it.
func TestCallCommands(t *testing.T) {
	t.Parallel()
	r := startWith(t, testConfig(t, t.TempDir()), nil)
	call := func() (string, int) {
		t.Helper()
		var st api.Status
		statuses := 0
		for _, m := range r.rec.Published() {
			if strings.HasSuffix(m.Topic, "/status") {
				statuses++
				st = api.Status{}
				if err := json.Unmarshal(m.Payload, &st); err != nil {
					t.Fatal(err)
				}
			}
		}
		return st.Call, statuses
	}
	give := func(cmd string) string {
		t.Helper()
		if err := r.rec.Inject("dealer", []byte(`{"id":"`+cmd+`","cmd":"`+cmd+`","actor":"D4"}`)); err != nil {
			t.Fatal(err)
		}
		r.settle(t)
		replies := r.rec.Replies()
		return string(replies[len(replies)-1].Payload)
	}
	_, before := call()
	if reply := give("call_supervisor"); !strings.Contains(reply, `"ok":true`) || !strings.Contains(reply, "supervisor-call on") {
		t.Fatalf("reply to call_supervisor: %s", reply)
	}
	got, statuses := call()
	if got != "supervisor" || statuses != before+1 {
		t.Fatalf("after call_supervisor: call %q, %d status messages (before %d)", got, statuses, before)
	}
	give("call_supervisor")
	if got, _ := call(); got != "supervisor" {
		t.Errorf("a second call_supervisor turned the call %q", got)
	}
	if reply := give("cancel_call"); !strings.Contains(reply, "supervisor-call off") {
		t.Errorf("reply to cancel_call: %s", reply)
	}
	if got, _ := call(); got != "" {
		t.Errorf("call %q after cancel_call", got)
	}
	r.close(t)
}

// openedPanel is a FakePanel that also tells its inputs' state when it opened, as
// gpio.Driver.Initial does.
type openedPanel struct {
	*FakePanel
	initial []gpio.Event
}

// Initial implements the opened panel's state.
func (p openedPanel) Initial() []gpio.Event { return p.initial }

// TestDealersBadges: a dealer's badge put in takes the table in the badge's name, and
// the status says who is on; taken out, no one is. Started again with a badge already in,
// the table takes it as put in: the badge of the dealer the journal left on journals
// nothing, another dealer's badge takes the table.
func TestDealersBadges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dealer := func(r *running) string {
		t.Helper()
		st := statuses(t, r)
		if len(st) == 0 {
			t.Fatal("no status published")
		}
		return st[len(st)-1].Dealer
	}
	badge := func(name string, in bool) gpio.Event {
		kind := gpio.Off
		if in {
			kind = gpio.On
		}
		return gpio.Event{Role: gpio.Dealer, Kind: kind, At: time.Now(), Dealer: name}
	}

	p := NewFakePanel()
	r := startWith(t, testConfig(t, dir), func(d *Daemon) { d.SetPanel(p) })
	r.settle(t)
	p.In <- badge("D-ANA", true)
	r.settle(t)
	if got := dealer(r); got != "D-ANA" {
		t.Fatalf("status dealer %q after D-ANA's badge in, want D-ANA", got)
	}
	p.In <- badge("D-ANA", false)
	r.settle(t)
	if got := dealer(r); got != "" {
		t.Fatalf("status dealer %q after D-ANA's badge out, want none", got)
	}
	p.In <- badge("D-ANA", true)
	r.settle(t)
	r.close(t)

	// D-ANA's badge stayed in across the restart: nothing to journal.
	var before uint64
	opened := openedPanel{NewFakePanel(), []gpio.Event{badge("D-ANA", true), badge("D-BEN", false)}}
	r = startWith(t, testConfig(t, dir), func(d *Daemon) { before = d.j.LastSeq(); d.SetPanel(opened) })
	r.settle(t)
	if after := r.d.j.LastSeq(); after != before {
		t.Errorf("the badge of the dealer on, in at the start, journalled %d records", after-before)
	}
	if got := dealer(r); got != "D-ANA" {
		t.Errorf("status dealer %q after the restart, want D-ANA still on", got)
	}
	r.close(t)

	// D-BEN's badge was put in while the table was down: he takes the table.
	opened = openedPanel{NewFakePanel(), []gpio.Event{badge("D-ANA", false), badge("D-BEN", true)}}
	r = startWith(t, testConfig(t, dir), func(d *Daemon) { before = d.j.LastSeq(); d.SetPanel(opened) })
	r.settle(t)
	if after := r.d.j.LastSeq(); after != before+1 {
		t.Errorf("D-BEN's badge, in at the start, journalled %d records, want 1", after-before)
	}
	if got := dealer(r); got != "D-BEN" {
		t.Errorf("status dealer %q after the restart with D-BEN's badge in, want D-BEN", got)
	}
	r.close(t)
}

// TestPanelFaultJournalled: an output of the panel that cannot be set is journalled as
// the panel's own device fault (actor gpio), once while it keeps failing; the table is
// not held for it, and once the output works again a new failure is journalled again.
func TestPanelFaultJournalled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := NewFakePanel()
	p.Fail(gpio.LightGreen, errors.New("line 17: input/output error"))
	r := startWith(t, testConfig(t, dir), func(d *Daemon) { d.SetPanel(p) })
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416} // green on: fails
	r.f.cards(t, "9H 5C KS KD")                                                                // green off, then on: fails again
	r.settle(t)
	if held, err := r.d.HeldFor(context.Background()); err != nil || held != 0 {
		t.Fatalf("held for %d (%v) after the panel's fault: a device fault holds nothing", held, err)
	}
	p.Fail(gpio.LightGreen, nil)
	r.f.cards(t, "2H 3D 4C 5D") // green set again: works
	r.settle(t)
	p.Fail(gpio.LightGreen, errors.New("line 17: input/output error"))
	r.f.cards(t, "6H 3C 4S 5H")
	r.settle(t)
	r.close(t)

	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var faults []string
	for rec, err := range j.Records(1) {
		if err != nil {
			t.Fatal(err)
		}
		e, err := table.DecodeEntry(rec.Seq, rec.Data)
		if err != nil {
			t.Fatal(err)
		}
		if ev := e.Event; ev != nil && ev.Kind == round.Report && ev.Irregularity == irregularities.DeviceFault {
			if ev.Actor != table.PanelActor || !strings.Contains(ev.Detail, "light_green") || !strings.Contains(ev.Detail, "input/output error") {
				t.Errorf("the panel's fault journalled as %+v", ev)
			}
			faults = append(faults, ev.Detail)
		}
	}
	if len(faults) != 2 {
		t.Fatalf("%d faults journalled, want 2 (one a failing stretch): %q", len(faults), faults)
	}
	if got := irregularityEvents(t, r.rec); !strings.Contains(got, "raised device_fault") {
		t.Errorf("irregularities published: %q, want the device fault", got)
	}
}
