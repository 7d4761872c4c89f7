package daemon

import (
	"fmt"
	"strings"

	"github.com/tablectl/tablectl/irregularities"
)

// logHeld says, as the table opens, that the journal left it held for an irregularity:
// why, and the decision it waits for (or the players' options, and how to close them).
// A hold outlives a restart: the table deals on only once it is decided. The status
// message says so too, in its held field.
func (d *Daemon) logHeld() {
	h := d.node.State().Held
	if h.ID == 0 {
		return
	}
	if h.Options {
		topic, err := d.topics.Command(irregularities.Supervisor.String())
		if err != nil {
			topic = d.topics.CommandFilter()
		}
		d.log.Warn(fmt.Sprintf("the table is held for the players' options of irregularity #%d (%s), as the journal left it: no card is to be drawn until every box has chosen or a supervisor closes them", h.ID, h.Kind),
			"irregularity", h.ID, "kind", h.Kind, "close", fmt.Sprintf(`publish {"cmd":"options_closed"} on %s (docs/mqtt.md)`, topic))
		return
	}
	en := irregularities.Lookup(h.Kind)
	choices := make([]string, len(en.Choices))
	for i, c := range en.Choices {
		choices[i] = c.String()
	}
	role := en.DecidedBy.String()
	topic, err := d.topics.Command(role)
	if err != nil {
		topic = d.topics.CommandFilter()
	}
	d.log.Warn(fmt.Sprintf("the table is held for irregularity #%d (%s), as the journal left it: no card is to be drawn until a %s decides it", h.ID, h.Kind, role),
		"irregularity", h.ID, "kind", h.Kind, "reason", h.Reason, "choices", strings.Join(choices, ", "),
		"decide", fmt.Sprintf(`publish {"cmd":"decide","irregularity":%d,"choice":"<one of the choices>"} on %s (docs/mqtt.md), or use tablectl-floor console`, h.ID, topic))
}
