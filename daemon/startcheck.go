package daemon

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/table"
)

// The checks a table makes of its journal before it starts (docs/journal.md, "What each
// layer catches"): beyond what a quick open checks (the framing and chain from the last
// checkpoint on, every segment boundary, the last checkpoint against its record), the
// signing itself: the key file must be the journal's key, the heads file must be there
// once the journal is signed, the last checkpoint and the snapshot must be signed with
// the key, and the signed head the broker holds (BrokerHead) must be borne out. Any
// failure is a *RefusedError: the table does not start, and nothing is written.

// RefusedError is a journal the table does not start on: what is wrong with it, the
// command to inspect it, and, for a loss a supervisor may record, the command that does.
type RefusedError struct {
	// Dir is the journal directory.
	Dir string
	// Damage says what is wrong, naming the file, the record or the heads concerned.
	Damage string
	// Inspect is the command that shows the journal and its damage.
	Inspect string
	// Recover, when not empty, is the command with which a supervisor records the loss in
	// the journal itself, so that the table starts again.
	Recover string
	// Err is the error behind Damage, if any.
	Err error
}

// Error names the damage and the commands.
func (e *RefusedError) Error() string {
	s := fmt.Sprintf("journal %s: %s: the table does not start on it; inspect it with `%s`", e.Dir, e.Damage, e.Inspect)
	if e.Recover != "" {
		s += fmt.Sprintf("; once the cause is known, a supervisor records the loss with `%s` and the table starts again", e.Recover)
	}
	return s
}

// Unwrap returns the error behind the damage.
func (e *RefusedError) Unwrap() error { return e.Err }

// BrokerHead is what the table's broker held of the table's last signed head when the
// table started: the retained message of its journal topic (Config.BrokerHead).
type BrokerHead struct {
	// Broker names the broker, for the log and the errors.
	Broker string
	// Asked is true when the broker answered; Why says why it was not asked or did not
	// answer (the embedded broker, which keeps nothing across a restart; no broker
	// reachable within the wait).
	Asked bool
	Why   string
	// Head is the head it held, nil when it held none.
	Head *journal.Checkpoint
}

// refused is the RefusedError of damage to the daemon's journal.
func (d *Daemon) refused(damage string, err error, recoverable bool) *RefusedError {
	r := &RefusedError{Dir: d.cfg.JournalDir, Damage: damage, Err: err, Inspect: d.inspectCommand()}
	if recoverable {
		r.Recover = d.recoverCommand()
	}
	return r
}

// inspectCommand is the verify command for the journal, with the table's public key
// when it is known.
func (d *Daemon) inspectCommand() string {
	if d.key != nil {
		return fmt.Sprintf("tablectl journal verify --key %s %s", journal.PublicKeyString(d.key.Public().(ed25519.PublicKey)), d.cfg.JournalDir)
	}
	return "tablectl journal verify " + d.cfg.JournalDir
}

// recoverCommand is the recovery command for the journal.
func (d *Daemon) recoverCommand() string {
	cmd := "tablectl journal recover --by NAME --reason TEXT"
	if d.cfg.KeyFile != "" && d.cfg.KeyFile != journal.DefaultKeyPath(d.cfg.JournalDir) {
		cmd += " --key " + d.cfg.KeyFile
	}
	if d.keyMissing {
		cmd += " --new-key"
	}
	switch {
	case d.cfg.ConfigFile != "":
		cmd += " --config " + d.cfg.ConfigFile
	case d.brokerSaw:
		cmd += " --config FILE" // the recovery reads the broker's head from the file's broker
	}
	return cmd + " " + d.cfg.JournalDir
}

// openRefused is the RefusedError of a journal Open refused.
func openRefused(cfg Config, key ed25519.PrivateKey, err error) error {
	var ce *journal.CorruptError
	if !errors.As(err, &ce) {
		return journalError(cfg.JournalDir, err)
	}
	d := &Daemon{cfg: cfg, key: key}
	// A damaged heads file, or one that signs records the journal no longer holds, is a
	// loss a supervisor may record; damaged records are not.
	return d.refused(ce.Error(), err, ce.File == "heads")
}

