package daemon

import (
	"encoding/json"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/table"
)

// command hands one command to the node; its reply goes out once the node's Ready is
// carried out. A command that cannot be parsed changes nothing and is answered at once.
// A command with an id the node took before is answered with its first reply
// (table.Node.Command).
func (d *Daemon) command(c display.Command) error {
	now := d.clock.Now()
	reply := api.Reply{Schema: api.Schema, Table: d.cfg.Table, At: now, Role: c.Role}
	cmd, ev, err := table.ParseCommand(c.Role, c.Payload)
	reply.ID = cmd.ID
	if err != nil {
		if len(reply.ID) > api.MaxIDLen || reply.ID == "" && len(c.Payload) <= api.MaxCommandBytes {
			reply.ID = display.CommandID(c.Payload) // what the refusal is of, when it can be told
		}
		reply.Error = err.Error()
		d.log.Warn("command refused", "role", c.Role, "err", err)
		d.answer(c, reply)
		return nil
	}
	ev.At = now
	d.nextRef++
	d.asked[d.nextRef] = asked{cmd: c, reply: reply}
	if spec, _ := api.LookupCommand(cmd.Cmd); spec.Calls != api.NoCall {
		d.node.Call(d.nextRef, ev, spec.Calls == api.CallOn)
		return nil
	}
	d.node.Command(d.nextRef, cmd.ID, ev)
	return nil
}

// answer sends a reply; it is not waited for: the reply topic is not journalled.
func (d *Daemon) answer(c display.Command, r api.Reply) {
	b, err := json.Marshal(r)
	if err != nil {
		d.log.Error("reply", "err", err)
		return
	}
	c.Reply(b)
}
