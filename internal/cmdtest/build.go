package cmdtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built holds the binaries Binary built, by package: each is built once a test process.
var built struct {
	sync.Mutex
	dir  string
	bins map[string]string
	errs map[string]error
}

// Binary builds the command of pkg (an import path, as github.com/tablectl/tablectl/
// cmd/tablectl) without the race detector, once for the test process, and returns its
// path. A test runs it as a child process where the child's own speed matters, as a
// table killed and started a hundred times: the race detector makes each start several
// times slower and takes the CPU from the test. The test binary's own code, the child's
// in-process tests among it, runs with the detector as before. The build runs with the
// go command the tests were run with (go test puts it first on PATH) and its build
// cache. RemoveBinaries, in the package's TestMain, removes them.
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	built.Lock()
	defer built.Unlock()
	if p, ok := built.bins[pkg]; ok {
		return p
	}
	if err, ok := built.errs[pkg]; ok {
		t.Fatalf("building %s: %v", pkg, err)
	}
	if built.dir == "" {
		dir, err := os.MkdirTemp("", "tablectl-bin-")
		if err != nil {
			t.Fatal(err)
		}
		built.dir, built.bins, built.errs = dir, map[string]string{}, map[string]error{}
	}
	out := filepath.Join(built.dir, filepath.Base(pkg), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	// Pure Go, as the table's binary is built for the Pi (docs/deploy.md), and as
	// .ci/run builds it before the tests: its packages come from the build cache.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		built.errs[pkg] = err
		t.Fatalf("building %s: %v\n%s", pkg, err, b)
	}
	built.bins[pkg] = out
	return out
}

// RemoveBinaries removes what Binary built.
func RemoveBinaries() {
	built.Lock()
	defer built.Unlock()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	built.dir, built.bins, built.errs = "", nil, nil
}