// loadKey reads the table's signing key: Config.SigningKey, or the file Config.KeyFile.
// A missing file is not an error here: missing says so, and checkSigning decides. With
// KeyFile missing, the key at Config.OldKeyFile is read when there is one (old says so):
// checkSigning takes it only for a journal that records it.
func loadKey(cfg Config) (key ed25519.PrivateKey, missing, old bool, err error) {
	if cfg.SigningKey != nil || cfg.KeyFile == "" {
		return cfg.SigningKey, false, false, nil
	}
	key, err = journal.LoadKey(cfg.KeyFile)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, false, false, err
	}
	if cfg.OldKeyFile == "" || cfg.OldKeyFile == cfg.KeyFile {
		return nil, true, false, nil
	}
	key, err = journal.LoadKey(cfg.OldKeyFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, false, nil
	}
	return key, true, err == nil, err
}

// checkSigning makes the checks of the signing (see above), once the journal is open and
// replayed and before anything is written. A journal never signed, its key file
// missing, gets a new key.
func (d *Daemon) checkSigning(rep journal.Report) error {
	sg := d.node.Signing()
	signed := sg.Key != "" || rep.LastCheckpoint != 0 || (rep.Snapshot != nil && rep.Snapshot.Signed)
	if d.oldKey {
		if err := d.takeOldKey(sg); err != nil {
			return err
		}
	}
	if d.key == nil {
		if !d.keyMissing {
			return nil // a table that signs nothing
		}
		if signed {
			return d.refused(fmt.Sprintf("the table's key file %s is missing, but the journal is signed (%s)", d.cfg.KeyFile, signedBy(sg, rep)), nil, true)
		}
		return d.makeKey()
	}
	pub := journal.PublicKeyString(d.key.Public().(ed25519.PublicKey))
	if sg.Key != "" && sg.Key != pub {
		return d.refused(fmt.Sprintf("the key file %s holds the key %s, but the journal is signed with %s (%s)",
			d.cfg.KeyFile, pub, sg.Key, keyRecordNote(sg)), nil, true)
	}
	if s := rep.Snapshot; s != nil && s.Signed && !s.Verified {
		return d.refused(fmt.Sprintf("snapshot: %s (it covers records up to %d): it was not written by this table", s.Ignored, s.Seq), nil, true)
	}
	last, err := d.j.LastCheckpoint()
	if err != nil {
		return d.refused(err.Error(), err, true)
	}
	if sg.Key != "" && last == nil {
		return d.refused(fmt.Sprintf("the heads file %s is missing or empty, but the journal is signed with %s (%s), so it held signed checkpoints",
			filepath.Join(d.cfg.JournalDir, "heads"), sg.Key, keyRecordNote(sg)), nil, true)
	}
	if last != nil && !last.Verify(d.key.Public().(ed25519.PublicKey)) {
		return d.refused(fmt.Sprintf("heads: the last checkpoint (record %d) is not signed with the table's key %s", last.Seq, pub), nil, true)
	}
	return d.checkBrokerHead(signed, sg)
}

// takeOldKey decides on the key found at the old place (Config.OldKeyFile) with the
// key file missing: the journal signs on with it there when it records that key (its
// key record, or, for a journal from before key records, its last checkpoint); any other
// journal does without it, as with no key at all: one never signed gets its own key.
func (d *Daemon) takeOldKey(sg table.Signing) error {
	pub := d.key.Public().(ed25519.PublicKey)
	ours := sg.Key == journal.PublicKeyString(pub)
	if sg.Key == "" {
		last, err := d.j.LastCheckpoint()
		if err != nil {
			return d.refused(err.Error(), err, true)
		}
		ours = last != nil && last.Verify(pub)
	}
	d.oldKey = false
	if !ours {
		d.log.Info("a key at the old place is another journal's: this journal does not take it", "old_key", d.cfg.OldKeyFile, "key", d.cfg.KeyFile)
		d.key = nil
		d.j.SetSigningKey(nil)
		return nil
	}
	d.log.Warn("the journal signs on with its key at the old place, shared by every journal of that directory: move it to the journal's own",
		"key", d.cfg.OldKeyFile, "move", fmt.Sprintf("mv %s %s", d.cfg.OldKeyFile, d.cfg.KeyFile))
	d.cfg.KeyFile, d.keyMissing = d.cfg.OldKeyFile, false
	return nil
}

