package table

import (
	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/round"
)

// statusOf is the status message of the table in state st, made from in, with the
// notices of the table's settings: that it offers no Insurance though its rule set has
// it (round.Config.NoInsurance), for the notice NC Insurance 4.2.2 asks displayed at the
// table.
func (n *Node) statusOf(st round.State, in messages.StatusInfo) api.Status {
	s := messages.NewStatus(st, in)
	s.NoInsurance = n.cfg.Round.NoInsurance && n.cfg.Round.Rules.Insurance
	return s
}
