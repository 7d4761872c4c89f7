package daemon

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// signRounds signs the journal's chain head once the records of a round's end are on
// disk (RoundSettled or RoundVoided among the steps just persisted), and publishes the
// checkpoint, retained, on the journal topic, so that a witness off the table holds what
// the journal said at that round. A table with no signing key signs nothing. An error is
// the journal's: the table cannot go on.
func (d *Daemon) signRounds(steps []table.Stepped) error {
	if d.key == nil {
		return nil
	}
	var end *round.Effect
	for i := range steps {
		for j := range steps[i].Effects {
			if e := &steps[i].Effects[j]; e.Kind == round.RoundSettled || e.Kind == round.RoundVoided {
				end = e
			}
		}
	}
	if end == nil {
		return nil
	}
	return d.sign(end.Shoe, end.Round, end.At())
}

// signStart signs the head at start, when the journal holds records past its last
// checkpoint (those of the restart itself, a journal never signed). A journal that names
// no key yet is signed first, then records the key, which it signs again: a journal with
// a key record always holds a checkpoint, so a heads file missing or emptied shows.
func (d *Daemon) signStart() error {
	if d.key == nil {
		return nil
	}
	st := d.node.State()
	at := d.clock.Now()
	if d.j.LastSeq() > d.signed {
		if err := d.sign(st.Shoe, st.Round, at); err != nil {
			return err
		}
	}
	pub := journal.PublicKeyString(d.key.Public().(ed25519.PublicKey))
	if d.node.Signing().Key == pub {
		return nil
	}
	d.node.RecordKey(pub)
	if err := d.carryOut(); err != nil {
		return err
	}
	d.log.Info("the journal is signed with the table's key from here on", "public", pub)
	return d.sign(st.Shoe, st.Round, at)
}

// sign signs the journal's head, keeps the checkpoint in the heads file and queues it,
// retained, on the journal topic, in the envelope of the shoe and round given.
func (d *Daemon) sign(shoe, round uint32, at time.Time) error {
	c, err := d.j.Checkpoint(d.key)
	if err != nil {
		return fmt.Errorf("sign the journal's head: %w", err)
	}
	d.signed = c.Seq
	if d.ship != nil {
		d.ship.signed()
	}
	b, err := json.Marshal(api.JournalHead{Envelope: api.Envelope{Schema: api.Schema, Table: d.cfg.Table,
		Shoe: shoe, Round: round, Seq: d.node.MessageSeq(), At: at}, Checkpoint: messages.WireHead(c)})
	if err != nil {
		return fmt.Errorf("journal head message: %w", err)
	}
	d.out.add(d.topics.Journal(), 0, b, true)
	return nil
}
