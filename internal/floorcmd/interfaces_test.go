package floorcmd

import (
	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/console"
)

// The archive's reader is what the console reads the floor's past through: its History
// page, the alerts raised before a start, and the Pit page's figures.
var (
	_ console.History      = (*archive.DB)(nil)
	_ console.AlertHistory = (*archive.DB)(nil)
	_ console.PitFigures   = (*archive.DB)(nil)
)
