//go:build unix

package journal

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockDir takes the exclusive lock of a journal directory, or fails at once with
// ErrLocked when another process holds it. The lock is on the directory itself, so
// taking it changes nothing on disk.
func lockDir(dir string) (*dirLock, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("journal: lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("journal %s: %w", dir, ErrLocked)
		}
		return nil, fmt.Errorf("journal: lock %s: %w", dir, err)
	}
	return &dirLock{f: f}, nil
}
