//go:build unix

package floorcmd

import (
	"os"
	"syscall"
)

// pause stops process p (SIGSTOP) and resume lets it go on (SIGCONT).
func pause(p *os.Process) error  { return p.Signal(syscall.SIGSTOP) }
func resume(p *os.Process) error { return p.Signal(syscall.SIGCONT) }
