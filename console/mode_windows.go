//go:build windows

package console

import (
	"io/fs"
	"os"
)

// worldBitsMatter reports whether the file mode's bits for others mean anything here:
// on Windows access is governed by ACLs, which the mode does not show.
func worldBitsMatter() bool { return false }

// keepOwner does nothing on Windows, where the new file inherits the folder's ACL.
func keepOwner(*os.File, fs.FileInfo) error { return nil }
