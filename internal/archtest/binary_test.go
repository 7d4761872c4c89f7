package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// floorOnly are the packages that tablectl, the table's binary, must not link: the
// floor's archive and its service, the console, and the database drivers they bring.
var floorOnly = []string{
	module + "archive",
	module + "archive/service",
	module + "console",
	"github.com/jackc/pgx",
	"modernc.org/sqlite",
}

// TestTableBinaryLinksNoFloor: cmd/tablectl and every package it imports, through any
// package (go list -deps), for this machine and for the Pi's arm64 and armv7, hold none
// of floorOnly: the table's binary carries no archive, no console, and no database
// driver. tablectl-floor, listed the same way, has each of them.
func TestTableBinaryLinksNoFloor(t *testing.T) {
	t.Parallel()
	floor := deps(t, "./cmd/tablectl-floor")
	for _, bad := range floorOnly {
		if !linksPrefix(floor, bad) {
			t.Errorf("cmd/tablectl-floor does not link %s: the check of cmd/tablectl below would find nothing", bad)
		}
	}
	for _, target := range [][]string{nil, {"GOOS=linux", "GOARCH=arm64"}, {"GOOS=linux", "GOARCH=arm", "GOARM=7"}} {
		list := deps(t, "./cmd/tablectl", target...)
		for _, bad := range floorOnly {
			if linksPrefix(list, bad) {
				t.Errorf("cmd/tablectl %v links %s: the floor's, which tablectl-floor alone carries", target, bad)
			}
		}
	}
}

// deps lists pkg and every package it imports (go list -deps), built without cgo for
// the target env gives (GOOS=..., GOARCH=...; none: this machine).
func deps(t *testing.T, pkg string, env ...string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		if goTool, err = exec.LookPath(filepath.Join(os.Getenv("GOROOT"), "bin", "go")); err != nil {
			t.Skip("no go command to list the binaries' packages")
		}
	}
	cmd := exec.Command(goTool, "list", "-deps", pkg)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(append(os.Environ(), "CGO_ENABLED=0"), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s %v: %v", pkg, env, err)
	}
	list := strings.Fields(string(out))
	if len(list) < 50 {
		t.Fatalf("go list -deps %s %v: %d packages", pkg, env, len(list))
	}
	return list
}

// linksPrefix tells whether list holds the package p or one under it.
func linksPrefix(list []string, p string) bool {
	for _, dep := range list {
		if dep == p || strings.HasPrefix(dep, p+"/") {
			return true
		}
	}
	return false
}
