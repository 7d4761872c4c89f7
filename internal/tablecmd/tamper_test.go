package tablecmd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/journal"
)

// The tamper tests of the table itself: journals damaged as a person with docs/journal.md
// in hand would damage them, every checksum, SHA-256 and chain hash a change touches made
// good again, are refused by `tablectl run`, which names the damage and the command to
// inspect it.

// dealtTable deals rounds of one-deck shoes (a snapshot at each shoe's end) into a
// journal under a new directory, its key beside it, and returns the journal directory.
func dealtTable(t *testing.T, rounds int, args ...string) string {
	t.Helper()
	jdir := filepath.Join(t.TempDir(), "journal")
	all := append([]string{"run", "--simulate", "--pace", "0", "--rounds", strconv.Itoa(rounds), "--decks", "1", "--journal", jdir}, args...)
	if len(args) == 0 {
		all = append(all, noBroker...)
	}
	if out, logged, err := runTo(t, all...); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, logged)
	}
	return jdir
}

// copyTable copies a table's directory (its journal and key) to a new one and returns the
// copy's journal directory.
func copyTable(t *testing.T, jdir string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Dir(jdir))); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(root, filepath.Base(jdir))
	if err := os.Chmod(journal.DefaultKeyPath(copied), 0o600); err != nil {
		t.Fatal(err)
	}
	return copied
}

