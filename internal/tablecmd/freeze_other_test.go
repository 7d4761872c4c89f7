//go:build !unix

package tablecmd

import (
	"errors"
	"os"
)

// freeze cannot stop a process here.
func freeze(*os.Process) error { return errors.ErrUnsupported }
