package tablecmd

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/table"
)

// recoverUsage is the usage of `tablectl journal recover`.
const recoverUsage = `  recover --by NAME --reason TEXT [--key FILE] [--new-key] [--config FILE] DIR
                      record in the journal itself what was lost, so that the table,
                      which refused it, starts again: a heads file missing or damaged, the
                      signing key missing (--new-key makes a new one) or replaced, a
                      snapshot not signed with the table's key, records rolled back behind
                      the signed head the broker holds (read with --config's broker). Files
                      set aside are kept beside the journal. Damaged records are not a loss
                      this records: 'journal verify' shows them. The table must be stopped`

// recovery is what a recovery finds lost, and what it does about it.
type recovery struct {
	lost       []string
	lostHead   *journal.Checkpoint
	setAside   []string // files renamed out of the journal's way: heads, snapshot
	newKey     bool     // a key made
	keyChanged bool     // the journal is signed with another key from here on
}

// runJournalRecover records what was lost in the journal and signs it again.
func runJournalRecover(ctx context.Context, args []string, sio cli.Stdio) error {
	fs := newFlagSet("journal recover", sio)
	fs.Usage = func() { fmt.Fprintln(sio.Err, journalUsage) }
	by := fs.String("by", "", "who recovers: the supervisor's name")
	reason := fs.String("reason", "", "why: what happened, as the supervisor knows it")
	keyFile := fs.String("key", "", "the table's key file (default: the configuration's journal_key, or DIR.key beside DIR)")
	newKey := fs.Bool("new-key", false, "make a new key when the key file is missing; the journal is signed with it from here on")
	configFile := fs.String("config", "", "the table's configuration file: its broker is asked for the table's signed head")
	dirs, err := cli.ParseInterspersed(fs, args)
	switch {
	case err != nil:
		return err
	case len(dirs) != 1:
		return fmt.Errorf("journal recover: want one journal directory, got %d", len(dirs))
	case strings.TrimSpace(*by) == "" || strings.TrimSpace(*reason) == "":
		return errors.New("journal recover: --by NAME and --reason TEXT are required: the journal records who recovered and why")
	}
	dir := dirs[0]
	var cfg *config.Run
	if *configFile != "" {
		r, err := config.Resolve(*configFile, config.Flags{Given: map[string]bool{}})
		if err != nil {
			return fmt.Errorf("journal recover: %w", err)
		}
		cfg = &r
	}
	path := *keyFile
	if path == "" && cfg != nil && cfg.JournalKey != "" {
		path = cfg.JournalKey
	}
	if path == "" {
		if old, ok := oldKeyOnly(dir); ok {
			return fmt.Errorf("journal recover: the key of an earlier version is at %s, which every journal of that directory shares: give --key %s if it is this journal's", old, old)
		}
		path = journal.DefaultKeyPath(dir)
	}

	var rec recovery
	key, err := journal.LoadKey(path)
	switch {
	case errors.Is(err, iofs.ErrNotExist) && !*newKey:
		return fmt.Errorf("journal recover: the key file %s is missing: restore it, or give --new-key to sign the journal with a new key from here on (the loss is recorded)", path)
	case errors.Is(err, iofs.ErrNotExist):
		if key, _, err = journal.LoadOrCreateKey(path); err != nil {
			return fmt.Errorf("journal recover: %w", err)
		}
		rec.newKey = true
	case err != nil:
		return fmt.Errorf("journal recover: %w", err)
	case *newKey:
		return fmt.Errorf("journal recover: --new-key, but the key file %s exists: it is not replaced", path)
	}
	pub := key.Public().(ed25519.PublicKey)
	pubText := journal.PublicKeyString(pub)

	if err := rec.find(ctx, dir, key, path, cfg, sio); err != nil {
		return fmt.Errorf("journal recover: %w", err)
	}
	if len(rec.lost) == 0 {
		fmt.Fprintf(sio.Out, "journal %s: nothing to recover: the table starts on it\n", dir)
		return nil
	}

	// Set aside what the table cannot start with, then record the loss and sign.
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for _, name := range rec.setAside {
		to := name + ".lost-" + stamp
		if err := os.Rename(filepath.Join(dir, name), filepath.Join(dir, to)); err != nil {
			return fmt.Errorf("journal recover: set %s aside: %w", name, err)
		}
		fmt.Fprintf(sio.Out, "set aside: %s as %s\n", name, to)
	}
	j, _, err := journal.Open(dir, journal.Options{SigningKey: key})
	if err != nil {
		return fmt.Errorf("journal recover: %w", err)
	}
	defer j.Close()
	if rec.newKey {
		rec.lost = append(rec.lost, fmt.Sprintf("the key file %s was missing: the journal is signed with the new key %s from here on", path, pubText))
	}
	entry := table.Entry{Recovery: &table.Recovery{At: time.Now().UTC(), By: *by, Reason: *reason, Lost: rec.lost, LostHead: rec.lostHead}}
	if err := table.Persist(j, &table.Ready{Records: []table.Entry{entry}}); err != nil {
		return fmt.Errorf("journal recover: %w", err)
	}
	seq := j.LastSeq()
	if _, err := j.Checkpoint(key); err != nil {
		return fmt.Errorf("journal recover: %w", err)
	}
	sg, err := table.ReadSigning(j)
	if err != nil {
		return fmt.Errorf("journal recover: %w", err)
	}
	if sg.Key != pubText {
		if err := table.Persist(j, &table.Ready{Records: []table.Entry{{Key: &table.KeyRecord{Public: pubText}}}}); err != nil {
			return fmt.Errorf("journal recover: %w", err)
		}
	}
	c, err := j.Checkpoint(key)
	if err != nil {
		return fmt.Errorf("journal recover: %w", err)
	}
	if err := j.Close(); err != nil {
		return fmt.Errorf("journal recover: %w", err)
	}
	fmt.Fprintf(sio.Out, "journal %s: recorded as record %d, by %s: %s\n", dir, seq, *by, *reason)
	for _, l := range rec.lost {
		fmt.Fprintf(sio.Out, "  lost: %s\n", l)
	}
	fmt.Fprintf(sio.Out, "signed: checkpoint of record %d with %s\n", c.Seq, pubText)
	if rec.newKey || rec.keyChanged {
		fmt.Fprintf(sio.Out, "give the pit the table's public key from now on: %s\n", pubText)
	}
	return nil
}