// resegment writes the journal's records again in segments of segSize bytes: the same
// records with the same chain, so its heads and snapshot still hold.
func resegment(t *testing.T, jdir string, segSize int64) {
	t.Helper()
	j, _, err := journal.Open(jdir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	n, _, err := journal.Open(tmp, journal.Options{SegmentSize: segSize})
	if err != nil {
		t.Fatal(err)
	}
	for r, err := range j.Records(1) {
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.AppendNoSync(r.Data); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range segmentFiles(t, jdir) {
		os.Remove(filepath.Join(jdir, name))
	}
	for _, name := range segmentFiles(t, tmp) {
		b, err := os.ReadFile(filepath.Join(tmp, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(jdir, name), b, 0o640); err != nil {
			t.Fatal(err)
		}
	}
}

// segmentFiles are the segment files of the journal in dir, in order.
func segmentFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".seg") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}

var castagnoliTable = crc32.MakeTable(crc32.Castagnoli)

// rechain rewrites a segment's records after edit changed their payloads: each record's
// chain hash (SHA-256 of the previous hash, its sequence number and payload) and checksum
// recomputed from the segment's chain-in, as docs/journal.md lays them out.
func rechain(seg []byte, edit func(seq uint64, payload []byte) []byte) []byte {
	out := bytes.Clone(seg[:52])
	var prev [32]byte
	copy(prev[:], seg[16:48])
	for off := 52; off < len(seg); {
		n := int(binary.LittleEndian.Uint32(seg[off:]))
		seq := binary.LittleEndian.Uint64(seg[off+8:])
		p := edit(seq, bytes.Clone(seg[off+48:off+48+n]))
		off += 48 + n
		d := sha256.New()
		d.Write(prev[:])
		d.Write(binary.LittleEndian.AppendUint64(nil, seq))
		d.Write(p)
		copy(prev[:], d.Sum(nil))
		rec := binary.LittleEndian.AppendUint32(nil, uint32(len(p)))
		rec = append(rec, 0, 0, 0, 0)
		rec = binary.LittleEndian.AppendUint64(rec, seq)
		rec = append(append(rec, prev[:]...), p...)
		crc := crc32.Update(crc32.Checksum(rec[0:4], castagnoliTable), castagnoliTable, rec[8:])
		binary.LittleEndian.PutUint32(rec[4:8], crc)
		out = append(out, rec...)
	}
	return out
}

var shoeField = regexp.MustCompile(`"Shoe":(\d+)`)

// forgeSnapshot moves the snapshot's shoe on by 6 and makes its checksum, and its SHA-256
// when it has one, good again.
func forgeSnapshot(t *testing.T, jdir string) {
	t.Helper()
	path := filepath.Join(jdir, "snapshot")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hdr, lenAt, crcAt := 156, 144, 152 // format 3: the data's SHA-256 at 48:80
	if v := binary.LittleEndian.Uint16(b[4:6]); v == 2 {
		hdr, lenAt, crcAt = 60, 48, 56
	}
	data := b[hdr:]
	m := shoeField.FindSubmatch(data)
	if m == nil {
		t.Fatalf("no shoe in the snapshot %q", data)
	}
	shoe, _ := strconv.Atoi(string(m[1]))
	data = shoeField.ReplaceAll(data, fmt.Appendf(nil, `"Shoe":%d`, shoe+6))
	b = append(b[:hdr:hdr], data...)
	binary.LittleEndian.PutUint64(b[lenAt:], uint64(len(data)))
	if hdr == 156 {
		d := sha256.Sum256(data)
		copy(b[48:80], d[:])
	}
	binary.LittleEndian.PutUint32(b[crcAt:], crc32.Update(crc32.Checksum(b[:crcAt], castagnoliTable), castagnoliTable, data))
	if err := os.WriteFile(path, b, 0o640); err != nil {
		t.Fatal(err)
	}
}

// refusedRun runs the table on the journal and fails unless it refuses to start with an
// error holding each of want and the command to inspect the journal.
func refusedRun(t *testing.T, jdir string, want ...string) error {
	t.Helper()
	return refusedRun2(t, jdir, noBroker, want...)
}

// TestRunRefusesDamagedJournals: a forged snapshot, a segment copied in from another
// table's journal, a chain recomputed inside a sealed segment, a deleted heads file and a
// missing key: each journal is refused by run, with its damage named.
func TestRunRefusesDamagedJournals(t *testing.T) {
	t.Parallel()
	base := dealtTable(t, 30)
	resegment(t, base, 2048)
	if n := len(segmentFiles(t, base)); n < 6 {
		t.Fatalf("want several segments, have %d", n)
	}
	pub, _, err := runCmd(t, "", "key", "show", "--journal", base)
	if err != nil {
		t.Fatal(err)
	}
	pub = strings.TrimSpace(pub)
	if out, _, err := runCmd(t, "", "journal", "verify", "--key", pub, base); err != nil {
		t.Fatalf("the journal resegmented does not verify: %v\n%s", err, out)
	}

	t.Run("forged snapshot", func(t *testing.T) {
		jdir := copyTable(t, base)
		forgeSnapshot(t, jdir)
		refusedRun(t, jdir, "snapshot", "signature does not verify")
		out, _, err := runCmd(t, "", "journal", "verify", "--key", pub, jdir)
		if err == nil || !strings.Contains(out, "result: TAMPERED") || !strings.Contains(out, "snapshot") {
			t.Errorf("verify --key of the forged snapshot: %v\n%s", err, out)
		}
	})

	t.Run("chain recomputed in a sealed segment", func(t *testing.T) {
		jdir := copyTable(t, base)
		segs := segmentFiles(t, jdir)
		path := filepath.Join(jdir, segs[1])
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		first := binary.LittleEndian.Uint64(b[8:16])
		changed := false
		b = rechain(b, func(seq uint64, p []byte) []byte {
			if seq > first && !changed && bytes.Contains(p, []byte(`"card":"`)) {
				i := bytes.Index(p, []byte(`"card":"`)) + len(`"card":"`)
				if p[i] == '9' { // one card for another: 9 to 8, any other rank to 9
					p[i] = '8'
				} else {
					p[i] = '9'
				}
				changed = true
			}
			return p
		})
		if !changed {
			t.Fatal("no card in the segment")
		}
		if err := os.WriteFile(path, b, 0o640); err != nil {
			t.Fatal(err)
		}
		refusedRun(t, jdir, segs[2], "segment does not chain")
		if out, _, err := runCmd(t, "", "journal", "verify", "--key", pub, jdir); err == nil || !strings.Contains(out, "result: CORRUPT") {
			t.Errorf("verify of a chain recomputed in a sealed segment: %v\n%s", err, out)
		}
	})

	t.Run("heads deleted", func(t *testing.T) {
		jdir := copyTable(t, base)
		os.Remove(filepath.Join(jdir, "heads"))
		refusedRun(t, jdir, "heads", "missing")
		if out, _, err := runCmd(t, "", "journal", "verify", "--key", pub, jdir); err == nil ||
			!strings.Contains(out, "a key was given but nothing in the journal is signed") || !strings.Contains(out, "result: TAMPERED") {
			t.Errorf("verify --key without heads: %v\n%s", err, out)
		}
	})

	t.Run("key missing", func(t *testing.T) {
		jdir := copyTable(t, base)
		keyFile := journal.DefaultKeyPath(jdir)
		os.Remove(keyFile)
		refusedRun(t, jdir, "key file "+keyFile+" is missing", pub, "tablectl journal recover")
		if _, err := os.Stat(keyFile); err == nil {
			t.Error("a refused start made a new key")
		}
		if out, _, err := runCmd(t, "", "journal", "verify", "--key", pub, jdir); err != nil || !strings.Contains(out, "result: intact") {
			t.Errorf("verify of the journal whose key file is missing: %v\n%s", err, out)
		}
	})

	t.Run("snapshot data edited, CRC alone fixed", func(t *testing.T) {
		jdir := copyTable(t, base)
		path := filepath.Join(jdir, "snapshot")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b = shoeField.ReplaceAllFunc(b, func(m []byte) []byte { // one shoe for another: its last digit changed
			last := byte('9')
			if m[len(m)-1] == '9' {
				last = '8'
			}
			return append(m[:len(m)-1:len(m)-1], last)
		})
		binary.LittleEndian.PutUint32(b[152:], crc32.Update(crc32.Checksum(b[:152], castagnoliTable), castagnoliTable, b[156:]))
		if err := os.WriteFile(path, b, 0o640); err != nil {
			t.Fatal(err)
		}
		refusedRun(t, jdir, "snapshot", "does not match the SHA-256")
		if out, _, err := runCmd(t, "", "journal", "verify", "--key", pub, jdir); err == nil || !strings.Contains(out, "result: CORRUPT") {
			t.Errorf("verify: %v\n%s", err, out)
		}
	})
}

// TestRunRefusesASegmentOfAnotherTable: a segment copied in from another table's journal
// under the same name is refused, however far before the last checkpoint it lies.
func TestRunRefusesASegmentOfAnotherTable(t *testing.T) {
	t.Parallel()
	ours := dealtTable(t, 12)
	theirs := dealtTable(t, 12, append([]string{"--seed", "7"}, noBroker...)...)
	resegment(t, ours, 1) // one record a segment: the names of the two journals agree
	resegment(t, theirs, 1)
	segs := segmentFiles(t, ours)
	name := segs[len(segs)/3]
	b, err := os.ReadFile(filepath.Join(theirs, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ours, name), b, 0o640); err != nil {
		t.Fatal(err)
	}
	refusedRun(t, ours, name, "segment does not chain")
}

// startsOn runs the table on the journal for a round, failing the test if it refuses.
func startsOn(t *testing.T, jdir string, args ...string) string {
	t.Helper()
	if len(args) == 0 {
		args = noBroker
	}
	out, logged, err := runTo(t, append([]string{"run", "--simulate", "--pace", "0", "--rounds", "1", "--decks", "1", "--journal", jdir}, args...)...)
	if err != nil {
		t.Fatalf("the table does not start: %v\n%s\n%s", err, out, logged)
	}
	return logged
}

// TestRecoverRecordsWhatWasLost: a supervisor's recovery records in the journal what was
// lost (a heads file, a key, a forged snapshot), sets aside the files the table refused
// and signs the journal again, and the table starts; `journal replay` shows the record.
func TestRecoverRecordsWhatWasLost(t *testing.T) {
	t.Parallel()
	base := dealtTable(t, 30)

	jdir := copyTable(t, base)
	if out, _, err := runCmd(t, "", "journal", "recover", "--by", "S17", "--reason", "check", jdir); err != nil ||
		!strings.Contains(out, "nothing to recover") {
		t.Fatalf("recover of an intact journal: %v\n%s", err, out)
	}

	// The heads file deleted.
	os.Remove(filepath.Join(jdir, "heads"))
	refusedRun(t, jdir, "heads")
	if _, _, err := runCmd(t, "", "journal", "recover", jdir); err == nil || !strings.Contains(err.Error(), "--by NAME and --reason TEXT are required") {
		t.Fatalf("recover without a name: %v", err)
	}
	out, _, err := runCmd(t, "", "journal", "recover", "--by", "S17", "--reason", "heads deleted by mistake", jdir)
	if err != nil || !strings.Contains(out, "lost: the heads file, missing or empty") || !strings.Contains(out, "signed: checkpoint of record") {
		t.Fatalf("recover: %v\n%s", err, out)
	}
	startsOn(t, jdir)
	out, _, err = runCmd(t, "", "journal", "replay", jdir)
	if err != nil || !strings.Contains(out, "recovery by S17: heads deleted by mistake") || !strings.Contains(out, "lost: the heads file") {
		t.Fatalf("replay shows no recovery: %v\n%s", err, out)
	}

	// The key file missing: recovered with a new key, which signs from then on.
	jdir = copyTable(t, base)
	oldPub, _, _ := runCmd(t, "", "key", "show", "--journal", jdir)
	oldPub = strings.TrimSpace(oldPub)
	os.Remove(journal.DefaultKeyPath(jdir))
	refusedRun(t, jdir, "key file")
	if _, _, err := runCmd(t, "", "journal", "recover", "--by", "S17", "--reason", "card swapped", jdir); err == nil ||
		!strings.Contains(err.Error(), "--new-key") {
		t.Fatalf("recover without --new-key: %v", err)
	}
	out, _, err = runCmd(t, "", "journal", "recover", "--by", "S17", "--reason", "key lost with the old card", "--new-key", jdir)
	if err != nil || !strings.Contains(out, "the key "+oldPub+" the journal was signed with") || !strings.Contains(out, "set aside: snapshot") {
		t.Fatalf("recover with a new key: %v\n%s", err, out)
	}
	newPub, _, _ := runCmd(t, "", "key", "show", "--journal", jdir)
	newPub = strings.TrimSpace(newPub)
	if newPub == oldPub || !strings.Contains(out, newPub) {
		t.Fatalf("new key %s, old %s:\n%s", newPub, oldPub, out)
	}
	startsOn(t, jdir)
	out, _, err = runCmd(t, "", "journal", "verify", "--key", oldPub, "--key", newPub, jdir)
	if err != nil || !strings.Contains(out, "result: intact") {
		t.Fatalf("verify with both keys: %v\n%s", err, out)
	}

	// A forged snapshot: set aside, the table replays the records.
	jdir = copyTable(t, base)
	forgeSnapshot(t, jdir)
	refusedRun(t, jdir, "snapshot")
	out, _, err = runCmd(t, "", "journal", "recover", "--by", "S17", "--reason", "snapshot found changed", jdir)
	if err != nil || !strings.Contains(out, "set aside: snapshot as snapshot.lost-") {
		t.Fatalf("recover a forged snapshot: %v\n%s", err, out)
	}
	startsOn(t, jdir)
}

// TestRunRefusesARollbackTheBrokerSaw: the table publishes each signed head retained on
// its broker; a journal cut back behind it (its last segment deleted and its heads file
// cut to match, which its own checks cannot tell) is refused at the next start, naming
// both heads. A supervisor's recovery, reading the same broker, records the records lost,
// and the table starts again.
func TestRunRefusesARollbackTheBrokerSaw(t *testing.T) {
	t.Parallel()
	b := mosquittotest.Start(t, mosquittotest.Config{})
	mqttArgs := []string{"--mqtt", b.URL(), "--http", ""}
	jdir := dealtTable(t, 30, mqttArgs...)
	resegment(t, jdir, 2048)
	pub, _, _ := runCmd(t, "", "key", "show", "--journal", jdir)
	pub = strings.TrimSpace(pub)

	// The last segment deleted, the heads cut back to the last checkpoint before it.
	segs := segmentFiles(t, jdir)
	last := segs[len(segs)-1]
	first, err := strconv.ParseUint(strings.TrimSuffix(last, ".seg"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(jdir, last))
	heads, err := os.ReadFile(filepath.Join(jdir, "heads"))
	if err != nil {
		t.Fatal(err)
	}
	for len(heads) >= 108 && binary.LittleEndian.Uint64(heads[len(heads)-108:]) >= first {
		heads = heads[:len(heads)-108]
	}
	if err := os.WriteFile(filepath.Join(jdir, "heads"), heads, 0o640); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runCmd(t, "", "journal", "verify", "--key", pub, jdir); err != nil || !strings.Contains(out, "result: intact") {
		t.Fatalf("the journal cut back passes its own checks: %v\n%s", err, out)
	}
	// A witness that kept the head the broker holds catches it too.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	head, err := display.ReadRetained(ctx, display.Options{Broker: b.URL(), Table: "table-1", Logger: cli.NewLogger(false, io.Discard)},
		"tablectl/v1/table-1/journal", 5*time.Second)
	cancel()
	if err != nil || head == nil {
		t.Fatalf("the broker's head: %s %v", head, err)
	}
	witness := filepath.Join(t.TempDir(), "witness.jsonl")
	if err := os.WriteFile(witness, append(head, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runCmd(t, "", "journal", "verify", "--key", pub, "--witness", witness, jdir); err == nil || !strings.Contains(out, "result: TAMPERED") {
		t.Fatalf("verify with the witness: %v\n%s", err, out)
	}
	refusedRun2(t, jdir, mqttArgs, "rolled back", b.URL(), fmt.Sprintf("the journal ends at record %d", first-1),
		"tablectl journal recover", "--config FILE")

	config := filepath.Join(t.TempDir(), "tablectl.yaml")
	if err := os.WriteFile(config, fmt.Appendf(nil, "journal: %s\nmqtt:\n  url: %s\n", jdir, b.URL()), 0o640); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "", "journal", "recover", "--by", "S17", "--reason", "card restored from the image of the day before", "--config", config, jdir)
	if err != nil || !strings.Contains(out, "rolled back: the broker "+b.URL()) {
		t.Fatalf("recover: %v\n%s", err, out)
	}
	startsOn(t, jdir, mqttArgs...)
	// And again: the broker now holds the head the table signed after the recovery.
	startsOn(t, jdir, mqttArgs...)
}

// refusedRun2 is refusedRun with the run's broker arguments given.
func refusedRun2(t *testing.T, jdir string, args []string, want ...string) error {
	t.Helper()
	out, logged, err := runTo(t, append([]string{"run", "--simulate", "--pace", "0", "--rounds", "1", "--decks", "1", "--journal", jdir}, args...)...)
	if err == nil {
		t.Fatalf("the table started on the damaged journal:\n%s\n%s", out, logged)
	}
	for _, w := range append(want, "tablectl journal verify") {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the refusal %q does not say %q", err, w)
		}
	}
	return err
}
