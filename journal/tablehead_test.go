package journal

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTableHeadNamesItsTable: a head that names its table verifies with the key that
// signed it for that table alone. Another table id, an unnamed head's signature, a
// named head's signature taken as unnamed, another record or another key all fail.
func TestTableHeadNamesItsTable(t *testing.T) {
	t.Parallel()
	pub, key, _ := ed25519.GenerateKey(nil)
	otherPub, _, _ := ed25519.GenerateKey(nil)
	h := ChainHash(Hash{}, 7, []byte("seven"))
	c, err := SignTable(key, "pit3-bac07", 7, h)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Verify(pub) {
		t.Fatal("a named head does not verify with its own key")
	}
	unnamed := Sign(key, 7, h)
	for name, bad := range map[string]Checkpoint{
		"another table":            {Table: "pit3-bac08", Seq: 7, Hash: h, Sig: c.Sig},
		"a prefix of the table":    {Table: "pit3-bac0", Seq: 7, Hash: h, Sig: c.Sig},
		"taken as unnamed":         {Seq: 7, Hash: h, Sig: c.Sig},
		"an unnamed head's, named": {Table: "pit3-bac07", Seq: 7, Hash: h, Sig: unnamed.Sig},
		"another record":           {Table: "pit3-bac07", Seq: 8, Hash: h, Sig: c.Sig},
	} {
		if bad.Verify(pub) {
			t.Errorf("%s: verifies", name)
		}
	}
	if c.Verify(otherPub) {
		t.Error("a named head verifies with another key")
	}
	if !unnamed.Verify(pub) {
		t.Error("an unnamed head no longer verifies")
	}
	for _, table := range []string{"", strings.Repeat("t", MaxTableLen+1)} {
		if _, err := SignTable(key, table, 7, h); err == nil {
			t.Errorf("SignTable(%q): no error", table)
		}
	}

	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), `{"table":"pit3-bac07","seq":7,`) {
		t.Errorf("JSON %s: want the table first", b)
	}
	var back Checkpoint
	if err := json.Unmarshal(b, &back); err != nil || !back.Verify(pub) || back.Table != c.Table {
		t.Errorf("read back %+v, %v: want the head, verifying", back, err)
	}
	b, _ = json.Marshal(unnamed)
	if strings.Contains(string(b), "table") {
		t.Errorf("an unnamed head's JSON %s names a table", b)
	}
}

// TestAddTableHead: a journal copy takes a named head of a record it holds with the hash
// signed, keeps it in its table heads file, and refuses an unnamed one, one of a record
// it has not or of another hash; an unnamed head is refused by the heads file in turn.
func TestAddTableHead(t *testing.T) {
	t.Parallel()
	_, key, _ := ed25519.GenerateKey(nil)
	dir := t.TempDir()
	j, _ := mustOpen(t, dir, Options{})
	defer j.Close()
	appendAll(t, j, 1, 9)
	c9, _ := SignTable(key, "t1", 9, mustHashAt(t, j, 9))
	c4, _ := SignTable(key, "t1", 4, mustHashAt(t, j, 4))
	for _, c := range []Checkpoint{c4, c9} {
		if err := j.AddTableHead(c); err != nil {
			t.Fatal(err)
		}
	}
	wrong, _ := SignTable(key, "t1", 9, ChainHash(Hash{}, 9, []byte("x")))
	beyond, _ := SignTable(key, "t1", 10, mustHashAt(t, j, 9))
	for _, tc := range []struct {
		c    Checkpoint
		want string
	}{
		{Sign(key, 9, mustHashAt(t, j, 9)), "names no table"},
		{wrong, "the journal holds"},
		{beyond, "ends at record 9"},
	} {
		if err := j.AddTableHead(tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddTableHead(record %d): %v, want an error saying %q", tc.c.Seq, err, tc.want)
		}
	}
	if err := j.AddCheckpoint(c9); err == nil || !strings.Contains(err.Error(), "names table t1") {
		t.Errorf("AddCheckpoint(a named head): %v, want it refused", err)
	}
	got, err := j.TableHeads()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Seq != 4 || got[1].Seq != 9 || got[1].Table != "t1" {
		t.Fatalf("table heads %+v: want those of records 4 and 9", got)
	}
	path := filepath.Join(dir, tableHeadsName)
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(b, []byte("{\"seq\":3}\n")...), 0o640); err != nil {
		t.Fatal(err)
	}
	var corrupt *CorruptError
	if _, err := ReadTableHeads(path); !errors.As(err, &corrupt) || corrupt.File != tableHeadsName || corrupt.Offset != int64(len(b)) {
		t.Errorf("a bad line: %v, want a CorruptError at byte %d", err, len(b))
	}
	if hs, err := ReadTableHeads(filepath.Join(t.TempDir(), tableHeadsName)); err != nil || hs != nil {
		t.Errorf("a missing file: %v, %v; want none", hs, err)
	}
}