// signedBy says what shows that a journal is signed.
func signedBy(sg table.Signing, rep journal.Report) string {
	switch {
	case sg.Key != "":
		return fmt.Sprintf("with %s, %s", sg.Key, keyRecordNote(sg))
	case rep.LastCheckpoint != 0:
		return fmt.Sprintf("its heads file holds checkpoints, the last of record %d", rep.LastCheckpoint)
	}
	return fmt.Sprintf("its snapshot of record %d is signed", rep.Snapshot.Seq)
}

// keyRecordNote says where the journal names its key.
func keyRecordNote(sg table.Signing) string {
	if sg.KeySeq == 0 {
		return "as its snapshot records"
	}
	return fmt.Sprintf("as record %d records", sg.KeySeq)
}

// makeKey makes the table's first key, for a journal never signed.
func (d *Daemon) makeKey() error {
	key, created, err := journal.LoadOrCreateKey(d.cfg.KeyFile)
	if err != nil {
		return err
	}
	pub := journal.PublicKeyString(key.Public().(ed25519.PublicKey))
	switch {
	case created && d.cfg.SimulatedKey:
		d.log.Info("made the simulated table's signing key", "key", d.cfg.KeyFile, "public", pub)
	case created:
		d.log.Warn("made the table's signing key: give its public key to the pit (tablectl key show)", "key", d.cfg.KeyFile, "public", pub)
	default:
		d.log.Info("the table's signing key", "key", d.cfg.KeyFile, "public", pub)
	}
	d.key, d.keyMissing = key, false
	d.j.SetSigningKey(key)
	return nil
}

// checkBrokerHead checks the signed head the broker held (Config.BrokerHead) against the
// journal: a journal that does not reach it, or holds another hash for its record, was
// rolled back or rewritten since the head was published, unless a recovery recorded that
// head as lost.
func (d *Daemon) checkBrokerHead(signed bool, sg table.Signing) error {
	bh := d.cfg.BrokerHead
	if bh == nil {
		return nil
	}
	switch {
	case !bh.Asked:
		if signed {
			d.log.Warn("the table's last signed head was not read from the broker: a journal rolled back cannot be told at this start",
				"broker", bh.Broker, "why", bh.Why)
		}
		return nil
	case bh.Head == nil:
		if signed {
			d.log.Warn("the broker holds no signed head of this table: a journal rolled back cannot be told at this start (a new broker, or one that keeps no retained messages across its restarts)",
				"broker", bh.Broker)
		}
		return nil
	}
	c := *bh.Head
	d.brokerSaw = true
	if !c.Verify(d.key.Public().(ed25519.PublicKey)) {
		d.log.Warn("the broker's retained journal head is not signed with the table's key: not this table's, ignored",
			"broker", bh.Broker, "record", c.Seq)
		return nil
	}
	if sg.Lost(c) {
		d.log.Warn("the broker's signed head was recorded as lost by a recovery", "broker", bh.Broker, "record", c.Seq, "hash", c.Hash)
		return nil
	}
	lastSeq, lastHash := d.j.Head()
	if c.Seq > lastSeq {
		return d.refused(fmt.Sprintf("rolled back: the broker %s holds the table's signed head of record %d (hash %s), but the journal ends at record %d (hash %s)",
			bh.Broker, c.Seq, c.Hash, lastSeq, lastHash), nil, true)
	}
	h, err := d.j.HashAt(c.Seq)
	if err != nil {
		return d.refused(fmt.Sprintf("the broker %s holds the table's signed head of record %d, which the journal cannot show: %v", bh.Broker, c.Seq, err), err, true)
	}
	if h != c.Hash {
		return d.refused(fmt.Sprintf("rewritten: the broker %s holds the table's signed head of record %d (hash %s), but the journal's record %d has hash %s (its head: record %d, hash %s)",
			bh.Broker, c.Seq, c.Hash, c.Seq, h, lastSeq, lastHash), nil, true)
	}
	d.log.Info("the journal bears out the signed head the broker holds", "broker", bh.Broker, "record", c.Seq)
	return nil
}
