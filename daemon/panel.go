package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/table"
)

// Panel is the table's GPIO: the dealer's buttons, the shoe's sensors and the dealers'
// badges in, the tower light and the buzzer out (docs/gpio.md). *gpio.Driver is one;
// FakePanel is its double.
type Panel interface {
	Events() <-chan gpio.Event
	Set(ctx context.Context, cmd gpio.Command) error
}

// initialPanel is a Panel that also tells its inputs' state when it opened, as
// *gpio.Driver does (gpio.Driver.Initial).
type initialPanel interface {
	Initial() []gpio.Event
}

var _ initialPanel = (*gpio.Driver)(nil)

// beeps is the buzzer's pattern when an irregularity is raised: three short beeps.
var beeps = gpio.Command{Role: gpio.Buzzer, Mode: gpio.ModeBlink, On: 100 * time.Millisecond, Off: 100 * time.Millisecond, Cycles: 3}

// SetPanel connects the table's buttons, sensors, badges, tower light and buzzer, and
// sets the tower light at once to the state the journal left: a table held when it
// stopped shows red before anything is dealt. A dealer's badge already in when the panel
// opened (one left in across a restart) is handed to the node as put in then, since the
// panel sends no event for it: its dealer takes the table, unless the journal left that
// dealer on. The badges in are handed in the panel's order. Call it after Open, before
// Serve: Serve journals what they step.
func (d *Daemon) SetPanel(p Panel) {
	d.panel = p
	if d.node == nil {
		return
	}
	d.setLamps(d.node.Lamps())
	if ip, ok := p.(initialPanel); ok {
		for _, ev := range ip.Initial() {
			if ev.Role == gpio.Dealer && ev.Active() {
				d.button(ev)
			}
		}
	}
}

// button hands a button, sensor or badge event to the node, stamped with the table's
// clock, with a badge's dealer: the node decides what it means (table.Node.Button).
func (d *Daemon) button(ev gpio.Event) {
	d.log.Info("panel", "event", ev.String())
	d.node.Button(table.Button{Name: ev.Role.String(), Active: ev.Active(), At: d.clock.Now(), Dealer: ev.Dealer})
}

// lamps are the tower light's lamps, red to green.
var lamps = [...]gpio.Role{gpio.LightRed, gpio.LightAmber, gpio.LightGreen}

// setLamps sets the tower light to the levels l the node asked for: each lamp on or off,
// the red one blinking fast while the broker drops the table's publishes (echoalarm.go).
func (d *Daemon) setLamps(l table.Lamps) {
	if d.panel == nil {
		return
	}
	for i, on := range [len(lamps)]bool{l.Red, l.Amber, l.Green} {
		cmd := gpio.Command{Role: lamps[i], Mode: gpio.ModeOff}
		switch {
		case lamps[i] == gpio.LightRed && l.Denied:
			cmd = denialBlink
		case on:
			cmd.Mode = gpio.ModeOn
		}
		d.setOutput(cmd)
	}
}

// setOutput sets one output of the panel. An output that fails is logged, and its
// first failure is journalled as the panel's fault (handPanelFaults); it is not again
// until a set of it works.
func (d *Daemon) setOutput(cmd gpio.Command) {
	err := d.panel.Set(context.Background(), cmd)
	switch {
	case errors.Is(err, gpio.ErrNotConfigured):
	case err != nil:
		d.log.Warn("panel output", "command", cmd.String(), "err", err)
		if !d.failing[cmd.Role] {
			if d.failing == nil {
				d.failing = map[gpio.Role]bool{}
			}
			d.failing[cmd.Role] = true
			d.panelFaults = append(d.panelFaults, fmt.Sprintf("output %s could not be set: %v", cmd, err))
		}
	default:
		delete(d.failing, cmd.Role)
	}
}

// handPanelFaults hands the node the panel's failed outputs, stamped with the table's
// clock: each is journalled as a device fault of the GPIO panel (table.Node.PanelFault).
func (d *Daemon) handPanelFaults() {
	if len(d.panelFaults) == 0 || d.node == nil {
		return
	}
	now := d.clock.Now()
	for _, f := range d.panelFaults {
		d.node.PanelFault(f, now)
	}
	d.panelFaults = nil
}
