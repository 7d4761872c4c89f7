package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/tablectl/tablectl/drivers/gpio"
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

// button hands a button or sensor event to the node, stamped with the table's clock:
// the node decides what it means (table.Node.Button).
func (d *Daemon) button(ev gpio.Event) {
	d.log.Info("panel", "event", ev.String())
	d.node.Button(table.Button{Name: ev.Role.String(), Active: ev.Active(), At: d.clock.Now()})
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

func (d *Daemon) setOutput(cmd gpio.Command) {
	if err := d.panel.Set(context.Background(), cmd); err != nil && !errors.Is(err, gpio.ErrNotConfigured) {
		d.log.Warn("panel output", "command", cmd.String(), "err", err)
	}
}
