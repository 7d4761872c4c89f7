package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// TestNewShoeButtonIsTheCommand: the new_shoe button and the new_shoe command (with no
// set) journal the same events: the shoe in play ends, and the next shuffled set loads.
func TestNewShoeButtonIsTheCommand(t *testing.T) {
	t.Parallel()
	journaled := func(t *testing.T, press func(r *running)) string {
		dir := t.TempDir()
		cfg := testConfig(t, dir)
		p := NewFakePanel()
		r := startWith(t, cfg, func(d *Daemon) { d.SetPanel(p) })
		r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
		r.f.cards(t, "9H 5C KS KD")
		r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 6, Decks: 8, Cards: 416}
		r.settle(t)
		from := r.d.j.LastSeq() + 1
		press(r)
		r.settle(t)
		r.close(t)
		j, _, err := journal.Open(dir, journal.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		var kinds []string
		for rec, err := range j.Records(from) {
			if err != nil {
				t.Fatal(err)
			}
			e, err := table.DecodeEntry(rec.Seq, rec.Data)
			if err != nil {
				t.Fatal(err)
			}
			if e.Event != nil {
				kinds = append(kinds, e.Event.Kind.String()+" "+e.Event.Set+" "+e.Event.Role.String())
			}
		}
		return strings.Join(kinds, ",")
	}
	button := journaled(t, func(r *running) {
		r.d.panel.(*FakePanel).In <- gpio.Event{Role: gpio.NewShoe, Kind: gpio.Pressed, At: time.Now()}
	})
	command := journaled(t, func(r *running) {
		if err := r.rec.Inject("dealer", []byte(`{"cmd":"new_shoe"}`)); err != nil {
			t.Fatal(err)
		}
	})
	if button != command || !strings.HasPrefix(button, round.ShoeEnd.String()) || !strings.Contains(button, round.NewShoe.String()+" 6") {
		t.Errorf("the button journaled %q, the command %q: want the same, the shoe's end then set 6", button, command)
	}
}
