//go:build !unix

package main

import (
	"errors"
	"os"
)

// freeze cannot stop a process here.
func freeze(*os.Process) error { return errors.ErrUnsupported }
