package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// Panel is the table's GPIO: the dealer's buttons and the shoe's sensors in, the tower
// light and the buzzer out (docs/gpio.md). *gpio.Driver is one; FakePanel is its double.
type Panel interface {
	Events() <-chan gpio.Event
	Set(ctx context.Context, cmd gpio.Command) error
}

// beeps is the buzzer's pattern when an irregularity is raised: three short beeps.
var beeps = gpio.Command{Role: gpio.Buzzer, Mode: gpio.ModeBlink, On: 100 * time.Millisecond, Off: 100 * time.Millisecond, Cycles: 3}

// SetPanel connects the table's buttons, sensors, tower light and buzzer. Call it before
// Serve.
func (d *Daemon) SetPanel(p Panel) { d.panel = p }

// button steps what a button or sensor means, on the table's goroutine:
//
//   - confirm: the dealer confirms the round's result;
//   - insurance_closed: the dealer closes the Insurance offers (NC Insurance 3.12);
//   - new_shoe: the dealer ends the shoe, so the next shuffled set is loaded;
//   - call_supervisor: calls a Pit Supervisor, shown in the status message until the
//     button is pressed again or a decision is taken;
//   - shoe_lid and double_card: as the shoe's own lid and double-card signals, for shoes
//     whose wire format has none;
//   - card_present: logged only.
//
// Releases, and a sensor going off, step nothing (but the lid closing).
func (d *Daemon) button(ev gpio.Event) error {
	d.log.Info("panel", "event", ev.String())
	now := d.cfg.Now()
	step := func(k round.EventKind) error {
		return d.tbl.Step(round.Event{Kind: k, At: now, Role: irregularities.Dealer, Actor: "button"})
	}
	switch {
	case ev.Role == gpio.ShoeLid && ev.Kind == gpio.On:
		return d.tbl.Shoe(device.Event{Kind: device.LidOpened, Time: now})
	case ev.Role == gpio.ShoeLid && ev.Kind == gpio.Off:
		return d.tbl.Shoe(device.Event{Kind: device.LidClosed, Time: now})
	case !ev.Active():
		return nil
	case ev.Role == gpio.Confirm:
		return step(round.ConfirmResult)
	case ev.Role == gpio.InsuranceClosed:
		return step(round.InsuranceWindowClosed)
	case ev.Role == gpio.NewShoe:
		return step(round.ShoeEnd)
	case ev.Role == gpio.DoubleCard:
		return d.tbl.Shoe(device.Event{Kind: device.DoubleCard, Time: now})
	case ev.Role == gpio.CallSupervisor:
		d.call = !d.call
		d.log.Warn("supervisor call", "on", d.call)
		d.out.add(d.topics.Status(), 0, d.Status("online"), true)
	}
	return nil
}

// lamps are the tower light's lamps, red to green.
var lamps = [...]gpio.Role{gpio.LightRed, gpio.LightAmber, gpio.LightGreen}

// lamps sets the tower light from the table's state, and sounds the buzzer when an
// irregularity is raised: red while the table is held for a decision, amber while cards
// are drawn (burn, deal, a round awaiting confirmation), green while betting is open.
// Only changes are sent.
func (d *Daemon) lamps(st round.State, effs []round.Effect) {
	if d.panel == nil {
		return
	}
	held := st.Held.ID != 0
	want := [len(lamps)]bool{
		held,
		!held && (st.Phase == round.Burning || st.Phase == round.Dealing || st.Phase == round.Complete),
		!held && st.Phase == round.BettingOpen,
	}
	for i, role := range lamps {
		if d.litSet && d.lit[i] == want[i] && (role != gpio.LightRed || d.litDenied == d.denied) {
			continue
		}
		mode := gpio.ModeOff
		if want[i] {
			mode = gpio.ModeOn
		}
		if role == gpio.LightRed && d.denied {
			d.setOutput(denialBlink) // the broker drops the table's publishes (echoalarm.go)
			continue
		}
		d.setOutput(gpio.Command{Role: role, Mode: mode})
	}
	d.lit, d.litSet, d.litDenied = want, true, d.denied
	for _, e := range effs {
		if e.Kind == round.IrregularityRaised {
			d.setOutput(beeps)
			break
		}
	}
}

func (d *Daemon) setOutput(cmd gpio.Command) {
	if err := d.panel.Set(context.Background(), cmd); err != nil && !errors.Is(err, gpio.ErrNotConfigured) {
		d.log.Warn("panel output", "command", cmd.String(), "err", err)
	}
}
