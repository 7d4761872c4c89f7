package table

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/irregularities"
)

// statusDealer gives the node the command payload by role at, carries out its Ready, and
// returns the reply and the dealer of the last status message it asked for ("-": none).
func (h *harness) statusDealer(t *testing.T, role, payload string, at time.Time) (Reply, string) {
	t.Helper()
	_, ev, err := ParseCommand(role, []byte(payload))
	if err != nil {
		t.Fatalf("%s %s: %v", role, payload, err)
	}
	ev.At = at
	h.Command(1, "", ev)
	rd := h.Ready()
	dealer := "-"
	for _, m := range rd.Messages {
		if m.Topic == api.TopicStatus {
			var s api.Status
			if err := json.Unmarshal(m.Payload, &s); err != nil {
				t.Fatal(err)
			}
			dealer = s.Dealer
		}
	}
	if err := Persist(h.j, &rd); err != nil {
		t.Fatal(err)
	}
	h.Advance()
	if len(rd.Replies) != 1 {
		t.Fatalf("%d replies, want 1", len(rd.Replies))
	}
	return rd.Replies[0], dealer
}

// TestDealerOnTheStatus: a dealer takes the table in their own name, a supervisor
// records one without a login, and the status says who is on, or that no one is, after
// each change (docs/mqtt.md, "status"). The dealer on outlives a restart, from the
// journal and from a shoe's snapshot.
func TestDealerOnTheStatus(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	h, err := start(testConfig("rws"), j)
	if err != nil {
		t.Fatal(err)
	}
	if s := statusOf(t, h.Status("online", t0)); s.Dealer != "" {
		t.Fatalf("a new table's dealer %q, want none", s.Dealer)
	}
	at := t0.Add(time.Minute)
	if r, d := h.statusDealer(t, "dealer", `{"cmd":"dealer_on","actor":"D-ANA"}`, at); !r.OK || d != "D-ANA" {
		t.Fatalf("dealer_on: %+v, status dealer %q", r, d)
	}
	// A dealer names only themselves: the table refuses another name even where the
	// role would pass (the console checks it first, docs/console.md).
	_, ev, err := ParseCommand("supervisor", []byte(`{"cmd":"dealer_on","actor":"D-BEN","dealer":"D-CY"}`))
	if err != nil {
		t.Fatal(err)
	}
	ev.Role = irregularities.Dealer // a dealer's role, as the command of a dealer
	h.Command(1, "", ev)
	if rd := h.Ready(); len(rd.Replies) != 1 || rd.Replies[0].OK {
		t.Fatalf("a dealer naming another: %+v, want it refused", rd.Replies)
	} else if err := Persist(h.j, &rd); err != nil {
		t.Fatal(err)
	}
	h.Advance()
	if err := h.Shuffler(device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416, Time: at}); err != nil {
		t.Fatal(err)
	}
	if r, d := h.statusDealer(t, "supervisor", `{"cmd":"dealer_on","actor":"S-1","dealer":"Mei Ling Tan"}`, at.Add(time.Second)); !r.OK || d != "Mei Ling Tan" {
		t.Fatalf("a supervisor's dealer_on: %+v, status dealer %q", r, d)
	}
	if s := statusOf(t, h.Status("online", at)); s.Dealer != "Mei Ling Tan" {
		t.Fatalf("status dealer %q", s.Dealer)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	j = openJournal(t, dir)
	h, err = start(testConfig("rws"), j)
	if err != nil {
		t.Fatal(err)
	}
	if s := statusOf(t, h.Status("online", at)); s.Dealer != "Mei Ling Tan" {
		t.Fatalf("after a restart, status dealer %q, want Mei Ling Tan", s.Dealer)
	}
	// The shoe ends (a snapshot); the dealer stays on through it and a restart.
	if r, _ := h.statusDealer(t, "dealer", `{"cmd":"end_shoe"}`, at.Add(2*time.Second)); !r.OK {
		t.Fatalf("end_shoe: %+v", r)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j = openJournal(t, dir)
	defer j.Close()
	h, err = start(testConfig("rws"), j)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := j.Snapshot(); !ok {
		t.Fatal("no snapshot at the shoe's end")
	}
	if s := statusOf(t, h.Status("online", at)); s.Dealer != "Mei Ling Tan" {
		t.Fatalf("after a snapshot and a restart, status dealer %q, want Mei Ling Tan", s.Dealer)
	}
	if r, d := h.statusDealer(t, "dealer", `{"cmd":"dealer_off","actor":"D-ANA"}`, at.Add(3*time.Second)); r.OK || d != "-" {
		t.Fatalf("dealer_off by a dealer not on: %+v, status %q: want it refused, no status", r, d)
	}
	if r, d := h.statusDealer(t, "supervisor", `{"cmd":"dealer_off","actor":"S-1"}`, at.Add(4*time.Second)); !r.OK || d != "" {
		t.Fatalf("dealer_off: %+v, status dealer %q, want none", r, d)
	}
}

func statusOf(t *testing.T, b []byte) api.Status {
	t.Helper()
	var s api.Status
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}
