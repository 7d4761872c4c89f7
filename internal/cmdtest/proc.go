package cmdtest

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/journal"
)

// CPUSeconds is the user and system CPU time the process pid has used, from /proc.
func CPUSeconds(t *testing.T, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command name (which may hold spaces) in parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return float64(utime+stime) / 100 // USER_HZ is 100 on Linux
}

// PeakRSS is the process pid's peak resident memory (VmHWM) in MB, from /proc.
func PeakRSS(t *testing.T, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(kb) / 1024
		}
	}
	t.Fatalf("/proc/%d/status has no VmHWM", pid)
	return 0
}

// JournalHead is the last record of the journal in dir, opened read-only.
func JournalHead(t *testing.T, dir string) (uint64, journal.Hash) {
	t.Helper()
	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	seq, h := j.Head()
	return seq, h
}

// JournalRecords is every record of the journal in dir, opened read-only.
func JournalRecords(t *testing.T, dir string) []journal.Record {
	t.Helper()
	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var out []journal.Record
	for r, err := range j.Records(1) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, journal.Record{Seq: r.Seq, Hash: r.Hash, Data: bytes.Clone(r.Data)})
	}
	return out
}

// RSS is the process pid's resident memory now (VmRSS) in MB, from /proc.
func RSS(t *testing.T, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(kb) / 1024
		}
	}
	t.Fatalf("/proc/%d/status has no VmRSS", pid)
	return 0
}
