//go:build !unix

package journal

// lockDir does nothing where the system has no advisory file locks: tablectl runs on
// Linux; elsewhere the journal only builds.
func lockDir(dir string) (*dirLock, error) { return nil, nil }
