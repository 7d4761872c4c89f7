package journal

import (
	"crypto/ed25519"
	"fmt"
)

// ChainHash returns the chain hash of the record with sequence number seq and payload p
// that follows a record whose chain hash is prev (the zero Hash before record 1). A copy
// of the journal kept elsewhere checks each record it receives with it: the record
// chains when its hash is ChainHash of the hash held before it.
func ChainHash(prev Hash, seq uint64, p []byte) Hash {
	return chainHash(prev, seq, p)
}

// AddCheckpoint appends a checkpoint signed elsewhere (by the table whose journal this
// one copies) to the heads file, as Checkpoint appends its own. The journal must hold
// record c.Seq, synced, with exactly the chain hash c.Hash, and c must come at or after
// the last checkpoint of the heads file. The signature is not checked here: `journal
// verify --key` checks it.
func (j *Journal) AddCheckpoint(c Checkpoint) error {
	if c.Table != "" {
		return fmt.Errorf("journal: add checkpoint of record %d: it names table %s: the heads file holds unnamed heads (AddTableHead)", c.Seq, c.Table)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.checkAdd(c); err != nil {
		return err
	}
	last, err := lastCheckpoint(j.dir)
	if err != nil {
		return err
	}
	if last != nil && c.Seq < last.Seq {
		return fmt.Errorf("journal: add checkpoint of record %d after one of record %d", c.Seq, last.Seq)
	}
	if err := j.appendHead(c); err != nil {
		return j.fail(fmt.Errorf("journal: add checkpoint of record %d: %w", c.Seq, err))
	}
	return nil
}

// checkAdd checks a checkpoint signed elsewhere against the journal, with j.mu held: the
// journal holds record c.Seq, synced, with exactly the chain hash c.Hash.
func (j *Journal) checkAdd(c Checkpoint) error {
	if err := j.writable(); err != nil {
		return err
	}
	if err := j.syncLocked(); err != nil {
		return err
	}
	if c.Seq == 0 || c.Seq > j.synced {
		return fmt.Errorf("journal: add checkpoint of record %d: the journal ends at record %d", c.Seq, j.synced)
	}
	if len(c.Sig) != ed25519.SignatureSize {
		return fmt.Errorf("journal: add checkpoint of record %d: a signature of %d bytes, want %d", c.Seq, len(c.Sig), ed25519.SignatureSize)
	}
	if len(j.segs) > 0 && c.Seq < j.segs[0].first {
		return fmt.Errorf("journal: add checkpoint of record %d: the journal starts at record %d", c.Seq, j.segs[0].first)
	}
	h, err := j.hashAt(c.Seq)
	if err != nil {
		return fmt.Errorf("journal: add checkpoint of record %d: %w", c.Seq, err)
	}
	if h != c.Hash {
		return fmt.Errorf("journal: add checkpoint of record %d: it signs chain hash %s, the journal holds %s", c.Seq, c.Hash, h)
	}
	return nil
}
