//go:build linux || darwin

package simulator

import (
	"errors"
	"fmt"
	"os"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal set raw. The master is non-blocking, so that it goes
// through Go's poller and Close interrupts a Write that waits for the driver to read;
// the slave is the side the driver opens by name.
func openPTY() (master, slave *os.File, err error) {
	m, s, err := pty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("open pseudo-terminal: %w", err)
	}
	// Bytes from the device must reach the driver as they are: no echo, no line editing,
	// no CR/LF translation, whoever opens the slave first.
	if err := makeRaw(s); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("set %s raw: %w", s.Name(), err), m.Close(), s.Close())
	}
	// The master from pty.Open is in blocking mode; a non-blocking duplicate goes through
	// Go's poller.
	fd, err := unix.Dup(int(m.Fd()))
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("duplicate pseudo-terminal master: %w", err), m.Close(), s.Close())
	}
	if err := m.Close(); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("close pseudo-terminal master: %w", err), unix.Close(fd), s.Close())
	}
	return os.NewFile(uintptr(fd), "ptmx"), s, nil
}

// makeRaw sets the terminal raw (as cfmakeraw does), with the termios requests of this
// system (ioctlGetTermios, ioctlSetTermios).
func makeRaw(f *os.File) error {
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return err
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	return unix.IoctlSetTermios(fd, ioctlSetTermios, t)
}

// inputQueued is the number of bytes waiting unread in the terminal's input queue.
//
// A poll of the terminal finding no input first waits for the bytes the kernel has not
// yet moved from the writer's side (Linux n_tty_poll flushes the terminal's input buffer
// work), so they are counted too.
func inputQueued(f *os.File) (int, error) {
	fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, 0)
		if err == nil {
			break
		}
		if err != unix.EINTR {
			return 0, fmt.Errorf("poll: %w", err)
		}
	}
	n, err := unix.IoctlGetInt(int(f.Fd()), ioctlInputQueued)
	if err != nil {
		return 0, fmt.Errorf("count the input queue: %w", err)
	}
	return n, nil
}
