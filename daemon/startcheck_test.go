package daemon

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/table"
)

// signedTable runs a table with its key in a file beside the journal (made on its first
// start) for two rounds, and returns its configuration, the key and the journal's last
// signed head.
func signedTable(t *testing.T) (Config, ed25519.PrivateKey, journal.Checkpoint) {
	t.Helper()
	root := t.TempDir()
	cfg := testConfig(t, filepath.Join(root, "journal"))
	cfg.KeyFile = journal.DefaultKeyPath(cfg.JournalDir)
	r := startWith(t, cfg, nil)
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.f.cards(t, "9H 5C KS KD 2H 3D 4C 5D")
	r.settle(t)
	r.close(t)
	key, err := journal.LoadKey(cfg.KeyFile)
	if err != nil {
		t.Fatalf("the table made no key: %v", err)
	}
	heads, err := journal.ReadHeads(filepath.Join(cfg.JournalDir, "heads"))
	if err != nil || len(heads) < 3 {
		t.Fatalf("heads: %d, %v", len(heads), err)
	}
	return cfg, key, heads[len(heads)-1]
}

// refusedWith opens a table on cfg and returns the RefusedError it gives; the journal is
// left as it was.
func refusedWith(t *testing.T, cfg Config, what string) *RefusedError {
	t.Helper()
	before := dirBytes(t, cfg.JournalDir)
	d, err := Open(cfg)
	if err == nil {
		d.Close()
		t.Fatalf("%s: the table started", what)
	}
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("%s: %v, want a *RefusedError", what, err)
	}
	if !strings.Contains(err.Error(), "tablectl journal verify") || !strings.Contains(err.Error(), cfg.JournalDir) {
		t.Errorf("%s: %q names no command to inspect the journal", what, err)
	}
	if after := dirBytes(t, cfg.JournalDir); !bytes.Equal(after, before) {
		t.Errorf("%s: the refused start changed the journal", what)
	}
	return re
}

// dirBytes is the contents of every file of dir, in name order.
func dirBytes(t *testing.T, dir string) []byte {
	t.Helper()
	var all []byte
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			all = append(append(all, e.Name()...), b...)
		}
	}
	return all
}