// find looks for what the table refuses: the heads file, the key, the snapshot, the
// broker's head. Damaged records are an error: they are not a loss a recovery records.
func (rec *recovery) find(ctx context.Context, dir string, key ed25519.PrivateKey, keyPath string, cfg *config.Run, sio cli.Stdio) error {
	pub := key.Public().(ed25519.PublicKey)
	pubText := journal.PublicKeyString(pub)
	j, rep, err := journal.Open(dir, journal.Options{ReadOnly: true, PublicKey: pub})
	var ce *journal.CorruptError
	if errors.As(err, &ce) && ce.File == "heads" {
		// The heads file is damaged, or signs records the journal no longer holds: it is
		// set aside, and the journal read without it.
		rec.lost = append(rec.lost, fmt.Sprintf("the heads file, set aside: %s", ce.Reason))
		rec.setAside = append(rec.setAside, "heads")
		var cleanup func()
		if j, rep, cleanup, err = openWithout(dir, "heads", pub); err != nil {
			return err
		}
		defer cleanup()
		heads, _ := journal.ReadHeads(filepath.Join(dir, "heads"))
		if last, end := lastOf(heads), j.LastSeq(); last != nil && last.Seq > end {
			rec.lostHead = last
			rec.lost = append(rec.lost, fmt.Sprintf("records %d to %d, rolled back: the heads file signed record %d (hash %s), the journal ends at record %d",
				end+1, last.Seq, last.Seq, last.Hash, end))
		}
	}
	if err != nil {
		return fmt.Errorf("%w (a recovery records lost heads, keys, snapshots and records rolled back, not damaged records: inspect the journal with `tablectl journal verify --key %s %s`)", err, pubText, dir)
	}
	defer j.Close()
	sg, err := table.ReadSigning(j)
	if err != nil {
		return err
	}
	switch {
	case rec.newKey && sg.Key != "":
		rec.lost = append(rec.lost, fmt.Sprintf("the key %s the journal was signed with", sg.Key))
	case sg.Key != "" && sg.Key != pubText:
		rec.keyChanged = true
		rec.lost = append(rec.lost, fmt.Sprintf("the key %s the journal was signed with: the key file %s holds %s, which signs from here on", sg.Key, keyPath, pubText))
	}
	if !slicesContains(rec.setAside, "heads") {
		last, err := j.LastCheckpoint()
		switch {
		case err != nil:
			return err
		case last == nil && sg.Key != "":
			rec.lost = append(rec.lost, "the heads file, missing or empty: the checkpoints signed before are gone from the table (a witness holds them)")
		case last != nil && !last.Verify(pub) && !rec.newKey && !rec.keyChanged:
			rec.lost = append(rec.lost, fmt.Sprintf("the heads file, set aside: its last checkpoint (record %d) is not signed with %s", last.Seq, pubText))
			rec.setAside = append(rec.setAside, "heads")
		}
	}
	if s := rep.Snapshot; s != nil && s.Signed && !s.Verified {
		rec.lost = append(rec.lost, fmt.Sprintf("the snapshot of record %d, set aside: %s; the table replays the records", s.Seq, s.Ignored))
		rec.setAside = append(rec.setAside, "snapshot")
	}
	if cfg == nil {
		return nil
	}
	bh := brokerHead(ctx, cfg.Config, cfg.Password, cli.NewLogger(false, io.Discard))
	switch {
	case bh == nil || !bh.Asked || bh.Head == nil:
		return nil
	case !bh.Head.Verify(pub) && !rec.newKey && !rec.keyChanged:
		return nil // not this table's
	case sg.Lost(*bh.Head):
		return nil
	}
	c := *bh.Head
	lastSeq, lastHash := j.Head()
	if c.Seq > lastSeq {
		rec.lostHead = &c
		rec.lost = append(rec.lost, fmt.Sprintf("records %d to %d, rolled back: the broker %s held the table's signed head of record %d (hash %s), the journal ends at record %d (hash %s)",
			lastSeq+1, c.Seq, bh.Broker, c.Seq, c.Hash, lastSeq, lastHash))
		return nil
	}
	if h, err := j.HashAt(c.Seq); err != nil || h != c.Hash {
		rec.lostHead = &c
		rec.lost = append(rec.lost, fmt.Sprintf("records up to %d, rewritten: the broker %s held the table's signed head of record %d (hash %s), the journal's record %d has hash %s",
			c.Seq, bh.Broker, c.Seq, c.Hash, c.Seq, h))
	}
	return nil
}

