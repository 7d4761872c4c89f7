package artifacts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirIsThePackagesOwnUnderTheRoot: without TABLECTL_ARTIFACTS, this package keeps
// its artifacts in test-artifacts/internal/artifacts at the module's root, made for it,
// and Write puts a file there.
func TestDirIsThePackagesOwnUnderTheRoot(t *testing.T) {
	t.Setenv(Env, "")
	dir := Dir(t)
	want, err := filepath.Abs(filepath.Join("..", "..", Root, "internal", "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	if dir != want {
		t.Fatalf("Dir = %s, want %s", dir, want)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("Dir did not make %s: %v", dir, err)
	}
	path := Write(t, "artifacts-check.txt", []byte("kept\n"))
	if b, err := os.ReadFile(path); err != nil || string(b) != "kept\n" || filepath.Dir(path) != dir {
		t.Fatalf("Write kept %s: %q, %v", path, b, err)
	}
	os.Remove(path)
}

// TestEnvMovesTheDirectories: TABLECTL_ARTIFACTS puts the packages' directories under
// it, a relative value from the module's root; the package's path stays.
func TestEnvMovesTheDirectories(t *testing.T) {
	elsewhere := t.TempDir()
	t.Setenv(Env, elsewhere)
	if got, want := Dir(t), filepath.Join(elsewhere, "internal", "artifacts"); got != want {
		t.Errorf("with %s=%s, Dir = %s, want %s", Env, elsewhere, got, want)
	}

	mod := t.TempDir()
	pkg := filepath.Join(mod, "cmd", "tablectl")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ base, want string }{
		{"", filepath.Join(mod, Root, "cmd", "tablectl")},
		{"out/ci", filepath.Join(mod, "out", "ci", "cmd", "tablectl")},
		{elsewhere, filepath.Join(elsewhere, "cmd", "tablectl")},
	} {
		if got, err := under(pkg, c.base); err != nil || got != c.want {
			t.Errorf("under(%s, %q) = %s, %v; want %s", pkg, c.base, got, err, c.want)
		}
	}
	if got, err := under(mod, ""); err != nil || got != filepath.Join(mod, Root) {
		t.Errorf("at the module's root: %s, %v", got, err)
	}
}

// TestNoModuleIsAnError: a directory with no go.mod above it has no artifacts'
// directory, rather than one made somewhere unexpected.
func TestNoModuleIsAnError(t *testing.T) {
	dir := t.TempDir()
	for d := dir; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(filepath.Dir(d), "go.mod")); err == nil {
			t.Skipf("the temporary directory %s is inside a module", dir)
		}
	}
	if got, err := under(dir, ""); err == nil || !strings.Contains(err.Error(), "no go.mod") {
		t.Errorf("under(%s) = %s, %v; want no go.mod", dir, got, err)
	}
}
