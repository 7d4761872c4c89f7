//go:build unix

package tablecmd

import (
	"os"
	"path/filepath"
	"syscall"
)

// dirOf is the directory that holds path.
func dirOf(path string) string { return filepath.Dir(filepath.Clean(path)) }

// ownLike gives path the owner and group of the file at like, when tablectl runs as
// root; otherwise the file stays its maker's, and ownLike does nothing.
func ownLike(path, like string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	st, err := os.Stat(like)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	return os.Chown(path, int(sys.Uid), int(sys.Gid))
}

// ownLikeDir gives path the owner and group of its directory, as ownLike does.
func ownLikeDir(path string) error { return ownLike(path, dirOf(path)) }
