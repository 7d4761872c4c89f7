package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// Panel is the table's GPIO: the dealer's buttons and the shoe's sensors in, the tower
// light and the buzzer out (docs/gpio.md). *gpio.Driver is one; FakePanel is its double.
type Panel interface {
	Events() <-chan gpio.Event
	Set(ctx context.Context, cmd gpio.Command) error
}

// beeps is the buzzer's pattern when an irregularity is raised: three short beeps.
var beeps = gpio.Command{Role: gpio.Buzzer, Mode: gpio.ModeBlink, On: 100 * time.Millisecond, Off: 100 * time.Millisecond, Cycles: 3}

// SetPanel connects the table's buttons, sensors, tower light and buzzer, and sets the
// tower light at once to the state the journal left: a table held when it stopped shows
// red before anything is dealt. Call it after Open, before Serve.
func (d *Daemon) SetPanel(p Panel) {
	d.panel = p
	if d.node != nil {
		d.setLamps(d.node.Lamps())
	}
}

// button steps what a button or sensor means, on the table's goroutine:
//
//   - confirm: the dealer confirms the round's result;
//   - insurance_closed: the dealer closes the Insurance offers (NC Insurance 3.12);
//   - new_shoe: as the new_shoe command: the shoe in play ends, and the next shuffled set
//     is loaded; at a table with no shuffler whose shoes the dealer starts, the next shoe
//     starts, of the table's deck count;
//   - call_supervisor: calls a Pit Supervisor, shown in the status message until the
//     button is pressed again or a decision is taken;
//   - shoe_lid and double_card: as the shoe's own lid and double-card signals, for shoes
//     whose wire format has none;
//   - card_present: logged only.
//
// Releases, and a sensor going off, step nothing (but the lid closing).
func (d *Daemon) button(ev gpio.Event) {
	d.log.Info("panel", "event", ev.String())
	now := d.clock.Now()
	step := func(k round.EventKind) {
		d.node.Step(round.Event{Kind: k, At: now, Role: irregularities.Dealer, Actor: "button"})
	}
	switch {
	case ev.Role == gpio.ShoeLid && ev.Kind == gpio.On:
		d.node.Shoe(device.Event{Kind: device.LidOpened, Time: now})
	case ev.Role == gpio.ShoeLid && ev.Kind == gpio.Off:
		d.node.Shoe(device.Event{Kind: device.LidClosed, Time: now})
	case !ev.Active():
	case ev.Role == gpio.Confirm:
		step(round.ConfirmResult)
	case ev.Role == gpio.InsuranceClosed:
		step(round.InsuranceWindowClosed)
	case ev.Role == gpio.NewShoe:
		d.node.NewShoe(round.Event{Kind: round.NewShoe, At: now, Role: irregularities.Dealer, Actor: "button"})
	case ev.Role == gpio.DoubleCard:
		d.node.Shoe(device.Event{Kind: device.DoubleCard, Time: now})
	case ev.Role == gpio.CallSupervisor:
		d.node.CallSupervisor(now)
		d.log.Warn("supervisor call", "on", d.node.Calling())
	}
}

// lamps are the tower light's lamps, red to green.
var lamps = [...]gpio.Role{gpio.LightRed, gpio.LightAmber, gpio.LightGreen}

// setLamps sets the tower light to l: red while the table is held for a decision,
// amber while cards are drawn, green while betting is open (table.Lamps).
// Only changes are sent.
func (d *Daemon) setLamps(l table.Lamps) {
	if d.panel == nil {
		return
	}
	want := [len(lamps)]bool{l.Red, l.Amber, l.Green}
	for i, on := range want {
		if d.litSet && d.lit[i] == on && (lamps[i] != gpio.LightRed || d.litDenied == d.denied) {
			continue
		}
		mode := gpio.ModeOff
		if on {
			mode = gpio.ModeOn
		}
		if lamps[i] == gpio.LightRed && d.denied {
			d.setOutput(denialBlink) // the broker drops the table's publishes (echoalarm.go)
			continue
		}
		d.setOutput(gpio.Command{Role: lamps[i], Mode: mode})
	}
	d.lit, d.litSet, d.litDenied = want, true, d.denied
}

func (d *Daemon) setOutput(cmd gpio.Command) {
	if err := d.panel.Set(context.Background(), cmd); err != nil && !errors.Is(err, gpio.ErrNotConfigured) {
		d.log.Warn("panel output", "command", cmd.String(), "err", err)
	}
}