// TestStartRefusesLostSigning: a journal signed before is refused when its key file is
// missing or holds another key, when its heads file is missing, emptied or damaged, or
// when its snapshot is not the table's; each refusal names the damage, the command to
// inspect it and the supervisor's recovery command.
func TestStartRefusesLostSigning(t *testing.T) {
	t.Parallel()
	cfg, key, _ := signedTable(t)
	keyBytes, err := os.ReadFile(cfg.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	heads := filepath.Join(cfg.JournalDir, "heads")
	headBytes, err := os.ReadFile(heads)
	if err != nil {
		t.Fatal(err)
	}
	restore := func() {
		t.Helper()
		if err := os.WriteFile(cfg.KeyFile, keyBytes, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(heads, headBytes, 0o640); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(cfg.JournalDir, "snapshot"))
	}
	pub := journal.PublicKeyString(key.Public().(ed25519.PublicKey))

	// The key file missing: no new key is made.
	os.Remove(cfg.KeyFile)
	re := refusedWith(t, cfg, "key missing")
	if !strings.Contains(re.Damage, "key file "+cfg.KeyFile+" is missing") || !strings.Contains(re.Damage, pub) ||
		!strings.Contains(re.Recover, "tablectl journal recover") || !strings.Contains(re.Recover, "--new-key") {
		t.Errorf("key missing: %v", re)
	}
	if _, err := os.Stat(cfg.KeyFile); err == nil {
		t.Error("a refused start made a new key")
	}

	// Another key in the file.
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	if _, _, err := journal.LoadOrCreateKey(cfg.KeyFile); err != nil {
		t.Fatal(err)
	}
	otherCfg := cfg
	otherCfg.KeyFile, otherCfg.SigningKey = "", other
	re = refusedWith(t, otherCfg, "key replaced")
	if !strings.Contains(re.Damage, "signed with "+pub) {
		t.Errorf("key replaced: %v", re)
	}
	restore()

	// The heads file deleted, or emptied.
	for _, cut := range []func(){func() { os.Remove(heads) }, func() { os.WriteFile(heads, nil, 0o640) }} {
		cut()
		re = refusedWith(t, cfg, "heads missing")
		if !strings.Contains(re.Damage, "heads file "+heads+" is missing or empty") || re.Recover == "" {
			t.Errorf("heads missing: %v", re)
		}
		restore()
	}

	// The last checkpoint damaged.
	damaged := bytes.Clone(headBytes)
	damaged[len(damaged)-5] ^= 0x01
	os.WriteFile(heads, damaged, 0o640)
	re = refusedWith(t, cfg, "heads damaged")
	if !strings.Contains(re.Damage, "heads") || !strings.Contains(re.Damage, "checksum mismatch") || re.Recover == "" {
		t.Errorf("heads damaged: %v", re)
	}
	restore()

	// The last checkpoint signed with another key, its checksum good.
	j, _, err := journal.Open(cfg.JournalDir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Checkpoint(other); err != nil {
		t.Fatal(err)
	}
	j.Close()
	re = refusedWith(t, cfg, "checkpoint of another key")
	if !strings.Contains(re.Damage, "not signed with the table's key") {
		t.Errorf("checkpoint of another key: %v", re)
	}
	restore()

	// A snapshot signed with another key, standing for records all still there.
	j, _, err = journal.Open(cfg.JournalDir, journal.Options{SigningKey: other})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.WriteSnapshot(j.LastSeq(), []byte(`{"settings":{},"state":{"Shoe":7}}`)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	re = refusedWith(t, cfg, "snapshot of another key")
	if !strings.Contains(re.Damage, "snapshot: its signature does not verify") {
		t.Errorf("snapshot of another key: %v", re)
	}
	restore()

	// Restored, the table starts again.
	r := startWith(t, cfg, nil)
	r.close(t)
}

// TestStartChecksTheBrokersHead: the signed head the broker held must be borne out by the
// journal: a journal that stops short of it or holds another hash for its record is
// refused, naming both heads; one that bears it out, a head a recovery recorded as lost,
// a head not signed with the table's key, no head and no answer all start.
func TestStartChecksTheBrokersHead(t *testing.T) {
	t.Parallel()
	cfg, key, last := signedTable(t)

	ahead := journal.Sign(key, last.Seq+11, last.Hash)
	cfg.BrokerHead = &BrokerHead{Broker: "tcp://pit:1883", Asked: true, Head: &ahead}
	re := refusedWith(t, cfg, "journal behind the broker's head")
	if !strings.Contains(re.Damage, "rolled back") || !strings.Contains(re.Damage, ahead.Hash.String()) ||
		!strings.Contains(re.Damage, "journal ends at record") || !strings.Contains(re.Damage, "tcp://pit:1883") {
		t.Errorf("journal behind the broker's head: %v", re)
	}

	var otherHash journal.Hash
	otherHash[0] = 1
	rewritten := journal.Sign(key, last.Seq-1, otherHash)
	cfg.BrokerHead.Head = &rewritten
	re = refusedWith(t, cfg, "another hash at the broker's head")
	if !strings.Contains(re.Damage, "rewritten") || !strings.Contains(re.Damage, otherHash.String()) {
		t.Errorf("another hash at the broker's head: %v", re)
	}

	for name, bh := range map[string]*BrokerHead{
		"borne out":                 {Broker: "b", Asked: true, Head: &last},
		"no head":                   {Broker: "b", Asked: true},
		"no answer":                 {Broker: "b", Why: "connection refused"},
		"not signed with the key":   {Broker: "b", Asked: true, Head: ptr(journal.Sign(ed25519.NewKeyFromSeed(make([]byte, 32)), last.Seq+5, last.Hash))},
		"an earlier head borne out": {Broker: "b", Asked: true, Head: ptr(journal.Sign(key, 2, hashAt(t, cfg.JournalDir, 2)))},
	} {
		cfg.BrokerHead = bh
		d, err := Open(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d.Close()
	}

	// A recovery recorded the head as lost: the table starts on the journal rolled back.
	j, _, err := journal.Open(cfg.JournalDir, journal.Options{SigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if err := table.Persist(j, &table.Ready{Records: []table.Entry{{Recovery: &table.Recovery{By: "S17", Reason: "card restored",
		Lost: []string{"records rolled back"}, LostHead: &ahead}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Checkpoint(key); err != nil {
		t.Fatal(err)
	}
	j.Close()
	cfg.BrokerHead = &BrokerHead{Broker: "b", Asked: true, Head: &ahead}
	d, err := Open(cfg)
	if err != nil {
		t.Fatalf("a head recorded lost: %v", err)
	}
	d.Close()
}

func ptr[T any](v T) *T { return &v }

// hashAt is the chain hash of record seq of the journal in dir.
func hashAt(t *testing.T, dir string, seq uint64) journal.Hash {
	t.Helper()
	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	h, err := j.HashAt(seq)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestFirstStartMakesTheKeyAndRecordsIt: a new journal gets a new key, signed first, then
// recorded; an old journal signed before key records were kept records its key at the
// next start.
func TestFirstStartMakesTheKeyAndRecordsIt(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := testConfig(t, filepath.Join(root, "journal"))
	cfg.KeyFile = filepath.Join(root, "table.key")
	r := startWith(t, cfg, nil)
	r.close(t)
	key, err := journal.LoadKey(cfg.KeyFile)
	if err != nil {
		t.Fatalf("no key made: %v", err)
	}
	pub := journal.PublicKeyString(key.Public().(ed25519.PublicKey))
	j, _, err := journal.Open(cfg.JournalDir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for rec, err := range j.Records(1) {
		if err != nil {
			t.Fatal(err)
		}
		e, err := table.DecodeEntry(rec.Seq, rec.Data)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case e.Settings != nil:
			kinds = append(kinds, "settings")
		case e.Key != nil:
			kinds = append(kinds, "key "+e.Key.Public)
		}
	}
	heads, err := j.Checkpoints()
	j.Close()
	if err != nil || len(heads) != 2 || heads[0].Seq != 1 || heads[1].Seq != 2 {
		t.Fatalf("heads %+v, %v: want the settings signed, then the key record", heads, err)
	}
	if strings.Join(kinds, ", ") != "settings, key "+pub {
		t.Fatalf("records: %v", kinds)
	}
	// Started again, the key is not recorded again; what the restart records is signed.
	r = startWith(t, cfg, nil)
	r.close(t)
	j, _, err = journal.Open(cfg.JournalDir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	sg, err := table.ReadSigning(j)
	if err != nil || sg.Key != pub || sg.KeySeq != 2 {
		t.Fatalf("after a second start: key %q at record %d, %v", sg.Key, sg.KeySeq, err)
	}
	if c, err := j.LastCheckpoint(); err != nil || c.Seq != j.LastSeq() {
		t.Fatalf("after a second start: the last checkpoint %+v, the journal ends at %d, %v", c, j.LastSeq(), err)
	}
}

// TestKeyAtTheOldPlace: a journal whose key an earlier version kept at the old place
// (table.key beside the journal directory, journal.OldKeyPath) signs on with it there
// when its own key file is missing; a second journal in the same directory, never
// signed, does not take that key but makes its own, beside it, named after it; and a
// signed journal whose key is not the one at the old place is refused as with no key.
func TestKeyAtTheOldPlace(t *testing.T) {
	t.Parallel()
	cfg, key, _ := signedTable(t)
	old := journal.OldKeyPath(cfg.JournalDir)
	if err := os.Rename(cfg.KeyFile, old); err != nil {
		t.Fatal(err)
	}
	cfg.OldKeyFile = old
	r := startWith(t, cfg, nil)
	if r.d.key == nil || !r.d.key.Equal(key) || r.d.cfg.KeyFile != old {
		t.Fatalf("the journal's key at the old place: the table signs with %v from %s", r.d.key != nil, r.d.cfg.KeyFile)
	}
	r.close(t)
	if _, err := os.Stat(journal.DefaultKeyPath(cfg.JournalDir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a key was made beside the journal: %v", err)
	}

	// A second journal beside the first, never signed: its own key.
	second := cfg
	second.JournalDir = filepath.Join(filepath.Dir(cfg.JournalDir), "journal-2")
	second.KeyFile, second.OldKeyFile = journal.DefaultKeyPath(second.JournalDir), journal.OldKeyPath(second.JournalDir)
	if second.OldKeyFile != old {
		t.Fatalf("the second journal's old place %s, want the first's %s", second.OldKeyFile, old)
	}
	r2 := startWith(t, second, nil)
	r2.close(t)
	made, err := journal.LoadKey(second.KeyFile)
	if err != nil {
		t.Fatalf("the second journal made no key of its own: %v", err)
	}
	if made.Equal(key) {
		t.Fatal("the second journal signs with the first's key")
	}

	// A signed journal whose key is neither its own file's nor the old place's.
	third := second
	if err := os.Remove(third.KeyFile); err != nil {
		t.Fatal(err)
	}
	re := refusedWith(t, third, "a signed journal, its key missing, another at the old place")
	if !strings.Contains(re.Error(), third.KeyFile+" is missing") {
		t.Errorf("refusal %q does not name the journal's own key file as missing", re)
	}
}
