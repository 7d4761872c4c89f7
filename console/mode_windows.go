//go:build windows

package console

// worldBitsMatter reports whether the file mode's bits for others mean anything here:
// on Windows access is governed by ACLs, which the mode does not show.
func worldBitsMatter() bool { return false }