// lastOf is the last of heads, nil when there is none.
func lastOf(heads []journal.Checkpoint) *journal.Checkpoint {
	if len(heads) == 0 {
		return nil
	}
	return &heads[len(heads)-1]
}

// openWithout opens a read-only copy of the journal in dir without the file left out:
// the journal's files are linked, or copied, into a temporary directory, which cleanup
// removes (after the journal is closed).
func openWithout(dir, leftOut string, pub ed25519.PublicKey) (*journal.Journal, journal.Report, func(), error) {
	tmp, err := os.MkdirTemp("", "tablectl-recover-")
	if err != nil {
		return nil, journal.Report{}, nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	entries, err := os.ReadDir(dir)
	if err != nil {
		cleanup()
		return nil, journal.Report{}, nil, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == leftOut {
			continue
		}
		if err := os.Link(filepath.Join(dir, e.Name()), filepath.Join(tmp, e.Name())); err != nil {
			if err := copyFile(filepath.Join(dir, e.Name()), filepath.Join(tmp, e.Name())); err != nil {
				cleanup()
				return nil, journal.Report{}, nil, err
			}
		}
	}
	j, rep, err := journal.Open(tmp, journal.Options{ReadOnly: true, PublicKey: pub})
	if err != nil {
		cleanup()
		return nil, rep, nil, err
	}
	return j, rep, func() { j.Close(); cleanup() }, nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o600)
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// printRecovery prints a recovery record of `journal replay`.
func printRecovery(w io.Writer, seq uint64, r table.Recovery) error {
	if _, err := fmt.Fprintf(w, "#%d %s recovery by %s: %s\n", seq, r.At.UTC().Format("2006-01-02T15:04:05.000Z"), r.By, r.Reason); err != nil {
		return err
	}
	for _, l := range r.Lost {
		if _, err := fmt.Fprintf(w, "    lost: %s\n", l); err != nil {
			return err
		}
	}
	if c := r.LostHead; c != nil {
		if _, err := fmt.Fprintf(w, "    lost head: record %d, hash %s\n", c.Seq, c.Hash); err != nil {
			return err
		}
	}
	return nil
}
