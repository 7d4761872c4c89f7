package journal

import (
	"errors"
	"os"
)

// ErrLocked is the error of opening, for writing, a journal another process has open for
// writing: two writers would interleave their records.
var ErrLocked = errors.New("journal is in use by another process")

// dirLock is a held lock on a journal directory.
type dirLock struct{ f *os.File }

// release lets the lock go; a nil lock does nothing.
func (l *dirLock) release() {
	if l != nil && l.f != nil {
		l.f.Close() // closing the file releases the lock
		l.f = nil
	}
}
