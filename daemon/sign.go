package daemon

import (
	"encoding/json"
	"fmt"

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
	if d.cfg.SigningKey == nil {
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
	c, err := d.j.Checkpoint(d.cfg.SigningKey)
	if err != nil {
		return fmt.Errorf("sign the journal's head: %w", err)
	}
	b, err := json.Marshal(messages.JournalHead{Envelope: messages.Envelope{Schema: messages.Schema, Table: d.cfg.Table,
		Shoe: end.Shoe, Round: end.Round, Seq: d.node.MessageSeq(), At: end.At()}, Checkpoint: c})
	if err != nil {
		return fmt.Errorf("journal head message: %w", err)
	}
	d.out.add(d.topics.Journal(), 0, b, true)
	return nil
}
