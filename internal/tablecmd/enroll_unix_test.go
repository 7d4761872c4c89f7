//go:build unix

package tablecmd

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestEnrollAsRootGivesFilesTheirDirectorysOwner: run as root, the key and the
// password file enroll makes belong to the owner of their directory (the table's state
// directory, the service user's), so the table can read them.
func TestEnrollAsRootGivesFilesTheirDirectorysOwner(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make files of another user")
	}
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 4242, 4243); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "", "enroll", "--table", "t1", "--journal", filepath.Join(dir, "journal"),
		"--password-file", filepath.Join(dir, "mqtt-password")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"journal.key", "mqtt-password"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if sys := st.Sys().(*syscall.Stat_t); sys.Uid != 4242 || sys.Gid != 4243 {
			t.Errorf("%s belongs to %d:%d, want its directory's 4242:4243", f, sys.Uid, sys.Gid)
		}
	}
}
