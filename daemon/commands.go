package daemon

import (
	"encoding/json"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/drivers/display"
)

// command hands one command to the node; its reply goes out once the node's Ready is
// carried out. A command that cannot be parsed changes nothing and is answered at once.
// What concerns every command as received (its id, say) is handled here.
func (d *Daemon) command(c display.Command) error {
	now := d.clock.Now()
	reply := api.Reply{Schema: api.Schema, Table: d.cfg.Table, At: now, Role: c.Role}
	cmd, ev, err := api.ParseCommand(c.Role, c.Payload)
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
	if cmd.ID != "" {
		if first, seen := d.ids.Seen(c.Role, cmd.ID); seen {
			d.answerRepeat(c, reply, first)
			return nil
		}
		if err := d.ids.Begin(c.Role, cmd.ID, d.j.LastSeq()); err != nil {
			return err // the journal failed: the table cannot go on
		}
	}
	ev.At = now
	d.nextRef++
	d.asked[d.nextRef] = asked{cmd: c, reply: reply}
	d.node.Command(d.nextRef, ev)
	return nil
}

// replyTo sends the node's reply to a command; a command with an id has its reply kept
// first (commandids.go), so that a repeat is answered with it.
func (d *Daemon) replyTo(c display.Command, r api.Reply) error {
	if r.ID == "" {
		d.answer(c, r)
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := d.ids.Done(c.Role, r.ID, b); err != nil {
		return err // the journal failed: the table cannot go on
	}
	c.Reply(b)
	return nil
}

// answerRepeat answers a command whose id was taken before: with the first reply, or,
// when that was lost in a restart, with a reply saying the command was carried out.
func (d *Daemon) answerRepeat(c display.Command, r api.Reply, first []byte) {
	d.log.Info("command repeated: answered with its first reply, not carried out again", "role", c.Role, "id", r.ID)
	if first != nil {
		c.Reply(first)
		return
	}
	r.OK = true
	r.Effects = []string{"repeat: carried out before a restart; its first reply was not kept"}
	d.answer(c, r)
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
