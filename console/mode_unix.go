//go:build !windows

package console

import (
	"io/fs"
	"os"
	"syscall"
)

// worldBitsMatter reports whether the file mode's bits for others mean anything here.
func worldBitsMatter() bool { return true }

// keepOwner gives f the owner and group of the file it replaces, so that a file made
// readable by the console's group stays so after a change.
func keepOwner(f *os.File, old fs.FileInfo) error {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	return f.Chown(int(st.Uid), int(st.Gid))
}
