package simulator

import (
	"os"

	"golang.org/x/sys/unix"
)

// Linux's termios requests (tcgetattr, tcsetattr(TCSANOW)) and its count of the bytes
// waiting in a terminal's input queue.
const (
	ioctlGetTermios  = unix.TCGETS
	ioctlSetTermios  = unix.TCSETS
	ioctlInputQueued = unix.TIOCINQ
)

// flushInput throws away what waits unread in the terminal's input queue
// (tcflush(TCIFLUSH)).
func flushInput(f *os.File) error {
	return unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH)
}
