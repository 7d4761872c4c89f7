// Package artifacts gives the tests one place for what they keep to be looked at after
// the run (screenshots, printed reports): test-artifacts/ at the module's root, one
// directory a package under it (test-artifacts/board, test-artifacts/internal/tablecmd).
// The directory is ignored by git. With TABLECTL_ARTIFACTS set, the packages' directories
// are under that one instead (a relative value is taken from the module's root), for a
// CI job to collect them.
package artifacts

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Env names the variable that puts the packages' directories under another directory.
const Env = "TABLECTL_ARTIFACTS"

// Root is the directory at the module's root that holds the packages' directories when
// Env is not set.
const Root = "test-artifacts"

// Dir is the directory where the calling package's tests keep their artifacts, made if
// it was not there: Root (or Env's value) joined with the package's path from the
// module's root, found from the working directory (a package's own, under go test).
func Dir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := under(wd, os.Getenv(Env))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Write keeps data as the file name in the package's directory (Dir), logs where, and
// returns its path.
func Write(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(Dir(t), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("kept %s", path)
	return path
}

// under is the artifacts' directory of the package at dir: base (Root when empty,
// relative values from the module's root) joined with dir's path from the module's root.
func under(dir, base string) (string, error) {
	root, err := moduleRoot(dir)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return "", err
	}
	if base == "" {
		base = Root
	}
	if !filepath.IsAbs(base) {
		base = filepath.Join(root, base)
	}
	return filepath.Join(base, rel), nil
}

// moduleRoot is the nearest directory from dir up that holds a go.mod.
func moduleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("artifacts: no go.mod in " + dir + " or above it")
		}
	}
}
