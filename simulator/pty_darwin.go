package simulator

import (
	"os"

	"golang.org/x/sys/unix"
)

// macOS's termios requests (tcgetattr, tcsetattr(TCSANOW)) and its count of the bytes
// waiting in a terminal's input queue.
const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA
	// ioctlInputQueued is FIONREAD of <sys/filio.h>, _IOR('f', 127, int), which
	// golang.org/x/sys/unix does not define for darwin.
	ioctlInputQueued = 0x4004667f
)

// flushInput throws away what waits unread in the terminal's input queue: TIOCFLUSH
// with FREAD, which is what tcflush(TCIFLUSH) does on macOS (TCIFLUSH is FREAD there).
func flushInput(f *os.File) error {
	return unix.IoctlSetPointerInt(int(f.Fd()), unix.TIOCFLUSH, unix.TCIFLUSH)
}
