package tablecmd

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/journal"
)

// signedTable writes a journal of n card records in dir with a checkpoint signed by key
// after each record, changing record changed's card (none when 0), and returns the
// checkpoints as a witness would have recorded them, one JSON line each.
func signedTable(t *testing.T, dir string, key ed25519.PrivateKey, n, changed int) string {
	t.Helper()
	j, _, err := journal.Open(dir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var lines []string
	for i := 1; i <= n; i++ {
		card := "TH"
		if i == changed {
			card = "9S"
		}
		if _, err := j.Append(fmt.Appendf(nil, `{"kind":"card","card":"%s","seq":%d}`, card, i)); err != nil {
			t.Fatal(err)
		}
		c, err := j.Checkpoint(key)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(struct {
			Type       string             `json:"type"`
			Checkpoint journal.Checkpoint `json:"checkpoint"`
		}{"result", c})
		lines = append(lines, string(b))
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestKeyShowAndVerifySignatures: the key is created with mode 0600 and shown as the pit
// needs it; verify checks the signatures with it, refuses another key, and with a
// witness catches a journal rewritten and signed again with the table's own key.
func TestKeyShowAndVerifySignatures(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "journal")
	key, created, err := journal.LoadOrCreateKey(journal.DefaultKeyPath(dir))
	if err != nil || !created {
		t.Fatalf("create key: %v %v", created, err)
	}
	if st, _ := os.Stat(filepath.Join(base, "journal.key")); st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %04o, want 0600", st.Mode().Perm())
	}
	again, created, err := journal.LoadOrCreateKey(journal.DefaultKeyPath(dir))
	if err != nil || created || !again.Equal(key) {
		t.Fatalf("second load: created %v, same %v, %v", created, again.Equal(key), err)
	}
	witness := signedTable(t, dir, key, 5, 0)
	witnessFile := filepath.Join(base, "witness.jsonl")
	if err := os.WriteFile(witnessFile, []byte(witness), 0o644); err != nil {
		t.Fatal(err)
	}

	out, _, err := runCmd(t, "", "key", "show", "--journal", dir)
	pub := strings.TrimSpace(out)
	if err != nil || pub != journal.PublicKeyString(key.Public().(ed25519.PublicKey)) {
		t.Fatalf("key show: %q %v", out, err)
	}
	out, _, err = runCmd(t, "", "journal", "verify", "--key", pub, "--witness", witnessFile, dir)
	if err != nil || !strings.Contains(out, "checkpoints: 5, the last at record 5, signatures checked with "+pub) ||
		!strings.Contains(out, "witness "+witnessFile+": 5 checkpoints") || !strings.Contains(out, "result: intact") {
		t.Fatalf("verify of an intact journal: %v\n%s", err, out)
	}

	otherKey := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	other := journal.PublicKeyString(otherKey.Public().(ed25519.PublicKey))
	out, _, err = runCmd(t, "", "journal", "verify", "--key", other, dir)
	if err == nil || !strings.Contains(out, "tampered: heads: checkpoint of record 1: signature does not verify") ||
		!strings.Contains(out, "result: TAMPERED") {
		t.Fatalf("verify with another key: %v\n%s", err, out)
	}

	// Someone with the Pi's key rewrites the journal from the first record.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	signedTable(t, dir, key, 5, 3)
	out, _, err = runCmd(t, "", "journal", "verify", "--key", pub, dir)
	if err != nil || !strings.Contains(out, "result: intact") {
		t.Fatalf("without a witness the rewrite passes its own signatures: %v\n%s", err, out)
	}
	out, _, err = runCmd(t, "", "journal", "verify", "--key", pub, "--witness", witnessFile, dir)
	if err == nil || !strings.Contains(out, "tampered: witness: checkpoint of record 3: record 3's chain hash is") ||
		strings.Contains(out, "checkpoint of record 2:") || !strings.Contains(out, "result: TAMPERED") {
		t.Fatalf("verify against the witness: %v\n%s", err, out)
	}
}

func TestKeyErrors(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	loose := filepath.Join(base, "loose.key")
	if _, _, err := journal.LoadOrCreateKey(loose); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"key", "show", "--key", loose}, "mode 0644 lets others read it"},
		{[]string{"key", "show", "--key", filepath.Join(base, "none")}, "no such file"},
		{[]string{"key", "show"}, "give one of --key FILE or --journal DIR"},
		{[]string{"key"}, "want the subcommand show"},
		{[]string{"journal", "verify", "--key", "AAAA", base}, `want "ed25519:"`},
		{[]string{"journal", "verify", "--witness", filepath.Join(base, "none"), base}, "witness"},
	} {
		_, _, err := runCmd(t, "", tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.args, err, tc.want)
		}
	}
	bad := filepath.Join(base, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"seq":1}`+"\n"), 0o644)
	if _, _, err := runCmd(t, "", "journal", "verify", "--witness", bad, base); err == nil || !strings.Contains(err.Error(), bad+":1") {
		t.Errorf("bad witness line: %v", err)
	}
}

// TestJournalArchiveCommand archives the records of the days before a date: the archive
// and the journal left both verify, and the day's records stay.
func TestJournalArchiveCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, _, err := journal.Open(dir, journal.Options{SegmentSize: 400})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 12; i++ {
		day := 1 + (i-1)/4 // records 1-4 on March 1, 5-8 on March 2, 9-12 on March 3
		if _, err := j.Append(fmt.Appendf(nil, `{"event":{"kind":"card","at":"2026-03-%02dT10:00:%02dZ","card":"TH"}}`, day, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.WriteSnapshot(12, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	j.Close()
	dest := filepath.Join(t.TempDir(), "archive")
	out, _, err := runCmd(t, "", "journal", "archive", dir, "--before", "2026-03-03", "--to", dest)
	if err != nil || !strings.Contains(out, "records 1 to ") {
		t.Fatalf("archive: %v\n%s", err, out)
	}
	for _, d := range []string{dir, dest} {
		if out, _, err := runCmd(t, "", "journal", "verify", d); err != nil || !strings.Contains(out, "result: intact") {
			t.Fatalf("verify %s: %v\n%s", d, err, out)
		}
	}
	out, _, _ = runCmd(t, "", "journal", "verify", dir)
	if !strings.Contains(out, "sequence ") || strings.Contains(out, "sequence 1 to") {
		t.Fatalf("the journal still starts at record 1:\n%s", out)
	}
	if !strings.Contains(out, "records: ") {
		t.Fatal(out)
	}
	a, rep, err := journal.Open(dest, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if rep.FirstSeq != 1 || rep.LastSeq > 8 || rep.LastSeq < 3 {
		t.Fatalf("archive holds records %d to %d; want from 1, none of March 3 (9 on)", rep.FirstSeq, rep.LastSeq)
	}
	if _, _, err := runCmd(t, "", "journal", "archive", dir, "--before", "March", "--to", dest); err == nil || !strings.Contains(err.Error(), "want a day") {
		t.Fatalf("bad date: %v", err)
	}
}

// TestRunSignsItsJournal: a table makes its signing key on the first start, beside its
// journal, signs the chain head at start and at each round's end, and verify checks the
// signatures with the key `key show` prints.
func TestRunSignsItsJournal(t *testing.T) {
	t.Parallel()
	jdir := filepath.Join(t.TempDir(), "journal")
	if out, _, err := runCmd(t, "", "run", "--simulate", "--pace", "0", "--rounds", "5", "--journal", jdir,
		"--http", "", "--broker-listen", "127.0.0.1:0", "--broker-websocket", ""); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	st, err := os.Stat(journal.DefaultKeyPath(jdir))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the table's key: %v %v", st, err)
	}
	pub, _, err := runCmd(t, "", "key", "show", "--journal", jdir)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "", "journal", "verify", "--key", strings.TrimSpace(pub), jdir)
	// Two at start (the settings, then the key record), then one a round.
	if err != nil || !strings.Contains(out, "checkpoints: 7, the last at record") || !strings.Contains(out, "result: intact") {
		t.Fatalf("verify: %v\n%s", err, out)
	}
}

// TestKeyOfAnEarlierVersion: a journal whose key is at the old place (table.key beside
// its directory) and not at its own: key show prints it and says where to move it; key
// new, enroll and journal recover refuse to make another, naming the old file and the
// move.
func TestKeyOfAnEarlierVersion(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "journal")
	key, _, err := journal.LoadOrCreateKey(journal.OldKeyPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(base, "table.key")
	out, errs, err := runCmd(t, "", "key", "show", "--journal", dir)
	if err != nil || strings.TrimSpace(out) != journal.PublicKeyString(key.Public().(ed25519.PublicKey)) ||
		!strings.Contains(errs, "at the old place "+old) || !strings.Contains(errs, "move it to "+filepath.Join(base, "journal.key")) {
		t.Fatalf("key show: %v\n%s\n%s", err, out, errs)
	}
	for _, args := range [][]string{
		{"key", "new", "--journal", dir},
		{"enroll", "--table", "t1", "--journal", dir},
		{"journal", "recover", "--by", "S1", "--reason", "a test", dir},
	} {
		if _, _, err := runCmd(t, "", args...); err == nil || !strings.Contains(err.Error(), old) {
			t.Errorf("%v: %v, want a refusal naming %s", args, err, old)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "journal.key")); !os.IsNotExist(err) {
		t.Fatalf("a key was made beside the journal: %v", err)
	}
}
