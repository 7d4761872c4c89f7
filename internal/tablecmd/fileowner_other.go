//go:build !unix

package tablecmd

import "path/filepath"

// dirOf is the directory that holds path.
func dirOf(path string) string { return filepath.Dir(filepath.Clean(path)) }

// ownLike does nothing where files have no Unix owner.
func ownLike(path, like string) error { return nil }

// ownLikeDir does nothing where files have no Unix owner.
func ownLikeDir(path string) error { return nil }
