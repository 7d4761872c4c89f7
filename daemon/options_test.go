package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
)

// TestStandInClosesOptions: a table standing in for the dealer closes the players'
// options window (RWS Baccarat 5.12) once its pause has run, with no further input: its
// own timer takes the table on, the boxes that chose nothing continuing. A supervisor
// closes it with options_closed; a dealer may not.
func TestStandInClosesOptions(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.TempDir())
	cfg.AutoCloseOptions, cfg.OptionsPause = true, time.Millisecond
	r := startWith(t, cfg, nil)
	defer r.close(t)
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.settle(t)
	for _, c := range []struct{ role, cmd string }{
		{"dealer", `{"cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":100},{"box":"2","bet":"player","stake":100}]}`},
		{"dealer", `{"cmd":"report","kind":"exposed_card"}`},
	} {
		if err := r.rec.Inject(c.role, []byte(c.cmd)); err != nil {
			t.Fatal(err)
		}
		r.idle(t)
	}
	waitFor(t, "the window closed by the table", r.rec.Changed, func() bool {
		return strings.Contains(irregularityEvents(t, r.rec), "options_closed")
	})
	r.settle(t)
	if got := irregularityEvents(t, r.rec); got != "raised exposed_card,options_opened exposed_card,options_closed exposed_card" {
		t.Errorf("irregularity messages: %s", got)
	}
	if st := r.d.node.State(); st.Held.ID != 0 || st.Window.Open {
		t.Errorf("after the stand-in closed the window: held %+v window %+v", st.Held, st.Window)
	}
}

// TestSupervisorClosesOptions: options_closed is a supervisor's command; the table held
// for the options goes on when one gives it.
func TestSupervisorClosesOptions(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.TempDir())
	r := startWith(t, cfg, nil)
	defer r.close(t)
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.settle(t)
	ask := func(role, payload string) (ok bool, text string) {
		t.Helper()
		if err := r.rec.Inject(role, []byte(payload)); err != nil {
			t.Fatal(err)
		}
		r.idle(t)
		rp := reply(t, r.rec)
		return rp.OK, rp.Error + strings.Join(rp.Effects, "\n")
	}
	ask("dealer", `{"cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":100}]}`)
	if ok, text := ask("dealer", `{"cmd":"report","kind":"exposed_card"}`); !ok || !strings.Contains(text, "options-opened #1") {
		t.Fatalf("report: %v %s", ok, text)
	}
	if ok, text := ask("dealer", `{"cmd":"options_closed"}`); ok || !strings.Contains(text, `a dealer may not give "options_closed": it takes a supervisor`) {
		t.Errorf("a dealer's options_closed: %v %s", ok, text)
	}
	if ok, text := ask("supervisor", `{"cmd":"options_closed","actor":"S17"}`); !ok || !strings.Contains(text, "options-closed #1 by supervisor S17: box 1 continue (chose nothing)") {
		t.Errorf("a supervisor's options_closed: %v %s", ok, text)
	}
	if st := r.d.node.State(); st.Held.ID != 0 {
		t.Errorf("still held: %+v", st.Held)
	}
}
