//go:build !windows

package console

// worldBitsMatter reports whether the file mode's bits for others mean anything here.
func worldBitsMatter() bool { return true }
