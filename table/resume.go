package table

import "github.com/tablectl/tablectl/round"

// ResumeReplayer returns a Replayer that goes on from controller ctl under settings s,
// as one would after the records that brought them there: a reader that kept the
// controller's state (round.State, restored by round.Restore) need not replay those
// records again.
func ResumeReplayer(ctl *round.Controller, s *Settings) Replayer {
	return Replayer{ctl: ctl, settings: s}
}
