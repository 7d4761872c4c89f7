package daemon

import (
	"time"

	"github.com/tablectl/tablectl/drivers/gpio"
)

// denialBlink is the red lamp while the broker drops tablectl's publishes: a fast blink,
// told apart from the steady red of a table held for a decision.
var denialBlink = gpio.Command{Role: gpio.LightRed, Mode: gpio.ModeBlink, On: 250 * time.Millisecond, Off: 250 * time.Millisecond}

// Echo is the transport's hook for the messages on the table's own topics
// (display.Options.OnEcho). It may be called from any goroutine.
func (d *Daemon) Echo(topic string, payload []byte) {
	if d.echo != nil {
		d.echo.Echo(topic, payload)
	}
}

// checkEcho runs on the table's goroutine: publishes the broker acknowledged and did not
// deliver are counted, and a change raises or clears the alarm on the log, the metrics
// and, through the node, the tower light.
func (d *Daemon) checkEcho() error {
	if !d.out.connected() {
		return nil // what is pending is forgotten at the reconnect
	}
	lost, denied, changed, topic := d.echo.Check()
	if m := d.cfg.Metrics; m != nil {
		if lost > 0 {
			m.Undelivered(lost)
		}
		if changed {
			m.PublishDenied(denied)
		}
	}
	if !changed {
		return nil
	}
	d.node.PublishDenied(denied)
	if denied {
		d.log.Error("ALARM: the MQTT broker acknowledges tablectl's publishes but does not deliver them: boards and pit systems see nothing of this table. Check the broker's ACL for tablectl's user (deploy/mosquitto/acl)",
			"topic", topic, "lost", lost, "within", d.echo.grace)
	} else {
		d.log.Info("the MQTT broker delivers tablectl's publishes again")
	}
	return nil
}
