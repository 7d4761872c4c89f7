//go:build unix

package tablecmd

import (
	"os"
	"syscall"
)

// freeze stops p where it stands (SIGSTOP), as a machine that stalls it does.
func freeze(p *os.Process) error { return p.Signal(syscall.SIGSTOP) }
