package tablecmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/journal"
)

// newJournalDir writes a journal of n records with segment size segSize and a snapshot
// at record snap (none when 0), and returns its directory.
func newJournalDir(t *testing.T, n int, segSize int64, snap uint64) string {
	t.Helper()
	dir := t.TempDir()
	j, _, err := journal.Open(dir, journal.Options{SegmentSize: segSize})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if _, err := j.Append(fmt.Appendf(nil, `{"kind":"card","card":"TH","seq":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	if snap > 0 {
		if err := j.WriteSnapshot(snap, []byte(`{"round":3}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestJournalVerifyIntact(t *testing.T) {
	t.Parallel()
	dir := newJournalDir(t, 10, 350, 6)
	out, _, err := runCmd(t, "", "journal", "verify", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"journal " + dir,
		"segments: 4",
		"00000000000000000001.seg  records 1 to 3  (3 records, 301 bytes)",
		"00000000000000000007.seg  records 7 to 9  (3 records, 301 bytes)",
		"00000000000000000010.seg  record 10  (1 record, 136 bytes)",
		"chain: every record, head ",
		"records: 10, sequence 1 to 10",
		"snapshot: covers records up to 6 (11 bytes), unsigned",
		"result: intact",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestJournalVerifyTornTail: verify reports a torn tail with its place, fails, and leaves
// the file as it was.
func TestJournalVerifyTornTail(t *testing.T) {
	t.Parallel()
	dir := newJournalDir(t, 3, 0, 0)
	seg := filepath.Join(dir, "00000000000000000001.seg")
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	torn := append(b, 0x30, 0, 0, 0, 0xaa, 0xbb) // a record header cut short
	if err := os.WriteFile(seg, torn, 0o640); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "", "journal", "verify", dir)
	if err == nil || !strings.Contains(err.Error(), "torn tail") {
		t.Fatalf("error %v\n%s", err, out)
	}
	want := fmt.Sprintf("torn tail: 00000000000000000001.seg at byte %d: 6 bytes of a partial record (short record header: 6 of 48 bytes)", len(b))
	if !strings.Contains(out, want) || !strings.Contains(out, "records: 3, sequence 1 to 3") {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if after, err := os.ReadFile(seg); err != nil || string(after) != string(torn) {
		t.Fatalf("verify changed the segment (%v)", err)
	}
}

func TestJournalVerifyCorrupt(t *testing.T) {
	t.Parallel()
	dir := newJournalDir(t, 3, 0, 0)
	seg := filepath.Join(dir, "00000000000000000001.seg")
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	b[52+48+3] ^= 0x40 // inside the first record's payload; two good records follow
	if err := os.WriteFile(seg, b, 0o640); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "", "journal", "verify", dir)
	if err == nil || !strings.Contains(err.Error(), "journal corrupt: 00000000000000000001.seg at byte 52 (record 1)") {
		t.Fatalf("error %v\n%s", err, out)
	}
	if !strings.Contains(out, "damage: 00000000000000000001.seg at byte 52 (record 1): record checksum mismatch") ||
		!strings.Contains(out, "result: CORRUPT") {
		t.Errorf("output:\n%s", out)
	}
}

func TestJournalCommandErrors(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "none")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"journal"}, "no subcommand given"},
		{[]string{"journal", "mend", "x"}, `unknown subcommand "mend"`},
		{[]string{"journal", "verify"}, "want one journal directory, got 0"},
		{[]string{"journal", "verify", "a", "b"}, "want one journal directory, got 2"},
		{[]string{"journal", "verify", missing}, "no such file or directory"},
	} {
		_, _, err := runCmd(t, "", tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("verify created the missing directory")
	}
}
