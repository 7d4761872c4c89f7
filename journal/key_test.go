package journal

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestTablesStartingTogetherShareOneKey: tables started at once beside the same
// directory either make the key or read it whole; they all get the same key, and the
// file is readable by its owner only.
func TestTablesStartingTogetherShareOneKey(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "table.key")
	const n = 8
	keys := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, _, err := LoadOrCreateKey(path)
			keys[i], errs[i] = k, err
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("table %d: %v", i, errs[i])
		}
		if string(keys[i]) != string(keys[0]) {
			t.Fatalf("table %d has another key", i)
		}
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", st, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
}
