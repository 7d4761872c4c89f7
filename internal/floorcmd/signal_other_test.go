//go:build !unix

package floorcmd

import (
	"errors"
	"os"
)

var errNoStop = errors.New("a process cannot be stopped and let go on here")

// pause and resume are unix's alone (signal_unix_test.go).
func pause(*os.Process) error  { return errNoStop }
func resume(*os.Process) error { return errNoStop }
